// SPDX-License-Identifier: Apache-2.0
// The fused kernels of the training step (issue 28) against their plain formulas: values and
// gradients within float tolerance (core/kernels/fusedops.h).
#include "core/model/bertmodel.h"
#include "core/kernels/fusedops.h"
#include "core/model/pretrainingheads.h"
#include "core/engine/adamw.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/autocast_mode.h>
#include <QtTest>

#include <atomic>
#include <stdexcept>
#include <thread>

using namespace wb;

class tst_FusedOps : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void dropoutMaskIsTheHash();
    void dropoutIsMaskTimesXOverKeep_data();
    void dropoutIsMaskTimesXOverKeep();
    void dropoutKeepsTheRightFraction();
    void dropoutDrawsOneNumberFromTheGenerator();
    void dropoutDoesNotDependOnThreads();
    void dropoutAddIsDropoutPlusResidual();
    void fastLinearIsLinear_data();
    void fastLinearIsLinear();
    void fastLinearGradientsOfOneInputOnly();
    void fastLinearLeavesTheBiasAlone();
    void fastLinearOnlyWhereItApplies();
    void fastLinear3IsThreeLinears();
    void fastBatchedMatmulIsBaddbmm_data();
    void fastBatchedMatmulIsBaddbmm();
    void fastBatchedMatmulOnlyWhereItApplies();
    void fastBatchedMatmulOverStridedHeads();
    void fusedGeluIsTheErfFormula();
    void fusedGeluOnlyWhereItApplies();
    void fusedAttentionSoftmaxIsSoftmaxThenDropout_data();
    void fusedAttentionSoftmaxIsSoftmaxThenDropout();
    void blockedAttentionIsTheBatchedPath_data();
    void blockedAttentionIsTheBatchedPath();
    void blockedAttentionOnAnyThreads();
    void blockedAttentionOnlyWhereItApplies();
    void trainingStepsMatchTheATenPath();
    void productsDoNotDependOnOtherThreads();
    void pretrainingDecoderMatchesTheATenPath();
};

/// dropoutMask(n, p, seed)[i] is 1/(1−p) exactly where dropoutHash(seed, i) >> 8 is below the
/// threshold (the vectorised kernel against the scalar hash), also across a 2³² index block.
void tst_FusedOps::dropoutMaskIsTheHash()
{
    const double p = 0.1;
    const uint64_t seed = 0x0123456789abcdefULL;
    const torch::Tensor m = nn::dropoutMask(10000, p, seed);
    const float *mp = m.data_ptr<float>();
    const uint32_t threshold = nn::keepThreshold(0.9);
    QCOMPARE(threshold, uint32_t(15099494)); // round(0.9 · 2²⁴)
    for (int64_t i = 0; i < m.numel(); ++i) {
        const bool keep = (nn::dropoutHash(seed, uint64_t(i)) >> 8) < threshold;
        QCOMPARE(mp[i], keep ? float(1.0 / 0.9) : 0.0f);
    }
    // Different seeds, different masks; same seed, the same one.
    QVERIFY(!torch::equal(m, nn::dropoutMask(10000, p, seed + 1)));
    QVERIFY(torch::equal(m, nn::dropoutMask(10000, p, seed)));
    // Indices past 2³² mix the high word in (the scalar path): not the low block again.
    QVERIFY(nn::dropoutHash(seed, 5) != nn::dropoutHash(seed, (uint64_t(1) << 32) + 5));
}

void tst_FusedOps::dropoutIsMaskTimesXOverKeep_data()
{
    QTest::addColumn<double>("p");
    QTest::addColumn<int>("dtype");
    QTest::newRow("0.1 fp32") << 0.1 << int(torch::kFloat);
    QTest::newRow("0.5 fp32") << 0.5 << int(torch::kFloat);
    QTest::newRow("0.1 fp64") << 0.1 << int(torch::kDouble);
    QTest::newRow("0.1 bf16") << 0.1 << int(torch::kBFloat16);
}

/// y = x · m and dy/dx = dy · m with m = dropoutMask (1/(1−p) or 0), for a non-contiguous x
/// (mask indices follow the contiguous order) and a gradient that is not all ones.
void tst_FusedOps::dropoutIsMaskTimesXOverKeep()
{
    QFETCH(double, p);
    QFETCH(int, dtype);
    const auto type = torch::ScalarType(dtype);
    const uint64_t seed = 42;
    const torch::Tensor base = torch::linspace(-3.0, 3.0, 5 * 7 * 9).view({5, 7, 9}).transpose(1, 2).to(type);
    torch::Tensor x = base.clone().requires_grad_(true); // [5,9,7], strides of the transpose
    QVERIFY(!x.is_contiguous());
    const torch::Tensor y = nn::fusedDropout(x, p, seed);
    const torch::Tensor mask = nn::dropoutMask(x.numel(), p, seed).view(x.sizes());
    // float64 scales by 1/(1−p) computed in double; the others by the float32 scale, then round.
    const torch::Tensor expected = type == torch::kDouble
                                       ? x.detach() * (mask.ne(0).to(torch::kDouble) * (1.0 / (1.0 - p)))
                                       : (x.detach().to(torch::kFloat) * mask).to(type);
    QCOMPARE(y.sizes(), x.sizes());
    QCOMPARE(y.scalar_type(), type);
    QVERIFY(torch::equal(y, expected));
    const torch::Tensor dy = torch::arange(x.numel(), torch::kFloat).view(x.sizes()).to(type) * 0.01;
    y.backward(dy);
    const torch::Tensor expectedGrad = type == torch::kDouble ? dy * (mask.ne(0).to(torch::kDouble) * (1.0 / (1.0 - p)))
                                                              : (dy.to(torch::kFloat) * mask).to(type);
    QVERIFY(torch::equal(x.grad(), expectedGrad));
    // It does drop, and scales the rest.
    QVERIFY((y == 0).any().item<bool>());
    QVERIFY((y.to(torch::kFloat) - x.detach().to(torch::kFloat)).abs().max().item<double>() > 0);
}

/// The keep fraction of a large mask is 1 − p within a few standard deviations (fixed seed,
/// so the test is deterministic), and neighbouring elements are not correlated.
void tst_FusedOps::dropoutKeepsTheRightFraction()
{
    const int64_t n = 1 << 20;
    for (const double p : {0.1, 0.5}) {
        const torch::Tensor kept = nn::dropoutMask(n, p, 7).ne(0).to(torch::kDouble);
        const double fraction = kept.mean().item<double>();
        const double sd = std::sqrt(p * (1 - p) / double(n));
        QVERIFY2(std::abs(fraction - (1 - p)) < 5 * sd, qPrintable(QString::number(fraction)));
        // P(both kept) for neighbours equals (1 − p)²: no lag-1 correlation.
        const double both = (kept.narrow(0, 0, n - 1) * kept.narrow(0, 1, n - 1)).mean().item<double>();
        QVERIFY2(std::abs(both - (1 - p) * (1 - p)) < 0.005, qPrintable(QString::number(both)));
    }
}

/// nn::dropout takes exactly one random64() from the run's generator per call, seeds
/// fusedDropout with it, and draws nothing when not training or p = 0.
void tst_FusedOps::dropoutDrawsOneNumberFromTheGenerator()
{
    const torch::Tensor x = torch::randn({4, 16});
    at::Generator gen = nn::makeGenerator(77);
    at::Generator twin = nn::makeGenerator(77);
    const uint64_t seed = at::check_generator<at::CPUGeneratorImpl>(twin)->random64();
    const torch::Tensor y = nn::dropout(x, 0.1, true, gen);
    QVERIFY(torch::equal(y, nn::fusedDropout(x, 0.1, seed)));
    QCOMPARE(at::check_generator<at::CPUGeneratorImpl>(gen)->random64(),
             at::check_generator<at::CPUGeneratorImpl>(twin)->random64());
    const torch::Tensor before = gen.get_state();
    QVERIFY(nn::dropout(x, 0.1, false, gen).is_same(x));
    QVERIFY(nn::dropout(x, 0.0, true, gen).is_same(x));
    QVERIFY(torch::equal(gen.get_state(), before));
}

/// The mask is a function of (seed, index): two threads give the same result as one.
void tst_FusedOps::dropoutDoesNotDependOnThreads()
{
    const torch::Tensor x = torch::randn({300000});
    const int threads = torch::get_num_threads();
    torch::set_num_threads(1);
    const torch::Tensor one = nn::fusedDropout(x, 0.2, 99);
    torch::set_num_threads(2);
    const torch::Tensor two = nn::fusedDropout(x, 0.2, 99);
    torch::set_num_threads(threads);
    QVERIFY(torch::equal(one, two));
}

/// fusedDropoutAdd(x, r, p, seed) = fusedDropout(x, p, seed) + r (values within one rounding:
/// the multiply-add may be fused), the same dropped elements, and its gradients (dy through the
/// mask for x, dy itself for r); a strided residual (the last layer's [CLS] rows) is read as is.
void tst_FusedOps::dropoutAddIsDropoutPlusResidual()
{
    torch::manual_seed(31);
    const torch::Tensor x0 = torch::randn({4, 9, 70}), stored = torch::randn({4, 5, 9, 70}), dy = torch::randn({4, 9, 70});
    const uint64_t seed = 0xabcdef12345ULL;
    auto run = [&](bool fused) {
        auto x = x0.clone().requires_grad_(true), rs = stored.clone().requires_grad_(true);
        const auto r = rs.select(1, 2); // not contiguous
        const auto y = fused ? nn::fusedDropoutAdd(x, r, 0.2, seed) : nn::fusedDropout(x, 0.2, seed) + r;
        y.backward(dy);
        return std::vector<torch::Tensor>{y.detach(), x.grad(), rs.grad()};
    };
    const auto fused = run(true), plain = run(false);
    for (int i = 0; i < 3; ++i)
        QVERIFY2(torch::allclose(fused[i], plain[i], 1e-6, 1e-6), qPrintable(QStringLiteral("tensor %1").arg(i)));
    QVERIFY(torch::equal(fused[1] == 0, plain[1] == 0)); // the same mask on the gradient
    QVERIFY(torch::equal(fused[2], plain[2]));          // the residual's gradient is dy
    QVERIFY(!nn::fusedDropoutAddApplies(x0, x0.narrow(2, 0, 69)));
    QVERIFY(!nn::fusedDropoutAddApplies(x0.to(torch::kBFloat16), x0.to(torch::kBFloat16)));
    QVERIFY_THROWS_EXCEPTION(c10::Error, nn::fusedDropoutAdd(x0, x0, 0.0, seed));
}

void tst_FusedOps::fastLinearIsLinear_data()
{
    QTest::addColumn<QList<qint64>>("xShape"); // x's shape before the transpose below
    QTest::addColumn<bool>("transposed");      // x = the stored tensor's last two dims swapped
    QTest::addColumn<qint64>("out");
    QTest::newRow("2-D, out = in") << QList<qint64>{64, 32} << false << qint64(32);
    QTest::newRow("3-D, out > in (dW as (xᵀ·dy)ᵀ)") << QList<qint64>{4, 16, 24} << false << qint64(96);
    QTest::newRow("3-D, out < in") << QList<qint64>{4, 16, 96} << false << qint64(24);
    QTest::newRow("non-contiguous x") << QList<qint64>{3, 40, 17} << true << qint64(29);
    QTest::newRow("one row, one output") << QList<qint64>{1, 7} << false << qint64(1);
    QTest::newRow("no rows") << QList<qint64>{0, 8} << false << qint64(5);
    // ≥ 256 rows: the forward reads a transposed copy of W; 601 rows and 600 columns: the bias
    // gradient's 64-row blocks end short and its columns come in two blocks of at most 512.
    QTest::newRow("many rows, many columns") << QList<qint64>{601, 40} << false << qint64(600);
}

/// fastLinear's value and its gradients for x, W and b equal torch::nn::functional::linear's
/// (float32; tolerance for the other summation order of the GEMM kernels).
void tst_FusedOps::fastLinearIsLinear()
{
    QFETCH(QList<qint64>, xShape);
    QFETCH(bool, transposed);
    QFETCH(qint64, out);
    torch::manual_seed(7);
    torch::Tensor stored = torch::randn(std::vector<int64_t>(xShape.begin(), xShape.end()));
    torch::Tensor xBase = transposed ? stored.transpose(-1, -2) : stored;
    QCOMPARE(xBase.is_contiguous(), !transposed);
    const int64_t in = xBase.size(-1);
    const torch::Tensor w0 = torch::randn({out, in}), b0 = torch::randn({out});
    std::vector<int64_t> yShape = xBase.sizes().vec();
    yShape.back() = out;
    const torch::Tensor dy = torch::randn(yShape);
    auto run = [&](bool fast) {
        auto x = xBase.detach().clone(at::MemoryFormat::Preserve).requires_grad_(true);
        if (transposed)
            x = stored.detach().clone().requires_grad_(true);
        auto xs = transposed ? x.transpose(-1, -2) : x;
        auto w = w0.clone().requires_grad_(true), b = b0.clone().requires_grad_(true);
        if (!nn::fastLinearApplies(xs, w, b))
            throw std::runtime_error("fastLinearApplies is false");
        auto y = fast ? nn::fastLinear(xs, w, b) : torch::nn::functional::linear(xs, w, b);
        y.backward(dy);
        return std::vector<torch::Tensor>{y.detach(), x.grad(), w.grad(), b.grad()};
    };
    const auto fast = run(true), plain = run(false);
    QCOMPARE(fast[0].sizes().vec(), yShape);
    const char *what[] = {"y", "dx", "dW", "db"};
    for (int k = 0; k < 4; ++k) {
        QVERIFY2(fast[k].defined() && plain[k].defined(), what[k]);
        QCOMPARE(fast[k].sizes(), plain[k].sizes());
        const double err = fast[k].numel() ? (fast[k] - plain[k]).abs().max().item<double>() : 0.0;
        const double scale = plain[k].numel() ? plain[k].abs().max().item<double>() + 1.0 : 1.0;
        QVERIFY2(err <= 1e-5 * scale,
                 qPrintable(QStringLiteral("%1: max error %2 (scale %3)").arg(QLatin1String(what[k])).arg(err).arg(scale)));
    }
    // The value is x·Wᵀ + b in double precision, within float rounding.
    const torch::Tensor exact = torch::nn::functional::linear(xBase.to(torch::kDouble), w0.to(torch::kDouble), b0.to(torch::kDouble));
    if (exact.numel())
        QVERIFY((fast[0].to(torch::kDouble) - exact).abs().max().item<double>() < 1e-4);
}

/// Only the gradients asked for are computed: x without requires_grad gets none, W and b do.
void tst_FusedOps::fastLinearGradientsOfOneInputOnly()
{
    torch::manual_seed(3);
    const torch::Tensor x = torch::randn({5, 6});
    auto w = torch::randn({4, 6}).requires_grad_(true), b = torch::randn({4}).requires_grad_(true);
    nn::fastLinear(x, w, b).sum().backward();
    QVERIFY(torch::allclose(w.grad(), torch::ones({5, 4}).t().mm(x), 1e-5, 1e-5)); // dW = 1ᵀ·x
    QVERIFY(torch::equal(b.grad(), torch::full({4}, 5.0f)));                           // db = rows
    // Frozen weights: the gradient reaches x alone.
    auto x2 = torch::randn({5, 6}).requires_grad_(true);
    const torch::Tensor w2 = torch::randn({4, 6}), b2 = torch::randn({4});
    nn::fastLinear(x2, w2, b2).sum().backward();
    QVERIFY(torch::allclose(x2.grad(), torch::ones({5, 4}).mm(w2), 1e-5, 1e-5));
}

/// One input row: the output must not share the bias's storage (the GEMM adds into it), so the
/// bias is unchanged and the same input gives the same output twice (found by core.attribution:
/// a batch of one text changed the model's biases on every pass).
void tst_FusedOps::fastLinearLeavesTheBiasAlone()
{
    torch::manual_seed(4);
    for (const auto &shape : {std::vector<int64_t>{1, 6}, std::vector<int64_t>{1, 1, 6}}) {
        const torch::Tensor x = torch::randn(shape).requires_grad_(true);
        auto w = torch::randn({4, 6}).requires_grad_(true), b = torch::randn({4}).requires_grad_(true);
        const torch::Tensor before = b.detach().clone();
        const torch::Tensor y1 = nn::fastLinear(x, w, b);
        QVERIFY(torch::equal(b.detach(), before));
        QVERIFY(y1.data_ptr() != b.data_ptr());
        const torch::Tensor y2 = nn::fastLinear(x, w, b);
        QVERIFY(torch::equal(y1, y2));
        QVERIFY(torch::allclose(y1, torch::nn::functional::linear(x, w, before), 1e-5, 1e-5));
    }
}

/// The Linear module takes the fast path in fp32, with gradients on (the training step) and off
/// (evaluation, predict, classify: the same bits); bf16 and autocast run
/// torch::nn::functional::linear.
void tst_FusedOps::fastLinearOnlyWhereItApplies()
{
    nn::setFastKernels({true, true, true, true, true, true});
    const auto restore = qScopeGuard([] { nn::setFastKernels({}); });
    auto gen = nn::makeGenerator(5);
    nn::Linear lin(12, 8, gen);
    torch::manual_seed(11);
    const torch::Tensor x = torch::randn({3, 10, 12});
    const torch::Tensor y = lin->forward(x);
    {
        torch::NoGradGuard noGrad;
        const torch::Tensor inference = lin->forward(x);
        QVERIFY(inference.grad_fn() == nullptr);
        QVERIFY(torch::equal(inference, y.detach()));
    }
    QVERIFY(y.grad_fn() != nullptr);
    QVERIFY2(y.grad_fn()->name().find("FastLinearFunction") != std::string::npos, y.grad_fn()->name().c_str());
    QVERIFY(torch::allclose(y, torch::nn::functional::linear(x, lin->weight, lin->bias), 1e-5, 1e-5));
    QVERIFY(!nn::fastLinearApplies(x.to(torch::kBFloat16), lin->weight, lin->bias));
    QVERIFY(!nn::fastLinearApplies(x, lin->weight.t().contiguous().t(), lin->bias)); // [out, in], not contiguous
    QVERIFY(nn::fastLinearApplies(x, lin->weight, torch::Tensor())); // no bias: x·Wᵀ (tst_fusedrows)
    QVERIFY(!nn::fastLinearApplies(x, lin->weight, torch::zeros({7})));
    {
        at::autocast::set_cpu_enabled(true);
        const bool applies = nn::fastLinearApplies(x, lin->weight, lin->bias);
        at::autocast::set_cpu_enabled(false);
        QVERIFY(!applies);
    }
    QVERIFY_THROWS_EXCEPTION(c10::Error, nn::fastLinear(x.to(torch::kBFloat16), lin->weight, lin->bias));
}

/// fastLinear3 (the attention's query, key and value in one node) equals three linears: values,
/// the three weights' and biases' gradients, and the input's gradient (accumulated in the GEMMs),
/// also when one output does not reach the loss (its gradient undefined: its parameters get none).
void tst_FusedOps::fastLinear3IsThreeLinears()
{
    torch::manual_seed(29);
    const torch::Tensor x0 = torch::randn({3, 300, 16}); // 900 rows: the forward's transposed-weight path
    std::vector<torch::Tensor> w0, b0, dy;
    for (int64_t out : {16, 8, 24}) {
        w0.push_back(torch::randn({out, 16}));
        b0.push_back(torch::randn({out}));
        dy.push_back(torch::randn({3, 300, out}));
    }
    for (const bool useAll : {true, false}) {
        auto run = [&](bool fused) {
            auto x = x0.clone().requires_grad_(true);
            std::vector<torch::Tensor> w, b;
            for (int k = 0; k < 3; ++k) {
                w.push_back(w0[k].clone().requires_grad_(true));
                b.push_back(b0[k].clone().requires_grad_(true));
            }
            std::array<torch::Tensor, 3> y;
            if (fused)
                y = nn::fastLinear3(x, w[0], b[0], w[1], b[1], w[2], b[2]);
            else
                for (int k = 0; k < 3; ++k)
                    y[k] = torch::nn::functional::linear(x, w[k], b[k]);
            const torch::Tensor loss = (y[0] * dy[0]).sum() + (useAll ? (y[1] * dy[1]).sum() : torch::zeros({})) +
                                       (y[2] * dy[2]).sum();
            loss.backward();
            std::vector<torch::Tensor> r{y[0].detach(), y[1].detach(), y[2].detach(), x.grad()};
            for (int k = 0; k < 3; ++k) {
                r.push_back(w[k].grad().defined() ? w[k].grad() : torch::full({1}, -1.0));
                r.push_back(b[k].grad().defined() ? b[k].grad() : torch::full({1}, -1.0));
            }
            return r;
        };
        const auto fused = run(true), plain = run(false);
        for (size_t i = 0; i < fused.size(); ++i) {
            QCOMPARE(fused[i].sizes(), plain[i].sizes());
            const double err = (fused[i] - plain[i]).abs().max().item<double>();
            QVERIFY2(err <= 1e-4 * (plain[i].abs().max().item<double>() + 1.0),
                     qPrintable(QStringLiteral("useAll %1, tensor %2: max error %3").arg(useAll).arg(i).arg(err)));
        }
    }
}

void tst_FusedOps::fastBatchedMatmulIsBaddbmm_data()
{
    QTest::addColumn<QString>("layout"); // of b: "plain", "transposed" (a view), "strided" (no unit stride)
    QTest::addColumn<bool>("withAddend");
    QTest::addColumn<double>("alpha");
    QTest::newRow("scores: q·kᵀ (view) / √d + mask bias") << QStringLiteral("transposed") << true << 0.125;
    QTest::newRow("context: probs·v") << QStringLiteral("plain") << false << 1.0;
    QTest::newRow("b without a unit stride (copied)") << QStringLiteral("strided") << true << 0.5;
}

/// fastBatchedMatmul(a, b, alpha, addend) and its gradients (a, b, and the [B, 1, 1, n] tensor
/// the addend is expanded from, as the attention mask bias is) equal torch::baddbmm's.
void tst_FusedOps::fastBatchedMatmulIsBaddbmm()
{
    QFETCH(QString, layout);
    QFETCH(bool, withAddend);
    QFETCH(double, alpha);
    torch::manual_seed(13);
    const int64_t b = 3, heads = 2, m = 9, k = 5, n = 7;
    const torch::Tensor a0 = torch::randn({b * heads, m, k}), bias0 = torch::randn({b, 1, 1, n});
    const torch::Tensor bStore = layout == QLatin1String("transposed") ? torch::randn({b * heads, n, k})
                                 : layout == QLatin1String("strided")  ? torch::randn({b * heads, k, 2 * n})
                                                        : torch::randn({b * heads, k, n});
    const torch::Tensor dy = torch::randn({b * heads, m, n});
    auto run = [&](bool fast) {
        auto a = a0.clone().requires_grad_(true), bs = bStore.clone().requires_grad_(true);
        auto bias = bias0.clone().requires_grad_(true);
        const torch::Tensor bv = layout == QLatin1String("transposed") ? bs.transpose(1, 2)
                                 : layout == QLatin1String("strided")  ? bs.slice(2, 0, 2 * n, 2)
                                                        : bs;
        const torch::Tensor addend = withAddend ? bias.expand({b, heads, m, n}) : torch::Tensor();
        torch::Tensor y;
        if (fast) {
            if (!nn::fastBatchedMatmulApplies(a, bv, addend))
                throw std::runtime_error("fastBatchedMatmulApplies is false");
            y = nn::fastBatchedMatmul(a, bv, alpha, addend);
        } else {
            y = withAddend ? torch::baddbmm(addend.reshape({b * heads, m, n}), a, bv, 1.0, alpha)
                           : torch::bmm(a, bv).mul(alpha);
        }
        y.backward(dy);
        return std::vector<torch::Tensor>{y.detach(), a.grad(), bs.grad(), withAddend ? bias.grad() : torch::zeros({1})};
    };
    const auto fast = run(true), plain = run(false);
    const char *what[] = {"y", "da", "db", "d(bias)"};
    for (int i = 0; i < 4; ++i) {
        QCOMPARE(fast[i].sizes(), plain[i].sizes());
        const double err = (fast[i] - plain[i]).abs().max().item<double>();
        QVERIFY2(err <= 1e-5 * (plain[i].abs().max().item<double>() + 1.0),
                 qPrintable(QStringLiteral("%1: max error %2").arg(QLatin1String(what[i])).arg(err)));
    }
    QVERIFY(fast[0].is_contiguous());
}

/// The attention's layout: heads as strided views [B, A, S, D] of [B, S, H] projections (no copy),
/// the context written as [B, S, A, D]. Values and the projections' gradients equal
/// torch::matmul's on the same views, and the gradients come back in the projections' own
/// layout (contiguous [B, S, H]: the views they flow back through cost nothing).
void tst_FusedOps::fastBatchedMatmulOverStridedHeads()
{
    torch::manual_seed(17);
    const int64_t b = 3, s = 10, heads = 2, d = 4, h = heads * d;
    for (const int64_t sq : {s, int64_t(1)}) { // all tokens, and the last layer's [CLS] query only
        const torch::Tensor q0 = torch::randn({b, sq, h}), k0 = torch::randn({b, s, h}), v0 = torch::randn({b, s, h});
        const torch::Tensor bias0 = torch::randn({b, 1, 1, s}), dctx = torch::randn({b, sq, h});
        auto run = [&](bool fast) {
            auto qp = q0.clone().requires_grad_(true), kp = k0.clone().requires_grad_(true),
                 vp = v0.clone().requires_grad_(true);
            const auto q = qp.view({b, sq, heads, d}).transpose(1, 2), k = kp.view({b, s, heads, d}).transpose(1, 2),
                       v = vp.view({b, s, heads, d}).transpose(1, 2);
            const auto bias = bias0.expand({b, heads, sq, s});
            torch::Tensor ctx;
            if (fast) {
                const auto probs = torch::softmax(nn::fastBatchedMatmul(q, k.transpose(2, 3), 0.5, bias), -1);
                ctx = nn::fastBatchedMatmul(probs, v, 1.0, {}, nn::BatchedOutput::HeadsInterleaved);
                if (!ctx.transpose(1, 2).is_contiguous())
                    throw std::runtime_error("the context is not stored as [B, S, A, D]");
            } else {
                ctx = torch::matmul(torch::softmax(torch::matmul(q, k.transpose(2, 3)) * 0.5 + bias, -1), v);
            }
            ctx.transpose(1, 2).reshape({b, sq, h}).backward(dctx);
            return std::vector<torch::Tensor>{ctx.detach(), qp.grad(), kp.grad(), vp.grad()};
        };
        const auto fast = run(true), plain = run(false);
        const char *what[] = {"context", "dq", "dk", "dv"};
        for (int i = 0; i < 4; ++i) {
            const double err = (fast[i] - plain[i]).abs().max().item<double>();
            QVERIFY2(err <= 1e-5 * (plain[i].abs().max().item<double>() + 1.0),
                     qPrintable(QStringLiteral("sq %1, %2: max error %3").arg(sq).arg(QLatin1String(what[i])).arg(err)));
        }
    }
    // The layout is refused where it does not fit: 3-D operands have no heads to interleave.
    QVERIFY_THROWS_EXCEPTION(c10::Error, nn::fastBatchedMatmul(torch::randn({4, 3, 5}), torch::randn({4, 5, 6}), 1.0, {},
                                                               nn::BatchedOutput::HeadsInterleaved));
}

/// fusedGelu against the formula in float64, x·Φ(x) and its derivative Φ(x) + x·φ(x), over
/// [−12, 12] densely (both tails, where the exponential's clamp acts) and at 0 and ±tiny: Φ within
/// 4·10⁻⁷ (the erf approximation's 1.5·10⁻⁷ and float cancellation near 0), so y within
/// 4·10⁻⁷·|x| plus rounding. And close to torch::gelu, which it replaces in the training step.
void tst_FusedOps::fusedGeluIsTheErfFormula()
{
    torch::Tensor x = torch::cat({torch::linspace(-12.0, 12.0, 240001), torch::tensor({0.0f, 1e-30f, -1e-30f, 1e-3f})});
    x.requires_grad_(true);
    const torch::Tensor y = nn::fusedGelu(x);
    const torch::Tensor dy = torch::rand_like(x) + 0.5;
    y.backward(dy);
    const torch::Tensor xd = x.detach().to(torch::kDouble);
    const torch::Tensor cdf = 0.5 * (1.0 + torch::erf(xd / std::sqrt(2.0)));
    const torch::Tensor pdf = torch::exp(-0.5 * xd * xd) / std::sqrt(2.0 * M_PI);
    const torch::Tensor yRef = xd * cdf, gRef = dy.to(torch::kDouble) * (cdf + xd * pdf);
    const torch::Tensor yErr = (y.detach().to(torch::kDouble) - yRef).abs() - (4e-7 * xd.abs() + 1.2e-7 * yRef.abs());
    const torch::Tensor gErr = (x.grad().to(torch::kDouble) - gRef).abs() - (4e-7 * (xd.abs() + 1.0) * dy.to(torch::kDouble));
    QVERIFY2(yErr.max().item<double>() <= 0.0, qPrintable(QStringLiteral("y off by %1 more than allowed at x = %2")
                                                                .arg(yErr.max().item<double>())
                                                                .arg(x[yErr.argmax()].item<double>())));
    QVERIFY2(gErr.max().item<double>() <= 0.0, qPrintable(QStringLiteral("dx off by %1 more than allowed at x = %2")
                                                                .arg(gErr.max().item<double>())
                                                                .arg(x[gErr.argmax()].item<double>())));
    QCOMPARE(y[240001].item<float>(), 0.0f); // gelu(0) = 0 exactly, and gelu′(0) = ½
    QCOMPARE(x.grad()[240001].item<float>(), 0.5f * dy[240001].item<float>());
    QVERIFY(torch::allclose(y.detach(), torch::gelu(x.detach()), 1e-6, 2e-6));
    // Any strides in, contiguous out; the same values as the contiguous input gives.
    const torch::Tensor m = torch::randn({7, 5});
    QVERIFY(torch::equal(nn::fusedGelu(m.t()), nn::fusedGelu(m.t().contiguous())));
}

/// float32 CPU only; the model's "gelu" takes it with gradients on and the switch on, and gives
/// torch::gelu otherwise (inference takes the fused pass too, with the same bits).
void tst_FusedOps::fusedGeluOnlyWhereItApplies()
{
    QVERIFY(nn::fusedGeluApplies(torch::randn({3})));
    QVERIFY(!nn::fusedGeluApplies(torch::randn({3}, torch::kDouble)));
    QVERIFY(!nn::fusedGeluApplies(torch::randn({3}).to(torch::kBFloat16)));
    QVERIFY_THROWS_EXCEPTION(c10::Error, nn::fusedGelu(torch::randn({3}, torch::kDouble)));
    const torch::Tensor x = torch::randn({1000});
    const torch::Tensor training = nn::applyActivation("gelu", x);
    QVERIFY(!torch::equal(training, torch::gelu(x))); // the fused one: another erf
    {
        torch::NoGradGuard noGrad; // inference takes the same fused pass: the same bits
        QVERIFY(torch::equal(nn::applyActivation("gelu", x), training));
    }
    nn::setFastKernels({true, true, false, true, true, true});
    const auto restore = qScopeGuard([] { nn::setFastKernels({}); });
    QVERIFY(torch::equal(nn::applyActivation("gelu", x), torch::gelu(x)));
}

void tst_FusedOps::fusedAttentionSoftmaxIsSoftmaxThenDropout_data()
{
    QTest::addColumn<double>("p");
    QTest::addColumn<qint64>("keys"); // S: a multiple of the 16 lanes, and not
    QTest::newRow("dropout 0.1, S = 128") << 0.1 << qint64(128);
    QTest::newRow("dropout 0.3, S = 37") << 0.3 << qint64(37);
    QTest::newRow("no dropout, S = 5") << 0.0 << qint64(5);
}

/// fusedAttentionSoftmax(scores, mask, p, seed) against its plain formula,
/// fusedDropout(softmax(scores + mask), p, seed) (no dropout: the softmax alone): values and the
/// scores' gradient within float rounding, masked keys (bias −10000) exactly 0, and the same
/// kept elements (the same mask from the same seed).
void tst_FusedOps::fusedAttentionSoftmaxIsSoftmaxThenDropout()
{
    QFETCH(double, p);
    QFETCH(qint64, keys);
    torch::manual_seed(23);
    const int64_t b = 3, heads = 2, queries = 4;
    const torch::Tensor scores0 = torch::randn({b, heads, queries, keys}) * 4;
    torch::Tensor mask = torch::zeros({b, 1, 1, keys});
    mask[1].narrow(-1, keys - 2, 2).fill_(-10000.0); // the second sequence is padded
    const torch::Tensor dy = torch::randn({b, heads, queries, keys});
    const uint64_t seed = 0x5eedULL;
    auto run = [&](bool fused) {
        auto scores = scores0.clone().requires_grad_(true);
        torch::Tensor y;
        if (fused) {
            if (!nn::fusedAttentionSoftmaxApplies(scores, mask))
                throw std::runtime_error("fusedAttentionSoftmaxApplies is false");
            y = nn::fusedAttentionSoftmax(scores, mask, p, seed);
        } else {
            y = torch::softmax(scores + mask, -1);
            if (p > 0)
                y = nn::fusedDropout(y, p, seed);
        }
        y.backward(dy);
        return std::vector<torch::Tensor>{y.detach(), scores.grad()};
    };
    const auto fused = run(true), plain = run(false);
    for (int i = 0; i < 2; ++i) {
        const double err = (fused[i] - plain[i]).abs().max().item<double>();
        QVERIFY2(err <= 1e-6 * (plain[i].abs().max().item<double>() + 1.0),
                 qPrintable(QStringLiteral("%1: max error %2").arg(QLatin1String(i ? "d(scores)" : "probs")).arg(err)));
    }
    QVERIFY(torch::equal(fused[0] == 0, plain[0] == 0)); // the same elements dropped and masked
    QVERIFY(torch::all(fused[0][1].narrow(-1, keys - 2, 2) == 0).item<bool>());
    // Rows of the probabilities (before dropout) sum to 1.
    if (p == 0.0)
        QVERIFY(torch::allclose(fused[0].sum(-1), torch::ones({b, heads, queries}), 1e-6, 1e-6));
    // Where it does not apply: a mask per query, another dtype, rows over 2048, p ≥ 1.
    // An empty batch gives an empty result (no division by its zero rows).
    QCOMPARE(nn::fusedAttentionSoftmax(torch::zeros({0, heads, queries, keys}), torch::zeros({0, 1, 1, keys}), p, seed)
                 .sizes()
                 .vec(),
             (std::vector<int64_t>{0, heads, queries, keys}));
    QVERIFY(!nn::fusedAttentionSoftmaxApplies(scores0, torch::zeros({b, 1, queries, keys})));
    QVERIFY(!nn::fusedAttentionSoftmaxApplies(scores0.to(torch::kDouble), mask));
    QVERIFY(!nn::fusedAttentionSoftmaxApplies(torch::zeros({1, 1, 1, 2049}), torch::zeros({1, 1, 1, 2049})));
    QVERIFY_THROWS_EXCEPTION(c10::Error, nn::fusedAttentionSoftmax(scores0, mask, 1.0, seed));
}

/// The attention takes the fast path only with gradients on in float32: the shapes it checks,
/// and inference equal to baddbmm bit for bit (the model's forward under NoGradGuard).
void tst_FusedOps::fastBatchedMatmulOnlyWhereItApplies()
{
    const torch::Tensor a = torch::randn({4, 3, 5}), b = torch::randn({4, 5, 6});
    QVERIFY(nn::fastBatchedMatmulApplies(a, b, {}));
    QVERIFY(nn::fastBatchedMatmulApplies(a, b, torch::zeros({2, 1, 1, 6}).expand({2, 2, 3, 6})));
    QVERIFY(!nn::fastBatchedMatmulApplies(a, b, torch::zeros({3, 3, 6}))); // leading dims 3 ≠ batch 4
    QVERIFY(!nn::fastBatchedMatmulApplies(a, torch::randn({4, 4, 6}), {})); // k mismatch
    QVERIFY(!nn::fastBatchedMatmulApplies(a.to(torch::kBFloat16), b.to(torch::kBFloat16), {}));
    QVERIFY_THROWS_EXCEPTION(c10::Error, nn::fastBatchedMatmul(a, torch::randn({4, 4, 6}), 1.0));
    // A whole BERT block: fast (grad on) and plain (no grad) forwards agree within float rounding.
    BertConfig c;
    c.vocab_size = 50, c.hidden_size = 16, c.num_hidden_layers = 2, c.num_attention_heads = 2,
    c.intermediate_size = 32, c.max_position_embeddings = 32;
    nn::BertForSequenceClassification model(c, 2, nn::makeGenerator(9));
    model->eval();
    const torch::Tensor ids = torch::randint(0, 50, {2, 12}), seg = torch::zeros({2, 12}, torch::kLong);
    torch::Tensor mask = torch::ones({2, 12}, torch::kLong);
    mask.narrow(1, 8, 4).zero_();
    torch::Tensor plain;
    {
        torch::NoGradGuard noGrad;
        plain = model->forward(ids, mask, seg);
    }
    const torch::Tensor fast = model->forward(ids, mask, seg);
    QVERIFY(fast.requires_grad());
    QVERIFY2(torch::allclose(fast, plain, 1e-5, 1e-5), "fast and plain forward differ");
}

/// Five AdamW steps of a small BERT with dropout, the same seed: the oneDNN products (default)
/// and the ATen ones (nn::setFastKernels off) give the same loss curve up to floating-point
/// reassociation, and the same dropout masks (the generator advances alike).
namespace {

/// The attention's inputs as the model has them: q, k, v strided head views [B, A, S, D] of
/// [B, S, A·D] projections (q of the first sq tokens), a mask bias [B, 1, 1, S] with the second
/// sequence padded, and a context gradient [B, sq, A·D].
struct AttentionInputs
{
    AttentionInputs(int64_t b, int64_t heads, int64_t sq, int64_t s, int64_t d, uint64_t seed)
        : b(b), heads(heads), sq(sq), s(s), d(d)
    {
        auto gen = nn::makeGenerator(seed);
        q = torch::randn({b, sq, heads * d}, gen), k = torch::randn({b, s, heads * d}, gen);
        v = torch::randn({b, s, heads * d}, gen), dctx = torch::randn({b, sq, heads * d}, gen);
        mask = torch::zeros({b, 1, 1, s});
        if (b > 1)
            mask[1].narrow(-1, s - s / 3, s / 3).fill_(-10000.0);
    }
    int64_t b, heads, sq, s, d;
    torch::Tensor q, k, v, mask, dctx;

    /// {context [B, A, sq, D], dq, dk, dv} through blockedAttention, or the batched path it
    /// replaces (fastBatchedMatmul, fusedAttentionSoftmax, fastBatchedMatmul).
    std::vector<torch::Tensor> run(bool blocked, double p, uint64_t seed) const
    {
        auto qp = q.clone().requires_grad_(true), kp = k.clone().requires_grad_(true), vp = v.clone().requires_grad_(true);
        const auto heads4 = [&](const torch::Tensor &t, int64_t len) { return t.view({b, len, heads, d}).transpose(1, 2); };
        const auto qh = heads4(qp, sq), kh = heads4(kp, s), vh = heads4(vp, s);
        const double scale = 1.0 / std::sqrt(double(d));
        torch::Tensor ctx;
        if (blocked) {
            if (!nn::blockedAttentionApplies(qh, kh, vh, mask))
                throw std::runtime_error("blockedAttentionApplies is false");
            ctx = nn::blockedAttention(qh, kh, vh, mask, scale, p, seed);
            if (!ctx.transpose(1, 2).is_contiguous())
                throw std::runtime_error("the context is not stored as [B, S, A, D]");
        } else {
            const auto probs = nn::fusedAttentionSoftmax(nn::fastBatchedMatmul(qh, kh.transpose(2, 3), scale), mask, p, seed);
            ctx = nn::fastBatchedMatmul(probs, vh, 1.0, {}, nn::BatchedOutput::HeadsInterleaved);
        }
        ctx.transpose(1, 2).reshape({b, sq, heads * d}).backward(dctx);
        return {ctx.detach(), qp.grad(), kp.grad(), vp.grad()};
    }
};

/// The largest difference of a and b relative to b's largest magnitude (+ 1).
double relativeError(const torch::Tensor &a, const torch::Tensor &b)
{
    return (a - b).abs().max().item<double>() / (b.abs().max().item<double>() + 1.0);
}

} // namespace

void tst_FusedOps::blockedAttentionIsTheBatchedPath_data()
{
    QTest::addColumn<qint64>("heads");
    QTest::addColumn<qint64>("queries"); // sq: all tokens, or the last layer's [CLS] only
    QTest::addColumn<qint64>("keys");
    QTest::addColumn<double>("p");
    // Blocks: all 4 heads of a sequence (BERT-Mini's), 3 of 6 (two blocks a sequence), one head
    // (300 × 300 scores are over a block's 256 KB), and odd sizes off the 16 lanes.
    QTest::newRow("4 heads, S = 128, dropout 0.1") << qint64(4) << qint64(128) << qint64(128) << 0.1;
    QTest::newRow("6 heads, S = 128, dropout 0.1") << qint64(6) << qint64(128) << qint64(128) << 0.1;
    QTest::newRow("2 heads, S = 300, dropout 0.2") << qint64(2) << qint64(300) << qint64(300) << 0.2;
    QTest::newRow("3 heads, S = 37, no dropout") << qint64(3) << qint64(37) << qint64(37) << 0.0;
    QTest::newRow("[CLS] query only, dropout 0.1") << qint64(4) << qint64(1) << qint64(128) << 0.1;
}

/// blockedAttention against the batched path it replaces in the training step: the context and
/// the gradients of q, k and v within float rounding (the same products and row kernels, in
/// blocks; a different dropout mask would be far off), and the context against the plain
/// formula with the mask fusedDropout applies.
void tst_FusedOps::blockedAttentionIsTheBatchedPath()
{
    QFETCH(qint64, heads);
    QFETCH(qint64, queries);
    QFETCH(qint64, keys);
    QFETCH(double, p);
    const AttentionInputs in(3, heads, queries, keys, 16, 31);
    const uint64_t seed = 0xa77e57ULL;
    const auto blocked = in.run(true, p, seed), batched = in.run(false, p, seed);
    const char *what[] = {"context", "dq", "dk", "dv"};
    for (int i = 0; i < 4; ++i) {
        QCOMPARE(blocked[size_t(i)].sizes(), batched[size_t(i)].sizes());
        const double err = relativeError(blocked[size_t(i)], batched[size_t(i)]);
        QVERIFY2(err <= 1e-6, qPrintable(QStringLiteral("%1: relative error %2").arg(QLatin1String(what[i])).arg(err)));
        QVERIFY(batched[size_t(i)].abs().max().item<double>() > 0);
    }
    // Against the plain formula too: softmax(q·kᵀ/√d + mask) with the same mask applied by fusedDropout.
    const auto qh = in.q.view({in.b, queries, heads, 16}).transpose(1, 2),
               kh = in.k.view({in.b, keys, heads, 16}).transpose(1, 2), vh = in.v.view({in.b, keys, heads, 16}).transpose(1, 2);
    torch::Tensor probs = torch::softmax(torch::matmul(qh, kh.transpose(2, 3)) * 0.25 + in.mask, -1);
    if (p > 0)
        probs = nn::fusedDropout(probs, p, seed);
    const double plainErr = relativeError(blocked[0], torch::matmul(probs, vh));
    QVERIFY2(plainErr <= 1e-5, qPrintable(QStringLiteral("context against the formula: %1").arg(plainErr)));
}

/// The blocks on one intra-op thread and on two give the same bits (each block's products run on
/// one thread either way), and on two threads every block is computed whole: oneDNN runs a
/// primitive on one thread inside a parallel region but splits its work for the threads it was
/// built for, so a primitive built for two would leave half of each product unwritten there.
void tst_FusedOps::blockedAttentionOnAnyThreads()
{
    const int before = torch::get_num_threads();
    const AttentionInputs in(6, 4, 64, 64, 16, 32);
    torch::set_num_threads(1);
    const auto one = in.run(true, 0.1, 9);
    torch::set_num_threads(2);
    const auto two = in.run(true, 0.1, 9), twoBatched = in.run(false, 0.1, 9);
    torch::set_num_threads(before);
    for (size_t i = 0; i < one.size(); ++i) {
        QVERIFY2(torch::equal(one[i], two[i]), qPrintable(QStringLiteral("output %1 differs between 1 and 2 threads").arg(i)));
        QVERIFY2(relativeError(two[i], twoBatched[i]) <= 1e-6, qPrintable(QStringLiteral("output %1").arg(i)));
    }
}

/// Where blockedAttention does not apply (the model then takes the batched path): another dtype, a
/// mask per query, keys over 2048, mismatched heads or key lengths, autocast; p ≥ 1 throws.
void tst_FusedOps::blockedAttentionOnlyWhereItApplies()
{
    const torch::Tensor q = torch::randn({2, 4, 8, 16}), k = torch::randn({2, 4, 8, 16}), v = torch::randn({2, 4, 8, 16});
    const torch::Tensor mask = torch::zeros({2, 1, 1, 8});
    QVERIFY(nn::blockedAttentionApplies(q, k, v, mask));
    QVERIFY(!nn::blockedAttentionApplies(q.to(torch::kDouble), k, v, mask));
    QVERIFY(!nn::blockedAttentionApplies(q, k, v, torch::zeros({2, 1, 8, 8})));
    QVERIFY(!nn::blockedAttentionApplies(q, k, torch::randn({2, 4, 9, 16}), mask));
    QVERIFY(!nn::blockedAttentionApplies(q, torch::randn({2, 2, 8, 16}), v, mask));
    QVERIFY(!nn::blockedAttentionApplies(torch::randn({1, 1, 1, 4}), torch::randn({1, 1, 2049, 4}),
                                         torch::randn({1, 1, 2049, 4}), torch::zeros({1, 1, 1, 2049})));
    {
        at::autocast::set_cpu_enabled(true);
        const bool applies = nn::blockedAttentionApplies(q, k, v, mask);
        at::autocast::set_cpu_enabled(false);
        QVERIFY(!applies);
    }
    QVERIFY_THROWS_EXCEPTION(c10::Error, nn::blockedAttention(q, k, v, mask, 0.25, 1.0, 1));
    QVERIFY_THROWS_EXCEPTION(c10::Error, nn::blockedAttention(q, k, v, torch::zeros({2, 1, 8, 8}), 0.25, 0.1, 1));
}

void tst_FusedOps::trainingStepsMatchTheATenPath()
{
    const auto losses = [](bool fast) {
        nn::setFastKernels({fast, fast, fast, fast, fast, fast});
        BertConfig c;
        c.vocab_size = 100, c.hidden_size = 32, c.num_hidden_layers = 2, c.num_attention_heads = 4,
        c.intermediate_size = 64, c.max_position_embeddings = 64, c.type_vocab_size = 2;
        auto gen = nn::makeGenerator(21);
        nn::BertForSequenceClassification model(c, 2, gen);
        model->train();
        std::vector<std::pair<std::string, torch::Tensor>> params;
        for (auto &p : model->named_parameters())
            params.emplace_back(p.key(), p.value());
        AdamW opt(params);
        torch::manual_seed(5);
        const torch::Tensor ids = torch::randint(0, 100, {4, 16}), seg = torch::zeros({4, 16}, torch::kLong);
        const torch::Tensor labels = torch::tensor({0, 1, 1, 0});
        torch::Tensor mask = torch::ones({4, 16}, torch::kLong);
        mask.narrow(1, 12, 4).zero_();
        std::vector<double> out;
        for (int step = 0; step < 5; ++step) {
            auto loss = torch::nn::functional::cross_entropy(model->forward(ids, mask, seg), labels);
            loss.backward();
            opt.step(1e-3);
            opt.zeroGrad();
            out.push_back(loss.item<double>());
        }
        out.push_back(double(at::check_generator<at::CPUGeneratorImpl>(gen)->random64() % 1000003));
        nn::setFastKernels({});
        return out;
    };
    const auto fast = losses(true), plain = losses(false);
    QCOMPARE(fast.back(), plain.back()); // the generator drew the same numbers
    for (size_t k = 0; k + 1 < fast.size(); ++k)
        QVERIFY2(std::abs(fast[k] - plain[k]) <= 1e-5 * std::abs(plain[k]),
                 qPrintable(QStringLiteral("step %1: loss %2 vs %3").arg(k).arg(fast[k], 0, 'g', 9).arg(plain[k], 0, 'g', 9)));
    QVERIFY(fast[4] != fast[0]); // the steps moved the weights
}

/// The oneDNN products of one thread are the same bits whatever other threads compute at the
/// same time ("other jobs do not change a run", docs/architecture.md): the attention products
/// and a Linear, forward and backward, on the main thread while three threads run the same and
/// other shapes (each building primitives of its own), against the same calls made alone.
void tst_FusedOps::productsDoNotDependOnOtherThreads()
{
    const auto work = [](int64_t batch, int64_t seq, int64_t width, uint64_t seed) {
        auto gen = nn::makeGenerator(seed);
        const torch::Tensor q0 = torch::randn({batch, seq, width}, gen), k0 = torch::randn({batch, seq, width}, gen);
        const torch::Tensor bias = torch::randn({batch, 1, seq}, gen);
        const torch::Tensor w0 = torch::randn({3 * width, width}, gen), b0 = torch::randn({3 * width}, gen);
        auto q = q0.clone().requires_grad_(true), k = k0.clone().requires_grad_(true);
        auto w = w0.clone().requires_grad_(true), b = b0.clone().requires_grad_(true);
        const torch::Tensor scores = nn::fastBatchedMatmul(q, k.transpose(1, 2), 0.125, bias.expand({batch, seq, seq}));
        const torch::Tensor context = nn::fastBatchedMatmul(torch::softmax(scores, -1), k, 1.0);
        const torch::Tensor y = nn::fastLinear(context, w, b);
        y.pow(2).sum().backward();
        return std::vector<torch::Tensor>{y.detach(), q.grad(), k.grad(), w.grad(), b.grad()};
    };
    const auto alone = work(8, 64, 32, 1);
    std::atomic<bool> done{false};
    std::atomic<int> rounds{0};
    std::vector<std::thread> others;
    for (int t = 0; t < 3; ++t)
        others.emplace_back([&, t] {
            while (!done) {
                work(8, 64, 32, 100 + t);       // the same shapes
                work(4 + t, 48 + 16 * t, 32, 7); // and others
                ++rounds;
            }
        });
    bool same = true;
    for (int i = 0; i < 30 && same; ++i) {
        const auto busy = work(8, 64, 32, 1);
        for (size_t j = 0; j < busy.size(); ++j)
            same = same && torch::equal(busy[j], alone[j]);
    }
    done = true;
    for (auto &t : others)
        t.join();
    QVERIFY(rounds > 0);
    QVERIFY2(same, "a product changed while other threads computed beside it");
}

/// The pretraining decoder tied to the word embeddings on oneDNN (fastLinear with the table as
/// the weight) gives the logits and the table's gradient of the ATen addmm within float rounding.
void tst_FusedOps::pretrainingDecoderMatchesTheATenPath()
{
    BertConfig c;
    c.vocab_size = 300, c.hidden_size = 32, c.num_hidden_layers = 1, c.num_attention_heads = 2,
    c.intermediate_size = 64, c.max_position_embeddings = 32, c.type_vocab_size = 2;
    const auto run = [&](bool fast) {
        nn::setFastKernels({fast, fast, fast, fast, fast, fast});
        nn::BertForPreTraining model(c, false, nn::makeGenerator(4));
        model->eval(); // no dropout: the two paths see the same activations
        torch::manual_seed(8);
        const torch::Tensor ids = torch::randint(0, 300, {3, 16}), seg = torch::zeros({3, 16}, torch::kLong);
        const torch::Tensor mask = torch::ones({3, 16}, torch::kLong), positions = torch::randint(0, 16, {3, 5});
        const auto out = model->forward(ids, mask, seg, positions);
        out.mlm_logits.pow(2).mean().backward();
        nn::setFastKernels({});
        return std::make_pair(out.mlm_logits.detach(), model->embeddings->word_embeddings->weight.grad().clone());
    };
    const auto fast = run(true), plain = run(false);
    QCOMPARE(fast.first.sizes(), (std::vector<int64_t>{3, 5, 300}));
    QVERIFY2(torch::allclose(fast.first, plain.first, 1e-5, 1e-5), "logits differ");
    const double err = (fast.second - plain.second).abs().max().item<double>();
    QVERIFY2(err <= 1e-5 * (plain.second.abs().max().item<double>() + 1.0), qPrintable(QString::number(err)));
    QVERIFY(plain.second.abs().max().item<double>() > 0);
}

QTEST_APPLESS_MAIN(tst_FusedOps)
#include "tst_fusedops.moc"
