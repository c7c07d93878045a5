// SPDX-License-Identifier: Apache-2.0
// The workbench's own vector loops (core/kernels/rowkernels.cpp, core/engine/adamwupdate.cpp) are
// compiled for AVX-512, AVX2 and the x86-64 baseline (core/util/vectorvariants.h). On a CPU only
// the best variant runs unless asked otherwise, so the other two would go untested on the machine
// CI has: here every variant this CPU can run gives bit for bit what the baseline gives, on rows
// with and without a tail after the vector lanes. (tst_fusedrows and tst_fusedops hold the
// baseline to the plain formulas.) And the rule that picks the variant.
#include "core/kernels/rowkernels.h"
#include "core/engine/adamwupdate.h"
#include "core/util/cpucapability.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <functional>
#include <random>
#include <vector>

using namespace wb;
namespace k = wb::nn::kernels;

class tst_CpuVariants : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void resolveRule();
    void scopedCapabilityLowersAndRestores();
    void everyVariantGivesTheBaselinesBits_data();
    void everyVariantGivesTheBaselinesBits();
    void softmaxOfADivergedRowIsNaN();
};

void tst_CpuVariants::resolveRule()
{
    using C = CpuCapability;
    std::string warning;
    QCOMPARE(resolveCpuCapability(nullptr, C::Avx512, &warning), C::Avx512);
    QCOMPARE(resolveCpuCapability("", C::Avx2, &warning), C::Avx2);
    QCOMPARE(resolveCpuCapability("avx2", C::Avx512, &warning), C::Avx2);
    QCOMPARE(resolveCpuCapability("default", C::Avx512, &warning), C::Baseline);
    // Asking for more than the CPU has gives what it has.
    QCOMPARE(resolveCpuCapability("avx512", C::Avx2, &warning), C::Avx2);
    QVERIFY(warning.empty());
    QCOMPARE(resolveCpuCapability("AVX2", C::Avx512, &warning), C::Avx2); // as ONEDNN_MAX_CPU_ISA spells it
    QVERIFY(warning.empty());
    QCOMPARE(resolveCpuCapability("AVX2 ", C::Avx512, &warning), C::Avx512);
    QCOMPARE(QString::fromStdString(warning),
             QStringLiteral("WB_CPU_CAPABILITY=AVX2  is not one of default, avx2, avx512; it is ignored and the "
                            "vector loops use avx512."));
    for (const C c : {C::Baseline, C::Avx2, C::Avx512})
        QCOMPARE(parseCpuCapability(cpuCapabilityName(c)), std::optional<C>(c));
    QVERIFY(!parseCpuCapability("sse2"));
}

void tst_CpuVariants::scopedCapabilityLowersAndRestores()
{
    const CpuCapability before = cpuCapability();
    {
        ScopedCpuCapability baseline(CpuCapability::Baseline);
        QCOMPARE(cpuCapability(), CpuCapability::Baseline);
        {
            ScopedCpuCapability best(CpuCapability::Avx512);
            QCOMPARE(cpuCapability(), detectedCpuCapability());
            QCOMPARE(best.active(), detectedCpuCapability());
        }
        QCOMPARE(cpuCapability(), CpuCapability::Baseline);
    }
    QCOMPARE(cpuCapability(), before);
}

namespace {

std::vector<float> randomFloats(size_t n, std::mt19937 &gen, float scale)
{
    std::normal_distribution<float> d(0.0f, scale);
    std::vector<float> v(n);
    for (float &x : v)
        x = d(gen);
    return v;
}

/// Every output buffer of every kernel over rows of n floats, from the same inputs, concatenated.
std::vector<float> allKernels(int64_t n)
{
    std::mt19937 gen(unsigned(n) * 7919u + 1u);
    const size_t m = size_t(n);
    const std::vector<float> x = randomFloats(m, gen, 3.0f), bias = randomFloats(m, gen, 1.0f),
                             dy = randomFloats(m, gen, 1.0f), gamma = randomFloats(m, gen, 1.0f),
                             grad = randomFloats(m, gen, 0.01f);
    std::vector<float> out;
    const auto keep = [&out](const std::vector<float> &v) { out.insert(out.end(), v.begin(), v.end()); };
    std::vector<float> y(m), g(m), sums(m, 0.5f), scale(m), stats(2), dx(m), dgamma(m, 0.25f), dbeta(m, -0.25f);
    k::geluWithDerivative(x.data(), y.data(), g.data(), n);
    keep(y), keep(g);
    k::biasGeluRow(x.data(), bias.data(), y.data(), g.data(), n);
    keep(y), keep(g);
    std::vector<float> values(m);
    k::biasGeluRowValues(x.data(), bias.data(), values.data(), n);
    keep(values);
    k::addRowTo(x.data(), sums.data(), n);
    k::mulRowAddTo(x.data(), dy.data(), y.data(), sums.data(), n);
    keep(y), keep(sums);
    const int64_t masked = std::min<int64_t>(n, 2048);
    k::dropoutScales(scale.data(), 0x9e3779b97f4a7c15ULL, 5, 5 + masked, uint32_t(0.9 * (1u << 24)), 1.0f / 0.9f);
    std::fill(scale.begin() + masked, scale.end(), 1.0f);
    keep(scale);
    k::biasDropoutAddRow(x.data(), bias.data(), scale.data(), dy.data(), y.data(), n);
    keep(y);
    k::layerNormRow(x.data(), gamma.data(), bias.data(), 1e-12f, y.data(), stats.data(), n);
    keep(y), keep(stats);
    k::layerNormRowBackward(dy.data(), x.data(), gamma.data(), stats.data(), dx.data(), dgamma.data(), dbeta.data(), n);
    keep(dx), keep(dgamma), keep(dbeta);
    std::vector<float> maskBias(m, 0.0f);
    for (size_t j = 0; j < m; j += 3)
        maskBias[j] = -10000.0f;
    k::softmaxRow(x.data(), maskBias.data(), y.data(), n);
    keep(y);
    k::softmaxRowBackward(y.data(), dy.data(), dx.data(), n);
    keep(dx);
    std::vector<float> p = x, mom = bias, vel(m);
    for (size_t j = 0; j < m; ++j)
        vel[j] = gamma[j] * gamma[j];
    adamwUpdate(p.data(), mom.data(), vel.data(), grad.data(), n, 0.5f, 1e-6f, 0.9f, 0.999f, 1e-3f, 1e-6f);
    keep(p), keep(mom), keep(vel);
    const double ss = sumOfSquares(x.data(), n);
    float ssBits[2];
    std::memcpy(ssBits, &ss, sizeof ss);
    out.insert(out.end(), ssBits, ssBits + 2);
    return out;
}

} // namespace

void tst_CpuVariants::everyVariantGivesTheBaselinesBits_data()
{
    QTest::addColumn<qint64>("n");
    QTest::newRow("one element") << qint64(1);
    QTest::newRow("shorter than the 16 lanes") << qint64(7);
    QTest::newRow("lanes and a tail") << qint64(37);
    QTest::newRow("BERT-Mini's hidden size") << qint64(256);
    QTest::newRow("BERT-Mini's intermediate size, plus a tail") << qint64(1027);
    QTest::newRow("past a 4096-element block of the sum of squares") << qint64(9000);
}

void tst_CpuVariants::everyVariantGivesTheBaselinesBits()
{
    QFETCH(qint64, n);
    std::vector<float> baseline;
    {
        ScopedCpuCapability use(CpuCapability::Baseline);
        baseline = allKernels(n);
    }
    int compared = 0;
    for (const CpuCapability c : {CpuCapability::Avx2, CpuCapability::Avx512}) {
        ScopedCpuCapability use(c);
        if (use.active() != c)
            continue; // this CPU does not have it
        const std::vector<float> variant = allKernels(n);
        QCOMPARE(variant.size(), baseline.size());
        for (size_t i = 0; i < variant.size(); ++i)
            if (std::memcmp(&variant[i], &baseline[i], sizeof(float)) != 0)
                QFAIL(qPrintable(QStringLiteral("%1 differs from the baseline at output float %2: %3 vs %4")
                                     .arg(QLatin1String(cpuCapabilityName(c)))
                                     .arg(i)
                                     .arg(double(variant[i]), 0, 'g', 9)
                                     .arg(double(baseline[i]), 0, 'g', 9)));
        ++compared;
    }
    qInfo("compared %d variant(s) with the baseline on this CPU (best: %s)", compared,
          cpuCapabilityName(detectedCpuCapability()));
    if (compared == 0)
        QSKIP("this CPU has only the baseline variant");
}

/// A diverged run's scores (NaN, ±∞) reach the softmax: every variant gives NaN for a row that
/// holds a NaN or +∞ and the plain softmax for -∞ entries, with no undefined operation on the way
/// (the exponential's 2ⁿ once converted a NaN to int and shifted a negative value: make sanitize).
void tst_CpuVariants::softmaxOfADivergedRowIsNaN()
{
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    for (CpuCapability c : {CpuCapability::Baseline, CpuCapability::Avx2, CpuCapability::Avx512}) {
        ScopedCpuCapability use(c);
        for (int64_t n : {int64_t(5), int64_t(37)}) {
            std::vector<float> x(size_t(n), 1.0f), bias(size_t(n), 0.0f), p(size_t(n), 0.0f);
            x[2] = nan;
            k::softmaxRow(x.data(), bias.data(), p.data(), n);
            for (float v : p)
                QVERIFY(std::isnan(v));
            std::fill(x.begin(), x.end(), 1.0f);
            x[1] = inf;
            k::softmaxRow(x.data(), bias.data(), p.data(), n);
            QVERIFY(std::isnan(p[0]) || p[0] == 0.0f);
            std::fill(x.begin(), x.end(), 0.0f);
            x[0] = -inf; // a masked score: exactly 0, the rest share the row
            k::softmaxRow(x.data(), bias.data(), p.data(), n);
            QCOMPARE(p[0], 0.0f);
            QCOMPARE(p[1], 1.0f / float(n - 1));
        }
    }
}

QTEST_APPLESS_MAIN(tst_CpuVariants)
#include "tst_cpuvariants.moc"
