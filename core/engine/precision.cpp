// SPDX-License-Identifier: Apache-2.0
#include "core/engine/precision.h"

#include "core/config/optionwords.h"
#include "core/util/error.h"

#include <ATen/autocast_mode.h>

#include <algorithm>

namespace wb {

NumberFormat parseNumberFormat(const std::string &dtype)
{
    if (dtype == "fp32")
        return NumberFormat::Fp32;
    if (dtype == "bf16")
        return NumberFormat::Bf16;
    if (dtype == "fp16")
        return NumberFormat::Fp16;
    throw Error("dtype", "unknown number format '" + dtype + "'", "use fp32, bf16 or fp16");
}

AutocastGuard::AutocastGuard(NumberFormat format, const c10::Device &device)
{
    if (format == NumberFormat::Fp32)
        return;
    const c10::ScalarType type = format == NumberFormat::Bf16 ? c10::kBFloat16 : c10::kHalf;
    m_active = true;
    m_cuda = device.is_cuda();
    if (m_cuda) {
        m_wasEnabled = at::autocast::is_enabled();
        m_previousType = at::autocast::get_autocast_gpu_dtype();
        at::autocast::set_autocast_gpu_dtype(type);
        at::autocast::set_enabled(true);
    } else {
        if (format == NumberFormat::Fp16)
            throw Error("dtype", "fp16 needs a CUDA GPU", "use " + optionSetting("dtype", "bf16") + " on the CPU");
        m_wasEnabled = at::autocast::is_cpu_enabled();
        m_previousType = at::autocast::get_autocast_cpu_dtype();
        at::autocast::set_autocast_cpu_dtype(type);
        at::autocast::set_cpu_enabled(true);
    }
    at::autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard()
{
    if (!m_active)
        return;
    if (at::autocast::decrement_nesting() == 0)
        at::autocast::clear_cache();
    if (m_cuda) {
        at::autocast::set_enabled(m_wasEnabled);
        at::autocast::set_autocast_gpu_dtype(m_previousType);
    } else {
        at::autocast::set_cpu_enabled(m_wasEnabled);
        at::autocast::set_autocast_cpu_dtype(m_previousType);
    }
}

bool LossScaler::unscale(const std::vector<torch::Tensor> &parameters)
{
    torch::NoGradGuard noGrad;
    bool finite = true;
    std::vector<torch::Tensor> checks;
    for (const auto &p : parameters) {
        if (!p.grad().defined())
            continue;
        torch::Tensor g = p.grad();
        g.mul_(1.0 / m_scale);
        checks.push_back(torch::isfinite(g).all());
    }
    if (!checks.empty())
        finite = torch::stack(checks).all().item<bool>();
    if (finite) {
        if (++m_goodSteps >= kGrowthInterval) {
            m_scale *= 2.0;
            m_goodSteps = 0;
        }
    } else {
        m_scale = std::max(1.0, m_scale / 2.0); // Keras keeps the dynamic scale ≥ 1
        m_goodSteps = 0;
    }
    return finite;
}

} // namespace wb
