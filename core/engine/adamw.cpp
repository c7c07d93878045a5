// SPDX-License-Identifier: Apache-2.0
#include "core/engine/adamw.h"

#include "core/weights/parameternames.h"
#include "core/engine/adamwupdate.h"
#include "core/util/error.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>

namespace wb {

AdamW::AdamW(std::vector<std::pair<std::string, torch::Tensor>> params, AdamWOptions options)
    : m_params(std::move(params)), m_options(options)
{
    for (auto &[name, p] : m_params) {
        m_decay.push_back(isWeightDecayed(name));
        m_m.push_back(torch::zeros_like(p, torch::MemoryFormat::Contiguous));
        m_v.push_back(torch::zeros_like(p, torch::MemoryFormat::Contiguous));
    }
}

namespace {

/// 4096 elements: sumOfSquares' own block (core/engine/adamwupdate.cpp), so that one call per
/// block returns exactly the partial sum that a call over the whole tensor adds in.
constexpr int64_t kBlock = 4096;

/// Whether tensor t takes the vectorised path (float32, CPU, contiguous).
bool plainFloat(const torch::Tensor &t)
{
    return t.defined() && t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.is_contiguous();
}

/// One parameter's buffers as the vectorised passes read them: g when its gradient is a float32
/// CPU contiguous tensor, and p, m, v too when the parameter is one (else null: torch ops update it).
struct Buffers
{
    const float *g = nullptr;
    float *p = nullptr, *m = nullptr, *v = nullptr;
};

/// One block of one parameter's gradient: n elements of parameter k from element `from`.
struct Block
{
    size_t k;
    int64_t from, n;
};

/// The blocks of every gradient with buffers, in parameter order: one list for all parameters,
/// so that the intra-op threads share the work of small and large tensors alike.
std::vector<Block> gradientBlocks(const std::vector<std::pair<std::string, torch::Tensor>> &params,
                                  const std::vector<Buffers> &buffers)
{
    std::vector<Block> blocks;
    for (size_t k = 0; k < params.size(); ++k)
        if (buffers[k].g)
            for (int64_t from = 0, n = params[k].second.grad().numel(); from < n; from += kBlock)
                blocks.push_back({k, from, std::min(kBlock, n - from)});
    return blocks;
}

/// ‖G‖₂ over all gradients: each block's Σ g² on any thread, then added in block order, tensor
/// by tensor, as one sequential sweep of each tensor adds them (the same bits on every thread
/// count); other gradients by ATen's norm, in parameter order.
double globalNorm(const std::vector<std::pair<std::string, torch::Tensor>> &params, const std::vector<Buffers> &buffers,
                  const std::vector<Block> &blocks)
{
    std::vector<double> blockSums(blocks.size());
    at::parallel_for(0, int64_t(blocks.size()), 16, [&](int64_t a, int64_t b) {
        for (int64_t i = a; i < b; ++i) {
            const Block &x = blocks[size_t(i)];
            blockSums[size_t(i)] = sumOfSquares(buffers[x.k].g + x.from, x.n);
        }
    });
    double sumSq = 0;
    size_t next = 0;
    for (size_t k = 0; k < params.size(); ++k) {
        if (buffers[k].g) {
            double tensorSum = 0.0;
            for (; next < blocks.size() && blocks[next].k == k; ++next)
                tensorSum += blockSums[next];
            sumSq += tensorSum;
        } else if (const torch::Tensor &g = params[k].second.grad(); g.defined()) {
            const double n = g.norm().item<double>();
            sumSq += n * n;
        }
    }
    return std::sqrt(sumSq);
}

} // namespace

double AdamW::step(double lr)
{
    torch::NoGradGuard guard;
    std::vector<Buffers> buffers(m_params.size());
    for (size_t k = 0; k < m_params.size(); ++k) {
        torch::Tensor &p = m_params[k].second;
        if (!plainFloat(p.grad()))
            continue;
        buffers[k].g = p.grad().data_ptr<float>();
        if (plainFloat(p)) {
            buffers[k].p = p.data_ptr<float>();
            buffers[k].m = m_m[k].data_ptr<float>();
            buffers[k].v = m_v[k].data_ptr<float>();
        }
    }
    const std::vector<Block> blocks = gradientBlocks(m_params, buffers);
    const double norm = globalNorm(m_params, buffers, blocks);
    const double clip = m_options.clip_norm;
    const double gscale = clip > 0 && norm > clip ? clip / norm : 1.0;
    const double t = double(m_iterations + 1);
    const double alpha = lr * std::sqrt(1.0 - std::pow(m_options.beta2, t)) / (1.0 - std::pow(m_options.beta1, t));
    const double b1 = m_options.beta1, b2 = m_options.beta2, eps = m_options.epsilon;
    const auto decayOf = [&](size_t k) { return m_decay[k] ? lr * m_options.weight_decay_rate : 0.0; };

    // The update: element by element, so any split of the blocks over threads gives the same bits.
    at::parallel_for(0, int64_t(blocks.size()), 16, [&](int64_t a, int64_t b) {
        for (int64_t i = a; i < b; ++i) {
            const Block &x = blocks[size_t(i)];
            if (const Buffers &f = buffers[x.k]; f.p)
                adamwUpdate(f.p + x.from, f.m + x.from, f.v + x.from, f.g + x.from, x.n, float(gscale),
                            float(decayOf(x.k)), float(b1), float(b2), float(alpha), float(eps));
        }
    });
    // Other devices, dtypes and layouts: in-place torch ops.
    for (size_t k = 0; k < m_params.size(); ++k) {
        torch::Tensor &p = m_params[k].second;
        torch::Tensor g = p.grad();
        if (!g.defined() || buffers[k].p)
            continue;
        const double decay = decayOf(k);
        if (gscale != 1.0)
            g = g * gscale;
        if (decay != 0.0)
            p.mul_(1.0 - decay);
        m_m[k].mul_(b1).add_(g, 1.0 - b1);
        m_v[k].mul_(b2).addcmul_(g, g, 1.0 - b2);
        p.addcdiv_(m_m[k], m_v[k].sqrt().add_(eps), -alpha);
    }
    ++m_iterations;
    return norm;
}

void AdamW::zeroGrad()
{
    for (auto &[name, p] : m_params)
        if (p.grad().defined())
            p.mutable_grad().reset();
}

void AdamW::save(torch::serialize::OutputArchive &archive) const
{
    c10::Dict<std::string, torch::Tensor> m, v;
    for (size_t k = 0; k < m_params.size(); ++k) {
        m.insert(m_params[k].first, m_m[k].cpu()); // no-op on the CPU
        v.insert(m_params[k].first, m_v[k].cpu());
    }
    archive.write("optimizer_m", c10::IValue(m));
    archive.write("optimizer_v", c10::IValue(v));
    archive.write("optimizer_iterations", c10::IValue(m_iterations));
}

void AdamW::load(torch::serialize::InputArchive &archive)
{
    torch::NoGradGuard guard;
    for (int which = 0; which < 2; ++which) {
        const std::string key = which ? "optimizer_v" : "optimizer_m";
        c10::IValue value;
        if (!archive.try_read(key, value) || !value.isGenericDict())
            throw Error(key, "the checkpoint has no optimizer state '" + key + "'",
                        "start a new model_dir or delete the checkpoint");
        auto dict = c10::impl::toTypedDict<std::string, torch::Tensor>(value.toGenericDict());
        for (size_t k = 0; k < m_params.size(); ++k) {
            const std::string &name = m_params[k].first;
            auto it = dict.find(name);
            if (it == dict.end())
                throw Error(key + "/" + name, "the checkpoint has no optimizer slot for " + name);
            torch::Tensor &dst = which ? m_v[k] : m_m[k];
            const torch::Tensor t = it->value();
            if (t.sizes() != dst.sizes())
                throw Error(key + "/" + name, "optimizer slot has shape " + shapeString(t.sizes().vec())
                                                  + ", expected " + shapeString(dst.sizes().vec()));
            dst.copy_(t);
        }
    }
    c10::IValue it;
    if (!archive.try_read("optimizer_iterations", it) || !it.isInt())
        throw Error("optimizer_iterations", "the checkpoint has no optimizer step counter");
    m_iterations = it.toInt();
}

} // namespace wb
