// SPDX-License-Identifier: Apache-2.0
// Built with -fno-math-errno and without the torch PCH (core/CMakeLists.txt): the square root
// then has no errno side path, and the loop below vectorises.
#include "core/engine/adamwupdate.h"

#include "core/util/vectorvariants.h"

#include <algorithm>
#include <cmath>

namespace wb {

WB_VECTOR_BODY void adamwUpdateBody(float *__restrict p, float *__restrict m, float *__restrict v,
                                    const float *__restrict grad, int64_t n, float gscale, float decay, float beta1,
                                    float beta2, float alpha, float eps)
{
    const float c1 = 1.0f - beta1, c2 = 1.0f - beta2, keep = 1.0f - decay;
    for (int64_t i = 0; i < n; ++i) {
        const float gi = grad[i] * gscale;
        const float mi = beta1 * m[i] + c1 * gi;
        const float vi = beta2 * v[i] + c2 * gi * gi;
        m[i] = mi;
        v[i] = vi;
        p[i] = p[i] * keep - alpha * mi / (std::sqrt(vi) + eps);
    }
}
WB_VECTOR_VARIANTS(void, adamwUpdate,
                   (float *__restrict p, float *__restrict m, float *__restrict v, const float *__restrict grad,
                    int64_t n, float gscale, float decay, float beta1, float beta2, float alpha, float eps),
                   (p, m, v, grad, n, gscale, decay, beta1, beta2, alpha, eps))

WB_VECTOR_BODY double sumOfSquaresBody(const float *__restrict grad, int64_t n)
{
    constexpr int kLanes = 16;
    constexpr int64_t kBlock = 4096;
    double total = 0.0;
    for (int64_t b = 0; b < n; b += kBlock) {
        const int64_t e = std::min(n, b + kBlock), body = b + (e - b) / kLanes * kLanes;
        float lane[kLanes] = {};
        for (int64_t i = b; i < body; i += kLanes)
            for (int l = 0; l < kLanes; ++l)
                lane[l] += grad[i + l] * grad[i + l];
        double block = 0.0;
        for (int l = 0; l < kLanes; ++l)
            block += double(lane[l]);
        for (int64_t i = body; i < e; ++i)
            block += double(grad[i]) * double(grad[i]);
        total += block;
    }
    return total;
}
WB_VECTOR_VARIANTS(double, sumOfSquares, (const float *__restrict grad, int64_t n), (grad, n))

} // namespace wb
