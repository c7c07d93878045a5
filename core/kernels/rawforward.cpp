// SPDX-License-Identifier: Apache-2.0
// The forward products of the fp32 training step on raw buffers (core/kernels/rawforward.h).
#include "core/kernels/rawforward.h"

#include "core/kernels/dnnlmatmul.h"
#include "core/kernels/fusedcommon.h"
#include "core/kernels/rowkernels.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <vector>

namespace wb::nn::kernels {

namespace {

constexpr int64_t kBlockFloats = 64 * 1024; // a block's score matrices: at most 256 KB, or one head

/// One of the block's products (plan.run), marked as a product for profilers: the benchmark's
/// GEMM share counts it, the softmax and dropout around it stay in the calling function's time.
void runProduct(const MatmulPlan &plan, const float *a, const float *b, float *out)
{
    RECORD_FUNCTION("wb::attention_matmul", std::vector<c10::IValue>());
    plan.run(a, b, out);
}

} // namespace

void dnnlGemm(char ta, char tb, int64_t m, int64_t n, int64_t k, const float *a, const float *b, float beta, float *c)
{
    RECORD_FUNCTION("wb::dnnl_sgemm", std::vector<c10::IValue>());
    // oneDNN takes its thread count from this thread's OpenMP setting, which libtorch sets only
    // at the thread's first parallel ATen op: before that it is OpenMP's default (every CPU),
    // not torch::get_num_threads(). Settle it first, so the products always run on the intra-op
    // threads the run asked for, whatever ran before on this thread.
    at::internal::lazy_init_num_threads();
    const int64_t lda = ta == 'N' ? k : m, ldb = tb == 'N' ? n : k;
    const dnnl_status_t st = dnnl_sgemm(ta, tb, m, n, k, 1.0f, a, lda, b, ldb, beta, c, n);
    TORCH_CHECK(st == dnnl_success, "oneDNN sgemm failed (status ", int(st), ") for ", m, "x", k, "x", n);
}

void linearRows(const float *x, int64_t rows, int64_t in, const float *weight, const float *weightT,
                const float *bias, int64_t out, float *y)
{
    // y starts as the bias in every row; the GEMM adds x·Wᵀ onto it (beta = 1). Without a bias
    // the GEMM writes y (beta = 0).
    const float beta = bias ? 1.0f : 0.0f;
    if (bias)
        for (int64_t r = 0; r < rows; ++r)
            std::copy(bias, bias + out, y + r * out);
    else if (in == 0)
        std::fill(y, y + rows * out, 0.0f);
    if (rows >= kTransposeWeightRows && in > 0) {
        // x·Wᵀ as x·(Wᵀ stored): oneDNN runs NN 5–10 % faster than NT on the model's shapes; a
        // copy of W made here when the caller keeps none is a small fraction of the product.
        std::vector<float> copy;
        if (!weightT) {
            copy.resize(size_t(in * out));
            for (int64_t o = 0; o < out; ++o)
                for (int64_t i = 0; i < in; ++i)
                    copy[size_t(i * out + o)] = weight[o * in + i];
            weightT = copy.data();
        }
        dnnlGemm('N', 'N', rows, out, in, x, weightT, beta, y);
    } else if (rows > 0 && in > 0) {
        dnnlGemm('N', 'T', rows, out, in, x, weight, beta, y);
    }
}

int64_t attentionHeadsPerBlock(int64_t heads, int64_t sq, int64_t s)
{
    for (int64_t g = heads; g > 1; --g)
        if (heads % g == 0 && g * sq * s <= kBlockFloats)
            return g;
    return 1;
}

void blockedAttentionForward(const AttentionGeometry &n, const float *q, const float *k, const float *v,
                             const float *maskBias, float scale, double p, uint64_t seed, float *probs,
                             float *context)
{
    const int64_t g = attentionHeadsPerBlock(n.heads, n.sq, n.s), perBatch = n.heads / g, blocks = n.batch * perBatch;
    // A block of g heads of an operand as oneDNN sees it: [g, rows, cols], or its transpose.
    const auto heads = [g](const int64_t *stride, int64_t rows, int64_t cols, bool transposed) -> MatmulLayout {
        if (transposed)
            return {{g, cols, rows}, {stride[1], 1, stride[2]}};
        return {{g, rows, cols}, {stride[1], stride[2], 1}};
    };
    const int64_t cStride[3] = {n.sq * n.heads * n.dv, n.dv, n.heads * n.dv};
    const MatmulLayout scratch{{g, n.sq, n.s}, {n.sq * n.s, n.s, 1}};
    // Block i's first head's offset in an operand of these strides.
    const auto offset = [&](const int64_t *stride, int64_t i) {
        return (i / perBatch) * stride[0] + (i % perBatch) * g * stride[1];
    };
    const detail::Keep keep(p);
    at::internal::lazy_init_num_threads(); // the run's intra-op threads (as dnnlGemm)
    at::parallel_for(0, blocks, 1, [&](int64_t from, int64_t to) {
        oneThreadPerProductInParallelRegion();
        const MatmulPlan scores = matmulPlan(heads(n.qStride, n.sq, n.d, false), heads(n.kStride, n.s, n.d, true),
                                             scratch, scale, 0.0f);
        const MatmulPlan product =
            matmulPlan(scratch, heads(n.vStride, n.s, n.dv, false), heads(cStride, n.sq, n.dv, false), 1.0f, 0.0f);
        std::vector<float> block(size_t(g * n.sq * n.s)), own(probs ? 0 : block.size());
        float mask[kMaxAttentionKeys];
        for (int64_t i = from; i < to; ++i) {
            runProduct(scores, q + offset(n.qStride, i), k + offset(n.kStride, i), block.data());
            const int64_t row0 = i * g * n.sq;
            float *blockProbs = probs ? probs + row0 * n.s : own.data();
            const float *rowBias = maskBias + (i / perBatch) * n.s;
            for (int64_t r = 0; r < g * n.sq; ++r) {
                float *row = block.data() + r * n.s, *prow = blockProbs + r * n.s;
                softmaxRow(row, rowBias, prow, n.s);
                if (keep.drop) { // the mask of element (row0 + r)·S + j, as fusedAttentionSoftmax draws it
                    const int64_t first = (row0 + r) * n.s;
                    dropoutScales(mask, seed, first, first + n.s, keep.threshold, keep.scale);
                    for (int64_t j = 0; j < n.s; ++j)
                        row[j] = prow[j] * mask[j];
                }
            }
            runProduct(product, keep.drop ? block.data() : blockProbs, v + offset(n.vStride, i),
                       context + offset(cStride, i));
        }
    });
}

} // namespace wb::nn::kernels
