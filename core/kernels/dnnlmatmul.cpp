// SPDX-License-Identifier: Apache-2.0
#include "core/kernels/dnnlmatmul.h"

#include <oneapi/dnnl/dnnl.hpp>
#include <omp.h>

#include <cstdlib>
#include <map>
#include <tuple>

namespace wb::nn {

struct MatmulPlan::Impl
{
    dnnl::matmul prim;
    dnnl::memory::desc a, b, out, scratchpad;
};

namespace {

dnnl::engine &cpuEngine()
{
    static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    return eng;
}

dnnl::memory::desc descOf(const MatmulLayout &l)
{
    return dnnl::memory::desc(l.sizes, dnnl::memory::data_type::f32, l.strides);
}

/// The calling thread's scratchpad of at least `bytes` (64-byte aligned, as oneDNN asks), grown
/// as needed and kept for the thread's life.
void *threadScratchpad(size_t bytes)
{
    struct Buffer
    {
        void *data = nullptr;
        size_t size = 0;
        ~Buffer() { std::free(data); }
    };
    static thread_local Buffer buffer;
    if (bytes > buffer.size) {
        const size_t size = (bytes + 4095) / 4096 * 4096;
        void *fresh = std::aligned_alloc(64, size);
        if (!fresh)
            throw std::bad_alloc();
        std::free(buffer.data);
        buffer.data = fresh;
        buffer.size = size;
    }
    return buffer.data;
}

} // namespace

void oneThreadPerProductInParallelRegion()
{
    if (omp_in_parallel())
        omp_set_num_threads(1); // this parallel region's task only: the caller's setting is untouched
}

void MatmulPlan::run(const float *a, const float *b, float *out) const
{
    using dnnl::memory;
    dnnl::engine &eng = cpuEngine();
    dnnl::stream strm(eng);
    memory ma(impl->a, eng, const_cast<float *>(a)), mb(impl->b, eng, const_cast<float *>(b)), mc(impl->out, eng, out);
    const size_t padBytes = impl->scratchpad.get_size();
    memory ms(impl->scratchpad, eng, padBytes > 0 ? threadScratchpad(padBytes) : nullptr);
    impl->prim.execute(strm, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}, {DNNL_ARG_SCRATCHPAD, ms}});
    strm.wait();
}

MatmulPlan matmulPlan(const MatmulLayout &a, const MatmulLayout &b, const MatmulLayout &out, float alpha, float beta)
{
    // oneDNN splits a primitive's work for the OpenMP threads of the thread that creates it
    // (omp_get_max_threads()), and runs it on one thread inside a parallel region: a primitive
    // is only ever run where that count is what it was built for (part of the key).
    using Key = std::tuple<std::vector<int64_t>, std::vector<int64_t>, std::vector<int64_t>, std::vector<int64_t>,
                           std::vector<int64_t>, float, float, int>;
    static thread_local std::map<Key, std::shared_ptr<const MatmulPlan::Impl>> cache;
    Key key{a.sizes, a.strides, b.sizes, b.strides, out.strides, alpha, beta, omp_get_max_threads()};
    auto it = cache.find(key);
    if (it == cache.end()) {
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        if (alpha != 1.0f)
            attr.set_output_scales(0, {alpha});
        if (beta != 0.0f) {
            dnnl::post_ops ops;
            ops.append_sum(beta);
            attr.set_post_ops(ops);
        }
        if (cache.size() >= 64)
            cache.clear(); // shapes change (evaluation, another run): start over
        const dnnl::memory::desc amd = descOf(a), bmd = descOf(b), cmd = descOf(out);
        const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(amd, bmd, cmd), attr, cpuEngine());
        auto impl = std::make_shared<const MatmulPlan::Impl>(MatmulPlan::Impl{dnnl::matmul(pd), amd, bmd, cmd, pd.scratchpad_desc()});
        it = cache.emplace(std::move(key), std::move(impl)).first;
    }
    MatmulPlan plan;
    plan.impl = it->second;
    return plan;
}

} // namespace wb::nn
