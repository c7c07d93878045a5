// SPDX-License-Identifier: Apache-2.0
#include "core/config/distributionstrategy.h"

#include <algorithm>
#include <cctype>

namespace wb {

namespace {

const char *kChoices = "choose one of: one_device (one CPU or GPU), mirrored (all local GPUs, or the CPU), "
                       "multi_worker_mirrored (several processes or machines)";

std::string normalise(const std::string &name)
{
    std::string s = name;
    const auto notSpace = [](unsigned char c) { return !std::isspace(c); };
    s.erase(s.begin(), std::find_if(s.begin(), s.end(), notSpace));
    s.erase(std::find_if(s.rbegin(), s.rend(), notSpace).base(), s.end());
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

} // namespace

std::string DistributionStrategy::name() const
{
    switch (kind) {
    case StrategyKind::None: return {};
    case StrategyKind::OneDevice: return "one_device";
    case StrategyKind::Mirrored: return "mirrored";
    case StrategyKind::MultiWorkerMirrored: return "multi_worker_mirrored";
    }
    return {};
}

int DistributionStrategy::localReplicas() const
{
    return kind == StrategyKind::Mirrored ? std::max(num_gpus, 1) : 1;
}

std::vector<std::string> DistributionStrategy::validNames()
{
    return {"one_device", "mirrored", "multi_worker_mirrored"};
}

DistributionStrategy DistributionStrategy::parse(const std::string &rawName, int num_gpus, Diagnostics &diag)
{
    DistributionStrategy s;
    s.num_gpus = num_gpus;
    const std::string name = normalise(rawName);
    const char *field = "distribution_strategy";
    if (num_gpus < 0) {
        diag.error("num_gpus", "`num_gpus` can not be negative.", "use 0 for the CPU, or the number of GPUs to use");
        s.num_gpus = 0;
    }
    if (name.empty() || name == "off") {
        if (name == "off" && num_gpus > 1) {
            diag.error(field,
                       "When " + std::to_string(num_gpus)
                           + " GPUs are specified, distribution_strategy flag cannot be set to `off`.",
                       kChoices);
        } else {
            diag.error(field, kNoStrategyMessage, kChoices);
        }
        return s;
    }
    if (name == "one_device") {
        if (num_gpus > 1)
            diag.error(field, "`OneDeviceStrategy` can not be used for more than one device.",
                       "use mirrored for " + std::to_string(num_gpus) + " GPUs, or set num_gpus to 0 or 1");
        s.kind = StrategyKind::OneDevice;
    } else if (name == "mirrored") {
        s.kind = StrategyKind::Mirrored;
    } else if (name == "multi_worker_mirrored") {
        s.kind = StrategyKind::MultiWorkerMirrored;
    } else if (name == "tpu") {
        diag.error(field, "the tpu strategy is not supported: this workbench trains with libtorch on CPUs and CUDA GPUs",
                   kChoices);
    } else if (name == "parameter_server") {
        diag.error(field,
                   "the parameter_server strategy is not supported: gradients are averaged synchronously by all-reduce",
                   "use multi_worker_mirrored to train on several machines");
    } else {
        diag.error(field, "Unrecognized distribution strategy: '" + name + "'", kChoices);
    }
    return s;
}

} // namespace wb
