// SPDX-License-Identifier: Apache-2.0
// Every GEMM of one BERT-Mini training step (batch 32, max_seq_length 128, fp32, forward and
// backward), timed as the model calls it (at::mm / at::bmm with the operand layouts autograd
// hands them) and with alternatives: the other operand layout, OpenBLAS's cblas_sgemm called
// directly, oneDNN's dnnl_sgemm, and for the attention products one batched call over
// batch × heads against one call per head (and oneDNN's matmul primitive, cached).
// Prints one JSON object per product and variant (docs/benchmarks.md, "GEMM shapes").
// Usage: bench_gemmshapes [rounds, default 7] [threads, default 1]
#include "bench/benchpeak.h"

#include <ATen/ATen.h>
#include <torch/torch.h>

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>

namespace {

using wb::threadCpu; // bench/benchpeak.h

/// One way of computing one product: a callable, its FLOPs, and the best wall / CPU time seen.
struct Variant
{
    std::string product; ///< which GEMM of the step
    std::string how;     ///< the kernel and layout
    int64_t perStep;     ///< how many times a Mini step does this product
    double flops;        ///< 2·M·K·N (× batch)
    std::function<void()> run;
    double bestWall = 1e30, bestCpu = 1e30;
};

/// C[M,N] = op(A)·op(B), operands stored row-major: A is [M,K] ('N') or [K,M] ('T'), B is
/// [K,N] ('N') or [N,K] ('T'). Adds the at::mm, cblas_sgemm and dnnl_sgemm variants.
void addGemm(std::vector<Variant> &out, const std::string &product, const std::string &layoutNote, int64_t perStep,
             int64_t m, int64_t k, int64_t n, char ta, char tb)
{
    auto a = ta == 'N' ? torch::randn({m, k}) : torch::randn({k, m});
    auto b = tb == 'N' ? torch::randn({k, n}) : torch::randn({n, k});
    auto c = torch::empty({m, n});
    const auto opA = ta == 'N' ? a : a.t();
    const auto opB = tb == 'N' ? b : b.t();
    const double flops = 2.0 * double(m) * double(k) * double(n);
    const std::string layout = std::string(1, ta) + std::string(1, tb);
    const std::string shape = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) + " " + layout;
    out.push_back({product, "at::mm " + shape + layoutNote, perStep, flops, [=]() mutable { at::mm_out(c, opA, opB); }});
    const int64_t lda = a.size(1), ldb = b.size(1);
    const float *pa = a.data_ptr<float>(), *pb = b.data_ptr<float>();
    float *pc = c.data_ptr<float>();
    out.push_back({product, "cblas_sgemm " + shape + layoutNote, perStep, flops, [=]() {
                       cblas_sgemm(CblasRowMajor, ta == 'N' ? CblasNoTrans : CblasTrans,
                                   tb == 'N' ? CblasNoTrans : CblasTrans, int(m), int(n), int(k), 1.0f, pa, int(lda), pb,
                                   int(ldb), 0.0f, pc, int(n));
                   }});
    out.push_back({product, "dnnl_sgemm " + shape + layoutNote, perStep, flops, [=]() {
                       dnnl_sgemm(ta, tb, m, n, k, 1.0f, pa, lda, pb, ldb, 0.0f, pc, n);
                   }});
}

/// A batched product [batch, M, K]·[batch, K, N] (op per operand as in addGemm): at::bmm over
/// the batch, one at::mm per matrix, and oneDNN's matmul primitive over the batch (built once).
void addBatched(std::vector<Variant> &out, const std::string &product, int64_t perStep, int64_t batch, int64_t m,
                int64_t k, int64_t n, char ta, char tb)
{
    auto a = ta == 'N' ? torch::randn({batch, m, k}) : torch::randn({batch, k, m});
    auto b = tb == 'N' ? torch::randn({batch, k, n}) : torch::randn({batch, n, k});
    auto c = torch::empty({batch, m, n});
    const auto opA = ta == 'N' ? a : a.transpose(1, 2);
    const auto opB = tb == 'N' ? b : b.transpose(1, 2);
    const double flops = 2.0 * double(batch) * double(m) * double(k) * double(n);
    const std::string shape = std::to_string(batch) + "×" + std::to_string(m) + "x" + std::to_string(k) + "x" +
                              std::to_string(n) + " " + std::string(1, ta) + std::string(1, tb);
    out.push_back({product, "at::bmm " + shape, perStep, flops, [=]() mutable { at::bmm_out(c, opA, opB); }});
    out.push_back({product, "at::mm per matrix " + shape, perStep, flops, [=]() mutable {
                       for (int64_t i = 0; i < batch; ++i) {
                           auto ci = c.select(0, i);
                           at::mm_out(ci, opA.select(0, i), opB.select(0, i));
                       }
                   }});
    // oneDNN matmul with strided (possibly transposed) memory descriptors: no copies.
    using namespace dnnl;
    static engine eng(engine::kind::cpu, 0);
    static stream strm(eng);
    auto md = [](const torch::Tensor &t) {
        return memory::desc({t.size(0), t.size(1), t.size(2)}, memory::data_type::f32,
                            {t.stride(0), t.stride(1), t.stride(2)});
    };
    const auto amd = md(opA), bmd = md(opB), cmd = md(c);
    auto pd = matmul::primitive_desc(matmul::desc(amd, bmd, cmd), eng);
    auto prim = std::make_shared<matmul>(pd);
    auto ma = std::make_shared<memory>(amd, eng, a.data_ptr<float>());
    auto mb = std::make_shared<memory>(bmd, eng, b.data_ptr<float>());
    auto mc = std::make_shared<memory>(cmd, eng, c.data_ptr<float>());
    out.push_back({product, "dnnl matmul (cached primitive) " + shape, perStep, flops, [prim, ma, mb, mc, a, b, c]() {
                       prim->execute(strm, {{DNNL_ARG_SRC, *ma}, {DNNL_ARG_WEIGHTS, *mb}, {DNNL_ARG_DST, *mc}});
                       strm.wait();
                   }});
    // What the model pays today: the transposed head views copied to contiguous, then bmm.
    out.push_back({product, "copy operands to contiguous, then at::bmm " + shape, perStep, flops,
                   [=]() mutable { at::bmm_out(c, opA.contiguous(), opB.contiguous()); }});
}

} // namespace

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
    const int threads = argc > 2 ? std::max(1, std::atoi(argv[2])) : 1;
    torch::set_num_threads(threads);
    torch::NoGradGuard guard;
    // BERT-Mini: B·S = 4096 rows, H 256, I 1024, 4 heads of 64; layers 0–2 full, layer 3 only
    // [CLS] for the query side (its K and V projections still see all 4096 rows).
    const int64_t rows = 4096, h = 256, i = 1024, bh = 32 * 4, s = 128, d = 64;
    std::vector<Variant> v;
    // Linear y = x·Wᵀ (W [out, in]): forward NT; dX = dY·W NN; dW = dYᵀ·x TN. Count: Q, K, V and
    // the attention output of 3 full layers + K, V of the last = 14; FFN in / out 3 each.
    struct Lin
    {
        const char *name;
        int64_t in, out, count;
    };
    for (const Lin &l : {Lin{"linear 256→256 (Q, K, V, attention output)", h, h, 14},
                         Lin{"linear 256→1024 (intermediate)", h, i, 3}, Lin{"linear 1024→256 (output)", i, h, 3}}) {
        const std::string n = l.name;
        addGemm(v, n + " forward", " (x·Wᵀ, W [out,in])", l.count, rows, l.in, l.out, 'N', 'T');
        addGemm(v, n + " forward", " (x·W, W stored [in,out])", l.count, rows, l.in, l.out, 'N', 'N');
        addGemm(v, n + " dX", " (dY·W, W [out,in])", l.count, rows, l.out, l.in, 'N', 'N');
        addGemm(v, n + " dX", " (dY·Wᵀ, W stored [in,out])", l.count, rows, l.out, l.in, 'N', 'T');
        addGemm(v, n + " dW", " (dYᵀ·x into [out,in])", l.count, l.out, rows, l.in, 'T', 'N');
        addGemm(v, n + " dW", " (xᵀ·dY into [in,out])", l.count, l.in, rows, l.out, 'T', 'N');
    }
    // Fused Q, K, V: one 4096×256×768 product instead of three 4096×256×256 (layers 0–2).
    addGemm(v, "fused QKV forward", " (x·[Wq;Wk;Wv]ᵀ)", 3, rows, h, 3 * h, 'N', 'T');
    addGemm(v, "fused QKV dX", " (dY·[Wq;Wk;Wv])", 3, rows, 3 * h, h, 'N', 'N');
    addGemm(v, "fused QKV dW", " (dYᵀ·x)", 3, 3 * h, rows, h, 'T', 'N');
    // Attention, batch × heads = 128 matrices (layers 0–2; the last layer's [CLS] row is tiny):
    // scores = q·kᵀ (NT), context = probs·v (NN); backward: dq = dS·k (NN), dk = dSᵀ·q (TN),
    // dprobs = dC·vᵀ (NT), dv = probsᵀ·dC (TN).
    addBatched(v, "attention scores q·kᵀ", 3, bh, s, d, s, 'N', 'T');
    addBatched(v, "attention context probs·v", 3, bh, s, s, d, 'N', 'N');
    addBatched(v, "attention dq = dS·k", 3, bh, s, s, d, 'N', 'N');
    addBatched(v, "attention dk = dSᵀ·q", 3, bh, s, s, d, 'T', 'N');
    addBatched(v, "attention dprobs = dC·vᵀ", 3, bh, s, d, s, 'N', 'T');
    addBatched(v, "attention dv = probsᵀ·dC", 3, bh, s, s, d, 'T', 'N');
    // Square peak, for the same-process reference.
    addGemm(v, "peak 1024³", "", 0, 1024, 1024, 1024, 'N', 'N');
    for (auto &x : v)
        x.run(); // warm-up (first-touch, oneDNN's kernel generation)
    for (int r = 0; r < rounds; ++r) // interleaved: each round runs every variant once
        for (auto &x : v) {
            const auto t0 = std::chrono::steady_clock::now();
            const double c0 = threadCpu();
            x.run();
            x.bestCpu = std::min(x.bestCpu, threadCpu() - c0);
            x.bestWall = std::min(x.bestWall, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
    for (const auto &x : v) {
        nlohmann::ordered_json j;
        j["bench"] = "gemm_shape";
        j["product"] = x.product;
        j["how"] = x.how;
        j["per_step"] = x.perStep;
        j["best_ms"] = 1e3 * x.bestWall;
        j["best_cpu_ms"] = 1e3 * x.bestCpu;
        j["gflops"] = x.flops / x.bestWall / 1e9;
        j["cpu_gflops"] = x.flops / x.bestCpu / 1e9;
        j["ms_per_step"] = 1e3 * x.bestWall * double(x.perStep);
        std::cout << j.dump() << std::endl;
    }
    return 0;
}
