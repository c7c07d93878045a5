// SPDX-License-Identifier: Apache-2.0
// Fuzzes the cluster description a user hands a worker: TF_CONFIG, and (after NUL
// separators) WORLD_SIZE, RANK, MASTER_ADDR, MASTER_PORT and --worker_hosts.
// resolveClusterSpec never throws: every problem must be a diagnostic.
#include "core/config/clusterspec.h"

#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    std::vector<std::string> parts(1);
    for (size_t i = 0; i < size; ++i) {
        if (data[i] == 0 && parts.size() < 6)
            parts.emplace_back();
        else
            parts.back().push_back(char(data[i]));
    }
    parts.resize(6);
    static const char *const kNames[] = {"TF_CONFIG", "WORLD_SIZE", "RANK", "MASTER_ADDR", "MASTER_PORT"};
    const wb::EnvLookup env = [&](const std::string &name) -> std::optional<std::string> {
        for (size_t k = 0; k < 5; ++k)
            if (name == kNames[k] && !parts[k].empty())
                return parts[k];
        return std::nullopt;
    };
    wb::TrainingOptions options;
    options.distribution_strategy = "multi_worker_mirrored";
    options.worker_hosts = parts[5];
    options.task_index = int(parts[5].size() % 5) - 1; // -1: missing
    wb::Diagnostics diag;
    const wb::ClusterSpec spec = wb::resolveClusterSpec(options, diag, env, /*check_port=*/false);
    if (!diag.hasErrors())
        for (int r = 0; r < spec.world_size && r < 64; ++r)
            (void)spec.describeRank(r);
    return 0;
}
