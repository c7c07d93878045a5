// SPDX-License-Identifier: Apache-2.0
// The fused kernels of the training step (issue 28) against their plain formulas: values and
// gradients within float tolerance (core/model/fusedops.h).
#include "core/model/bertmodel.h"
#include "core/model/fusedops.h"

#include <ATen/CPUGeneratorImpl.h>
#include <QtTest>

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

QTEST_APPLESS_MAIN(tst_FusedOps)
#include "tst_fusedops.moc"
