// SPDX-License-Identifier: Apache-2.0
#include "core/train/adamw.h"

#include "core/model/parameternames.h"
#include "core/train/adamwupdate.h"
#include "core/util/error.h"

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

double AdamW::step(double lr)
{
    torch::NoGradGuard guard;
    double sumSq = 0;
    for (auto &[name, p] : m_params) {
        const auto &g = p.grad();
        if (!g.defined())
            continue;
        if (g.device().is_cpu() && g.scalar_type() == torch::kFloat && g.is_contiguous()) {
            sumSq += sumOfSquares(g.data_ptr<float>(), g.numel()); // one vectorised sweep (adamwupdate.h)
        } else {
            const double n = g.norm().item<double>();
            sumSq += n * n;
        }
    }
    const double norm = std::sqrt(sumSq);
    const double clip = m_options.clip_norm;
    const double gscale = clip > 0 && norm > clip ? clip / norm : 1.0;
    const double t = double(m_iterations + 1);
    const double alpha = lr * std::sqrt(1.0 - std::pow(m_options.beta2, t)) / (1.0 - std::pow(m_options.beta1, t));
    const double b1 = m_options.beta1, b2 = m_options.beta2, eps = m_options.epsilon;

    for (size_t k = 0; k < m_params.size(); ++k) {
        torch::Tensor &p = m_params[k].second;
        torch::Tensor g = p.grad();
        if (!g.defined())
            continue;
        const double decay = m_decay[k] ? lr * m_options.weight_decay_rate : 0.0;
        if (p.device().is_cpu() && p.scalar_type() == torch::kFloat && p.is_contiguous() && g.is_contiguous()
            && g.scalar_type() == torch::kFloat) {
            adamwUpdate(p.data_ptr<float>(), m_m[k].data_ptr<float>(), m_v[k].data_ptr<float>(), g.data_ptr<float>(),
                        p.numel(), float(gscale), float(decay), float(b1), float(b2), float(alpha), float(eps));
        } else {
            if (gscale != 1.0)
                g = g * gscale;
            if (decay != 0.0)
                p.mul_(1.0 - decay);
            m_m[k].mul_(b1).add_(g, 1.0 - b1);
            m_v[k].mul_(b2).addcmul_(g, g, 1.0 - b2);
            p.addcdiv_(m_m[k], m_v[k].sqrt().add_(eps), -alpha);
        }
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
