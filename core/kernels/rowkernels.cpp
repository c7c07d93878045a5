// SPDX-License-Identifier: Apache-2.0
// Built with -fno-math-errno -fno-trapping-math and without the torch PCH (core/CMakeLists.txt):
// without them GCC keeps float comparisons and square roots out of vector code. Every loop is
// compiled for AVX-512, AVX2 and the x86-64 baseline and runs in the variant cpuCapability()
// names, the best the CPU has unless WB_CPU_CAPABILITY asks for less (core/util/vectorvariants.h),
// so the package runs on any x86-64 and each variant can be tested on one machine.
#include "core/kernels/rowkernels.h"

#include "core/kernels/dropouthash.h"
#include "core/util/vectorvariants.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace wb::nn::kernels {

namespace {

/// e^w for w ≤ 0, exactly 0 below −87 (where e^w leaves the normal floats): Cody–Waite reduction
/// to r = w − n·ln2 ∈ [−½ln2, ½ln2], Cephes' degree-5 polynomial for eʳ (about 1 ulp), times 2ⁿ
/// built in the exponent bits. Branch-free, so the loops that call it vectorise. A NaN w gives
/// NaN, with no undefined operation on the way.
WB_VECTOR_BODY float expNonPositive(float w)
{
    constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
    constexpr float kRound = 12582912.0f; // 1.5·2²³: adding and subtracting it rounds to an integer
    const float wc = std::max(w, -87.0f);
    const float fn = (wc * kLog2e + kRound) - kRound;
    const float r = (wc - fn * kLn2Hi) - fn * kLn2Lo;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const float er = p * r * r + r + 1.0f;
    // fn ∈ [−126, 0] for w ∈ [−87, 0]; a NaN or +∞ w (a diverged run's scores) would make the
    // float→int conversion and the shift undefined, so fn is held to [−127, 128] first (a NaN
    // becomes −127; er is NaN then and so is the result). Same bits for every w ≤ 0.
    const float fnc = std::min(fn > -127.0f ? fn : -127.0f, 128.0f);
    const uint32_t bits = uint32_t(int32_t(fnc) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return w < -87.0f ? 0.0f : er * scale;
}

constexpr int kLanes = 16; // partial sums and maxima: one vector's worth, reduced in a fixed order

/// y = x·Φ(x) and g = Φ(x) + x·φ(x) = dy/dx over n floats, Φ and φ the standard normal's CDF and
/// density. Φ(x) = ½(1 + sign(x)·erf(|x|/√2)) with erf from Abramowitz & Stegun 7.1.26
/// (|error| ≤ 1.5·10⁻⁷, the formula ATen's vectorised erf uses): erf(z) = 1 − t·P(t)·e⁻ᶻ², t =
/// 1/(1 + p·z). The one exponential e⁻ᶻ² = e^(−x²/2) serves both Φ and φ = e^(−x²/2)/√(2π), which
/// is what makes the pair cheaper than ATen's gelu and gelu_backward apart (two erfs, three
/// exponentials). The exponential: Cody–Waite reduction to r ∈ [−½ln2, ½ln2], Cephes' degree-5
/// polynomial for eʳ (expNonPositive), scaled by 2ⁿ through the exponent bits.
/// (The loop body of geluWithDerivative and biasGeluRow.)
WB_VECTOR_BODY void geluPair(float xi, float &y, float &g)
{
    constexpr float kP = 0.3275911f, kA1 = 0.254829592f, kA2 = -0.284496736f, kA3 = 1.421413741f,
                    kA4 = -1.453152027f, kA5 = 1.061405429f;
    constexpr float kInvSqrt2 = 0.70710678118654752f, kInvSqrt2Pi = 0.39894228040143268f;
    // z = |x|/√2 clamped to ≤ 9.3, where erfc(z) < 10⁻³⁸ and every use of e^(−z²) rounds to 0
    // (and z² cannot overflow). A NaN stays NaN.
    const float z = std::min(std::fabs(xi) * kInvSqrt2, 9.3f);
    const float e = expNonPositive(-z * z);
    const float t = 1.0f / (1.0f + kP * z);
    const float poly = ((((kA5 * t + kA4) * t + kA3) * t + kA2) * t + kA1) * t;
    const float erfz = 1.0f - poly * e;
    const float cdf = 0.5f + 0.5f * std::copysign(erfz, xi);
    y = xi * cdf;
    g = cdf + xi * e * kInvSqrt2Pi;
}

} // namespace

WB_VECTOR_BODY void geluWithDerivativeBody(const float *__restrict x, float *__restrict y, float *__restrict g,
                                           int64_t n)
{
    for (int64_t i = 0; i < n; ++i)
        geluPair(x[i], y[i], g[i]);
}
WB_VECTOR_VARIANTS(void, geluWithDerivative,
                   (const float *__restrict x, float *__restrict y, float *__restrict g, int64_t n),
                   (x, y, g, n))

WB_VECTOR_BODY void biasGeluRowBody(const float *__restrict x, const float *__restrict bias, float *__restrict y,
                                    float *__restrict g, int64_t n)
{
    for (int64_t j = 0; j < n; ++j)
        geluPair(x[j] + bias[j], y[j], g[j]);
}
WB_VECTOR_VARIANTS(void, biasGeluRow,
                   (const float *__restrict x, const float *__restrict bias, float *__restrict y, float *__restrict g,
                    int64_t n),
                   (x, bias, y, g, n))

WB_VECTOR_BODY void biasGeluRowValuesBody(const float *__restrict x, const float *__restrict bias, float *__restrict y,
                                          int64_t n)
{
    for (int64_t j = 0; j < n; ++j) {
        float unused; // the derivative: computed by the shared body, dropped by the compiler
        geluPair(x[j] + bias[j], y[j], unused);
    }
}
WB_VECTOR_VARIANTS(void, biasGeluRowValues,
                   (const float *__restrict x, const float *__restrict bias, float *__restrict y, int64_t n),
                   (x, bias, y, n))

WB_VECTOR_BODY void addRowToBody(const float *__restrict row, float *__restrict sums, int64_t n)
{
    for (int64_t j = 0; j < n; ++j)
        sums[j] += row[j];
}
WB_VECTOR_VARIANTS(void, addRowTo, (const float *__restrict row, float *__restrict sums, int64_t n), (row, sums, n))

WB_VECTOR_BODY void mulRowAddToBody(const float *__restrict a, const float *__restrict b, float *__restrict out,
                                    float *__restrict sums, int64_t n)
{
    for (int64_t j = 0; j < n; ++j) {
        const float v = a[j] * b[j];
        out[j] = v;
        sums[j] += v;
    }
}
WB_VECTOR_VARIANTS(void, mulRowAddTo,
                   (const float *__restrict a, const float *__restrict b, float *__restrict out,
                    float *__restrict sums, int64_t n),
                   (a, b, out, sums, n))

WB_VECTOR_BODY void biasDropoutAddRowBody(const float *__restrict x, const float *__restrict bias,
                                          const float *__restrict scale, const float *__restrict residual,
                                          float *__restrict y, int64_t n)
{
    for (int64_t j = 0; j < n; ++j)
        y[j] = (x[j] + bias[j]) * scale[j] + residual[j];
}
WB_VECTOR_VARIANTS(void, biasDropoutAddRow,
                   (const float *__restrict x, const float *__restrict bias, const float *__restrict scale,
                    const float *__restrict residual, float *__restrict y, int64_t n),
                   (x, bias, scale, residual, y, n))

namespace {

/// Σ term(j) for j in [0, n) in a fixed order: kLanes partial sums over the whole vectors, then
/// the lanes in order, then the tail. `term` is a lambda marked __attribute__((always_inline)),
/// so that it is compiled inside each variant (WB_VECTOR_BODY) and the loop vectorises.
template <class Term>
WB_VECTOR_BODY float laneSum(int64_t n, Term term)
{
    float lane[kLanes] = {};
    const int64_t body = n / kLanes * kLanes;
    for (int64_t j = 0; j < body; j += kLanes)
        for (int l = 0; l < kLanes; ++l)
            lane[l] += term(j + l);
    float sum = 0.0f;
    for (int l = 0; l < kLanes; ++l)
        sum += lane[l];
    for (int64_t j = body; j < n; ++j)
        sum += term(j);
    return sum;
}

/// Σ v[j] over n floats, ordered as laneSum.
WB_VECTOR_BODY float rowSum(const float *__restrict v, int64_t n)
{
    return laneSum(n, [v](int64_t j) __attribute__((always_inline)) { return v[j]; });
}

/// Σ (v[j] − c)² over n floats, ordered as laneSum.
WB_VECTOR_BODY float rowSquaredDeviation(const float *__restrict v, float c, int64_t n)
{
    return laneSum(n, [v, c](int64_t j) __attribute__((always_inline)) { return (v[j] - c) * (v[j] - c); });
}

} // namespace

WB_VECTOR_BODY void layerNormRowBody(const float *__restrict x, const float *__restrict gamma,
                                     const float *__restrict beta, float eps, float *__restrict y,
                                     float *__restrict stats, int64_t n)
{
    const float mean = rowSum(x, n) / float(n);
    const float rstd = 1.0f / std::sqrt(rowSquaredDeviation(x, mean, n) / float(n) + eps);
    for (int64_t j = 0; j < n; ++j)
        y[j] = (x[j] - mean) * rstd * gamma[j] + beta[j];
    stats[0] = mean;
    stats[1] = rstd;
}
WB_VECTOR_VARIANTS(void, layerNormRow,
                   (const float *__restrict x, const float *__restrict gamma, const float *__restrict beta, float eps,
                    float *__restrict y, float *__restrict stats, int64_t n),
                   (x, gamma, beta, eps, y, stats, n))

WB_VECTOR_BODY void layerNormRowBackwardBody(const float *__restrict dy, const float *__restrict x,
                                             const float *__restrict gamma, const float *__restrict stats,
                                             float *__restrict dx, float *__restrict dgamma, float *__restrict dbeta,
                                             int64_t n)
{
    const float mean = stats[0], rstd = stats[1];
    // Σ ĝ and Σ ĝ·x̂ in two loops of one accumulator each: one loop with both did not vectorise
    // (GCC interleaved the lanes with shuffles, 3× slower).
    const float sum = laneSum(n, [dy, gamma](int64_t j) __attribute__((always_inline)) { return dy[j] * gamma[j]; });
    const float dot = laneSum(n, [dy, gamma, x, mean, rstd](int64_t j) __attribute__((always_inline)) {
        return dy[j] * gamma[j] * ((x[j] - mean) * rstd);
    });
    const float meanG = sum / float(n), meanGx = dot / float(n);
    for (int64_t j = 0; j < n; ++j) {
        const float xhat = (x[j] - mean) * rstd;
        dx[j] = rstd * (dy[j] * gamma[j] - meanG - xhat * meanGx);
        dgamma[j] += dy[j] * xhat;
        dbeta[j] += dy[j];
    }
}
WB_VECTOR_VARIANTS(void, layerNormRowBackward,
                   (const float *__restrict dy, const float *__restrict x, const float *__restrict gamma,
                    const float *__restrict stats, float *__restrict dx, float *__restrict dgamma,
                    float *__restrict dbeta, int64_t n),
                   (dy, x, gamma, stats, dx, dgamma, dbeta, n))

WB_VECTOR_BODY void softmaxRowBody(const float *__restrict x, const float *__restrict bias, float *__restrict p,
                                   int64_t n)
{
    float lane[kLanes];
    for (int l = 0; l < kLanes; ++l)
        lane[l] = x[0] + bias[0];
    const int64_t body = n / kLanes * kLanes;
    for (int64_t j = 0; j < body; j += kLanes)
        for (int l = 0; l < kLanes; ++l)
            lane[l] = std::max(lane[l], x[j + l] + bias[j + l]);
    float m = lane[0];
    for (int l = 1; l < kLanes; ++l)
        m = std::max(m, lane[l]);
    for (int64_t j = body; j < n; ++j)
        m = std::max(m, x[j] + bias[j]);
    for (int64_t j = 0; j < n; ++j)
        p[j] = expNonPositive(x[j] + bias[j] - m);
    const float inv = 1.0f / rowSum(p, n); // the sum is ≥ 1: the largest term is e⁰
    for (int64_t j = 0; j < n; ++j)
        p[j] *= inv;
}
WB_VECTOR_VARIANTS(void, softmaxRow,
                   (const float *__restrict x, const float *__restrict bias, float *__restrict p, int64_t n),
                   (x, bias, p, n))

WB_VECTOR_BODY void softmaxRowBackwardBody(const float *__restrict p, const float *__restrict dp,
                                           float *__restrict dx, int64_t n)
{
    const float dot = laneSum(n, [p, dp](int64_t j) __attribute__((always_inline)) { return p[j] * dp[j]; });
    for (int64_t j = 0; j < n; ++j)
        dx[j] = p[j] * (dp[j] - dot);
}
WB_VECTOR_VARIANTS(void, softmaxRowBackward,
                   (const float *__restrict p, const float *__restrict dp, float *__restrict dx, int64_t n),
                   (p, dp, dx, n))

WB_VECTOR_BODY void dropoutScalesBody(float *__restrict scale, uint64_t seed, int64_t begin, int64_t end,
                                      uint32_t threshold, float s)
{
    const int64_t n = end - begin;
    if ((uint64_t(begin) >> 32) == (uint64_t(end - 1) >> 32)) {
        // One 2³² block of indices: k1 is a loop constant (the usual case), so the loop vectorises.
        const uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32) + uint32_t(uint64_t(begin) >> 32) * 0x85ebca6bU;
        const uint32_t lo = uint32_t(begin);
        for (int64_t j = 0; j < n; ++j) {
            uint32_t x = (lo + uint32_t(j)) * 0x9e3779b1U + k0;
            x ^= x >> 16;
            x *= 0x7feb352dU;
            x ^= x >> 15;
            x *= 0x846ca68bU;
            x ^= x >> 16;
            x ^= k1;
            x ^= x >> 16;
            x *= 0x7feb352dU;
            x ^= x >> 15;
            x *= 0x846ca68bU;
            x ^= x >> 16;
            scale[j] = (x >> 8) < threshold ? s : 0.0f;
        }
    } else {
        for (int64_t j = 0; j < n; ++j)
            scale[j] = (dropoutHash(seed, uint64_t(begin + j)) >> 8) < threshold ? s : 0.0f;
    }
}
WB_VECTOR_VARIANTS(void, dropoutScales,
                   (float *__restrict scale, uint64_t seed, int64_t begin, int64_t end, uint32_t threshold, float s),
                   (scale, seed, begin, end, threshold, s))

} // namespace wb::nn::kernels
