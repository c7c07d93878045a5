// SPDX-License-Identifier: Apache-2.0
// The row-wise fused passes of the training step (issue 28, session 12) against their plain
// formulas: LayerNorm (nn::fusedLayerNorm), GELU with the product's bias (nn::fusedGelu(x, b)),
// dropout + residual with the bias (nn::fusedDropoutAdd(…, b)) and the product without one
// (nn::fastLinear(x, W, {})), and all of it before LayerNorm in one pass (nn::fusedAddNorm):
// values and gradients, the bias gradients summed as the Linear's.
#include "core/model/bertmodel.h"
#include "core/kernels/fusedops.h"
#include "core/util/blaslibrary.h"

#include <ATen/Parallel.h>
#include <QtTest>
#include <oneapi/dnnl/dnnl_types.h>

#include <cmath>

using namespace wb;

class tst_FusedRows : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void layerNormIsTheFormula_data();
    void layerNormIsTheFormula();
    void layerNormOnlyWhereItApplies();
    void geluWithBiasIsGeluOfTheSum();
    void dropoutAddWithBiasIsDropoutOfTheSum_data();
    void dropoutAddWithBiasIsDropoutOfTheSum();
    void addNormIsLayerNormOfDropoutAdd_data();
    void addNormIsLayerNormOfDropoutAdd();
    void linearWithoutBias();
    void weightGradientsOnEitherLibrary();
    void weightGradientLibraryRule();
    void sumsDoNotDependOnThreads();
};

namespace {

/// Σ_rows of a [rows, cols] tensor in double: the reference for a bias gradient.
torch::Tensor columnSumsInDouble(const torch::Tensor &t)
{
    return t.reshape({-1, t.size(-1)}).to(torch::kDouble).sum(0);
}

/// max |a − b| over max(|b|, 1): relative to the reference's scale.
double relativeError(const torch::Tensor &a, const torch::Tensor &b)
{
    const torch::Tensor bd = b.to(torch::kDouble);
    return ((a.to(torch::kDouble) - bd).abs().max() / std::max(1.0, bd.abs().max().item<double>())).item<double>();
}

} // namespace

void tst_FusedRows::layerNormIsTheFormula_data()
{
    QTest::addColumn<QList<qint64>>("shape");
    QTest::addColumn<bool>("transposed"); // x = the stored tensor's last two dims swapped (strided)
    QTest::addColumn<double>("eps");
    QTest::newRow("BERT's rows (256 wide, 130 rows: blocks of 64 end short)") << QList<qint64>{2, 65, 256} << false << 1e-12;
    QTest::newRow("odd width, a tail after the vector lanes") << QList<qint64>{5, 37} << false << 1e-5;
    QTest::newRow("one column") << QList<qint64>{9, 1} << false << 1e-5;
    QTest::newRow("strided input") << QList<qint64>{3, 48, 20} << true << 1e-12;
    QTest::newRow("no rows") << QList<qint64>{0, 16} << false << 1e-12;
}

/// fusedLayerNorm equals torch::layer_norm in float32 (another summation order: 2e-6) and in
/// double for every gradient: dx, d(weight) = Σ dy·x̂ and d(bias) = Σ dy.
void tst_FusedRows::layerNormIsTheFormula()
{
    QFETCH(QList<qint64>, shape);
    QFETCH(bool, transposed);
    QFETCH(double, eps);
    torch::manual_seed(11);
    const torch::Tensor stored = torch::randn(std::vector<int64_t>(shape.begin(), shape.end())) * 3 + 1.5;
    const torch::Tensor x0 = transposed ? stored.transpose(-1, -2) : stored;
    const int64_t n = x0.size(-1);
    const torch::Tensor w0 = torch::randn({n}), b0 = torch::randn({n}), dy = torch::randn(x0.sizes());
    auto run = [&](bool fused, torch::ScalarType type) {
        const auto leaf = [type](const torch::Tensor &t) { return t.to(type, false, true).requires_grad_(true); };
        auto x = leaf(x0), w = leaf(w0), b = leaf(b0);
        const auto y = fused ? nn::fusedLayerNorm(x, w, b, eps) : torch::layer_norm(x, {n}, w, b, eps);
        y.backward(dy.to(type));
        return std::vector<torch::Tensor>{y.detach(), x.grad(), w.grad(), b.grad()};
    };
    const auto fused = run(true, torch::kFloat), exact = run(false, torch::kDouble);
    const char *names[] = {"y", "dx", "dweight", "dbias"};
    for (int i = 0; i < 4; ++i) {
        QCOMPARE(fused[i].sizes(), exact[i].sizes());
        if (fused[i].numel() > 0)
            QVERIFY2(relativeError(fused[i], exact[i]) < 2e-5,
                     qPrintable(QStringLiteral("%1 off by %2").arg(QLatin1String(names[i])).arg(relativeError(fused[i], exact[i]))));
    }
    QVERIFY(fused[0].is_contiguous());
    if (x0.size(0) > 0 && n > 1) { // and as ATen's float kernel, within its rounding (n = 1: y = bias exactly here)
        const auto aten = run(false, torch::kFloat);
        QVERIFY(torch::allclose(fused[0], aten[0], 1e-5, 1e-5));
        QVERIFY(torch::allclose(fused[1], aten[1], 1e-4, 1e-4));
    }
}

/// float32 CPU with a [n] weight and bias only; the model's LayerNorms take it in grad mode with
/// the switch on (inference too, the same bits) and are torch::nn::LayerNorm's otherwise.
void tst_FusedRows::layerNormOnlyWhereItApplies()
{
    const torch::Tensor x = torch::randn({4, 8}), w = torch::ones({8}), b = torch::zeros({8});
    QVERIFY(nn::fusedLayerNormApplies(x, w, b));
    QVERIFY(!nn::fusedLayerNormApplies(x.to(torch::kDouble), w, b));
    QVERIFY(!nn::fusedLayerNormApplies(x, torch::ones({7}), b));
    QVERIFY(!nn::fusedLayerNormApplies(x, w, torch::Tensor()));
    QVERIFY(!nn::fusedLayerNormApplies(torch::randn({4, 0}), torch::ones({0}), torch::zeros({0})));
    QVERIFY_THROWS_EXCEPTION(c10::Error, nn::fusedLayerNorm(x, torch::ones({7}), b, 1e-12));
    QVERIFY_THROWS_EXCEPTION(c10::Error, nn::fusedLayerNorm(x, w, b, -1.0));
    torch::nn::LayerNorm ln(torch::nn::LayerNormOptions({8}).eps(1e-12));
    const torch::Tensor xs = torch::randn({300, 8}) * 5;
    const torch::Tensor fused = nn::applyLayerNorm(ln, xs);
    {
        torch::NoGradGuard noGrad; // inference takes the same fused pass: the same bits
        QVERIFY(torch::equal(nn::applyLayerNorm(ln, xs), fused.detach()));
    }
    QVERIFY(fused.requires_grad()); // through fusedLayerNorm: the weight's gradient flows
    QVERIFY(torch::allclose(fused, ln->forward(xs), 1e-5, 1e-5));
    nn::setFastKernels({true, true, true, true, false, true});
    const auto restore = qScopeGuard([] { nn::setFastKernels({}); });
    QVERIFY(torch::equal(nn::applyLayerNorm(ln, xs), ln->forward(xs)));
}

/// fusedGelu(x, b) = fusedGelu(x + b) (the same kernel on the sum: equal within an ulp), dx = dy·gelu′
/// and d(b) = Σ_rows dx (as double sums within float rounding); a strided x is read as is.
void tst_FusedRows::geluWithBiasIsGeluOfTheSum()
{
    torch::manual_seed(5);
    const torch::Tensor stored = torch::randn({3, 1030, 70}) * 2, b0 = torch::randn({1030});
    const torch::Tensor x0 = stored.transpose(1, 2); // [3, 70, 1030], not contiguous
    const torch::Tensor dy = torch::randn({3, 70, 1030});
    auto x = x0.clone().requires_grad_(true), b = b0.clone().requires_grad_(true);
    const torch::Tensor y = nn::fusedGelu(x, b);
    y.backward(dy);
    auto sum = (x0 + b0).contiguous().requires_grad_(true);
    const torch::Tensor yPlain = nn::fusedGelu(sum);
    yPlain.backward(dy);
    // Within an ulp (a row's last elements may take the loop's scalar tail in one and not the other).
    QVERIFY(torch::allclose(y.detach(), yPlain.detach(), 1e-6, 1e-7));
    QVERIFY(torch::allclose(x.grad(), sum.grad(), 1e-6, 1e-7));
    QVERIFY2(relativeError(b.grad(), columnSumsInDouble(sum.grad())) < 1e-6,
             qPrintable(QString::number(relativeError(b.grad(), columnSumsInDouble(sum.grad())))));
    QVERIFY(torch::allclose(y.detach(), torch::gelu(x0 + b0), 1e-6, 2e-6));
    QVERIFY(!nn::fusedGeluApplies(x0, torch::randn({7})));
    QVERIFY(!nn::fusedGeluApplies(x0, b0.to(torch::kDouble)));
    QVERIFY_THROWS_EXCEPTION(c10::Error, nn::fusedGelu(x0, torch::randn({7})));
}

void tst_FusedRows::dropoutAddWithBiasIsDropoutOfTheSum_data()
{
    QTest::addColumn<qint64>("rows");
    QTest::addColumn<qint64>("cols");
    QTest::newRow("BERT-like rows, 64-row blocks end short") << qint64(130) << qint64(256);
    QTest::newRow("rows wider than one mask block (2048)") << qint64(5) << qint64(4500);
    QTest::newRow("one row") << qint64(1) << qint64(3);
}

/// fusedDropoutAdd(x, r, p, seed, b) = fusedDropout(x + b, p, seed) + r: the same mask (the same
/// elements dropped as without a bias), d(x) through the mask, d(r) = dy, d(b) = Σ_rows d(x).
void tst_FusedRows::dropoutAddWithBiasIsDropoutOfTheSum()
{
    QFETCH(qint64, rows);
    QFETCH(qint64, cols);
    torch::manual_seed(17);
    const torch::Tensor x0 = torch::randn({rows, cols}), r0 = torch::randn({rows, cols}), b0 = torch::randn({cols});
    const torch::Tensor dy = torch::randn({rows, cols});
    const uint64_t seed = 0x5eed1234abcdULL;
    auto x = x0.clone().requires_grad_(true), r = r0.clone().requires_grad_(true), b = b0.clone().requires_grad_(true);
    const torch::Tensor y = nn::fusedDropoutAdd(x, r, 0.1, seed, b);
    y.backward(dy);
    auto xp = x0.clone().requires_grad_(true), rp = r0.clone().requires_grad_(true), bp = b0.clone().requires_grad_(true);
    const torch::Tensor yPlain = nn::fusedDropout(xp + bp, 0.1, seed) + rp;
    yPlain.backward(dy);
    QVERIFY(torch::allclose(y.detach(), yPlain.detach(), 1e-6, 1e-6));
    QVERIFY(torch::equal(x.grad(), xp.grad()));
    QVERIFY(torch::equal(r.grad(), dy));
    QVERIFY2(relativeError(b.grad(), columnSumsInDouble(xp.grad())) < 1e-6,
             qPrintable(QString::number(relativeError(b.grad(), columnSumsInDouble(xp.grad())))));
    // The mask is the element's: without a bias the same elements are dropped.
    const torch::Tensor noBias = nn::fusedDropoutAdd(x0, torch::zeros_like(r0), 0.1, seed);
    QVERIFY(torch::equal(noBias == 0, nn::fusedDropout(x0, 0.1, seed) == 0));
    QVERIFY(torch::equal((y.detach() - r0).abs() < 1e-6, (nn::fusedDropout(x0 + b0, 0.1, seed)).abs() < 1e-6));
    QVERIFY(!nn::fusedDropoutAddApplies(x0, r0, torch::randn({cols + 1})));
    QVERIFY_THROWS_EXCEPTION(c10::Error, nn::fusedDropoutAdd(x0, r0, 0.1, seed, torch::randn({cols + 1})));
}

void tst_FusedRows::addNormIsLayerNormOfDropoutAdd_data()
{
    QTest::addColumn<qint64>("rows");
    QTest::addColumn<qint64>("cols");
    QTest::newRow("BERT-like rows, 64-row blocks end short") << qint64(130) << qint64(256);
    QTest::newRow("rows wider than one mask block (2048)") << qint64(3) << qint64(2100);
    QTest::newRow("odd width") << qint64(7) << qint64(37);
}

/// fusedAddNorm(x, r, b, p, seed, w, lb) = fusedLayerNorm(fusedDropoutAdd(x, r, p, seed, b), w, lb):
/// the same mask, values and all five gradients within float rounding.
void tst_FusedRows::addNormIsLayerNormOfDropoutAdd()
{
    QFETCH(qint64, rows);
    QFETCH(qint64, cols);
    torch::manual_seed(41);
    const torch::Tensor x0 = torch::randn({rows, cols}), r0 = torch::randn({rows, cols}) * 2, b0 = torch::randn({cols});
    const torch::Tensor w0 = torch::randn({cols}), lb0 = torch::randn({cols}), dy = torch::randn({rows, cols});
    const uint64_t seed = 0x1234fedcULL;
    auto run = [&](bool fused) {
        auto x = x0.clone().requires_grad_(true), r = r0.clone().requires_grad_(true), b = b0.clone().requires_grad_(true),
             w = w0.clone().requires_grad_(true), lb = lb0.clone().requires_grad_(true);
        const auto y = fused ? nn::fusedAddNorm(x, r, b, 0.1, seed, w, lb, 1e-12)
                             : nn::fusedLayerNorm(nn::fusedDropoutAdd(x, r, 0.1, seed, b), w, lb, 1e-12);
        y.backward(dy);
        return std::vector<torch::Tensor>{y.detach(), x.grad(), r.grad(), b.grad(), w.grad(), lb.grad()};
    };
    const auto fused = run(true), plain = run(false);
    for (size_t i = 0; i < fused.size(); ++i)
        QVERIFY2(relativeError(fused[i], plain[i]) < 1e-5,
                 qPrintable(QStringLiteral("tensor %1 off by %2").arg(i).arg(relativeError(fused[i], plain[i]))));
    QVERIFY(torch::equal(fused[1] == 0, plain[1] == 0)); // the same elements dropped
    QVERIFY(!nn::fusedAddNormApplies(x0, r0, torch::randn({cols + 1}), w0, lb0));
    QVERIFY(!nn::fusedAddNormApplies(x0, r0.narrow(1, 0, cols - 1), b0, w0, lb0));
    QVERIFY_THROWS_EXCEPTION(c10::Error, nn::fusedAddNorm(x0, r0, b0, 0.0, seed, w0, lb0, 1e-12));
}

/// fastLinear(x, W, {}) = x·Wᵀ and gives no bias gradient; from 256 rows (the transposed-weight
/// product) and below.
void tst_FusedRows::linearWithoutBias()
{
    torch::manual_seed(23);
    for (int64_t rows : {int64_t(3), int64_t(300)}) {
        const torch::Tensor x0 = torch::randn({rows, 40}), w0 = torch::randn({24, 40}), dy = torch::randn({rows, 24});
        auto x = x0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true);
        QVERIFY(nn::fastLinearApplies(x, w, {}));
        const torch::Tensor y = nn::fastLinear(x, w, {});
        y.backward(dy);
        QVERIFY(torch::allclose(y.detach(), torch::matmul(x0, w0.t()), 1e-5, 1e-5));
        QVERIFY(torch::allclose(x.grad(), torch::matmul(dy, w0), 1e-5, 1e-5));
        QVERIFY(torch::allclose(w.grad(), torch::matmul(dy.t(), x0), 1e-4, 1e-4));
    }
}

/// fastLinear's weight gradient is dyᵀ·x whichever library computes it, on both of its oneDNN
/// orientations (out ≤ in straight, out > in transposed) and the BLAS's, on one, two and three
/// intra-op threads, with the same bits run after run at each thread count. The BLAS path splits
/// dW's rows over the threads (one-thread BLAS calls, parts of 16 rows or more: with 40 rows, 32 + 8
/// on two threads and 16 + 16 + 8 on three), so a part that was lost, written twice or raced would
/// show here. Neither library promises the same last bits across thread counts (OpenBLAS's sums
/// depend on the row count it is given; oneDNN splits [24, 40]·300 otherwise on three threads).
void tst_FusedRows::weightGradientsOnEitherLibrary()
{
    torch::manual_seed(31);
    const nn::FastKernels before = nn::fastKernels();
    const int threadsBefore = at::get_num_threads();
    const auto restore = qScopeGuard([before, threadsBefore] {
        nn::setFastKernels(before);
        at::set_num_threads(threadsBefore);
    });
    // OpenBLAS (Debian's libtorch) keeps its own thread count: the BLAS path must be able to set it.
    if (loadedBlas() == "openblas")
        QVERIFY(setOpenBlasThreads(1));
    for (const auto library : {nn::WeightGradientLibrary::OneDnn, nn::WeightGradientLibrary::Blas}) {
        nn::FastKernels k;
        k.weightGradients = library;
        nn::setFastKernels(k);
        for (const auto &[out, in] : {std::pair<int64_t, int64_t>{24, 40}, {40, 24}, {100, 64}}) {
            const torch::Tensor x0 = torch::randn({300, in}), w0 = torch::randn({out, in}), b0 = torch::randn({out});
            const torch::Tensor dy = torch::randn({300, out});
            const torch::Tensor exact = torch::matmul(dy.to(torch::kDouble).t(), x0.to(torch::kDouble));
            const auto gradients = [&](int threads) {
                at::set_num_threads(threads);
                auto x = x0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true);
                auto b = b0.clone().requires_grad_(true);
                const torch::Tensor y = nn::fastLinear(x, w, b);
                // NaN in the memory dW is likely to get next (malloc hands a freed block of the
                // same size back), so that rows no part wrote cannot pass as the last call's.
                torch::full({out, in}, std::nan("")).reset();
                y.backward(dy);
                return std::make_pair(w.grad(), x.grad());
            };
            for (const int threads : {1, 2, 3}) {
                const auto [dw, dx] = gradients(threads);
                const QString where = QStringLiteral("library %1, [%2, %3], %4 threads")
                                          .arg(int(library))
                                          .arg(out)
                                          .arg(in)
                                          .arg(threads);
                QVERIFY2(relativeError(dw, exact) < 1e-5, qPrintable(where + QStringLiteral(": %1").arg(relativeError(dw, exact))));
                QVERIFY2(relativeError(dx, torch::matmul(dy, w0)) < 1e-5, qPrintable(where));
                QVERIFY2(torch::equal(dw, gradients(threads).first), qPrintable(where));
            }
        }
    }
}

void tst_FusedRows::weightGradientLibraryRule()
{
    using L = nn::WeightGradientLibrary;
    QCOMPARE(nn::weightGradientLibraryFor(dnnl_cpu_isa_avx512_core, "openblas"), L::OneDnn);
    QCOMPARE(nn::weightGradientLibraryFor(dnnl_cpu_isa_avx512_core_amx, "mkl"), L::OneDnn);
    QCOMPARE(nn::weightGradientLibraryFor(dnnl_cpu_isa_avx2, "openblas"), L::Blas);
    QCOMPARE(nn::weightGradientLibraryFor(dnnl_cpu_isa_avx2_vnni, "mkl"), L::Blas);
    // the netlib reference BLAS is slower than any oneDNN; SSE4.1-only: oneDNN measured faster
    QCOMPARE(nn::weightGradientLibraryFor(dnnl_cpu_isa_avx2, "reference"), L::OneDnn);
    QCOMPARE(nn::weightGradientLibraryFor(dnnl_cpu_isa_avx2, "blis"), L::OneDnn); // not measured
    QCOMPARE(nn::weightGradientLibraryFor(dnnl_cpu_isa_avx2, "unknown"), L::OneDnn);
    QCOMPARE(nn::weightGradientLibraryFor(dnnl_cpu_isa_sse41, "openblas"), L::OneDnn);
    QCOMPARE(nn::weightGradientLibraryFor(dnnl_cpu_isa_avx, "openblas"), L::OneDnn);
}

/// The bias and LayerNorm parameter gradients are summed in fixed 64-row blocks: the same bits
/// on one thread and on four.
void tst_FusedRows::sumsDoNotDependOnThreads()
{
    torch::manual_seed(29);
    const torch::Tensor x0 = torch::randn({1000, 96}), r0 = torch::randn({1000, 96}), b0 = torch::randn({96});
    const torch::Tensor w0 = torch::randn({96}), dy = torch::randn({1000, 96});
    auto grads = [&]() {
        auto x = x0.clone().requires_grad_(true), b = b0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true),
             lb = b0.clone().requires_grad_(true);
        const auto y = nn::fusedAddNorm(nn::fusedLayerNorm(nn::fusedDropoutAdd(nn::fusedGelu(x, b), r0, 0.1, 77), w, lb, 1e-12),
                                        r0, b, 0.1, 78, w, lb, 1e-12);
        y.backward(dy);
        return std::vector<torch::Tensor>{y.detach(), x.grad(), b.grad(), w.grad(), lb.grad()};
    };
    const int before = at::get_num_threads();
    const auto restore = qScopeGuard([before] { at::set_num_threads(before); });
    at::set_num_threads(1);
    const auto one = grads();
    at::set_num_threads(4);
    const auto four = grads();
    for (size_t i = 0; i < one.size(); ++i)
        QVERIFY2(torch::equal(one[i], four[i]), qPrintable(QStringLiteral("tensor %1").arg(i)));
}

QTEST_APPLESS_MAIN(tst_FusedRows)
#include "tst_fusedrows.moc"
