// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/diagnostics.h"
#include "core/config/trainingoptions.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// Where a multi-worker cluster description came from (TF_CONFIG as read by TensorFlow's
/// TFConfigClusterResolver, or torchrun's MASTER_ADDR/MASTER_PORT/WORLD_SIZE/RANK).
enum class ClusterSource {
    Single,        ///< nothing set: one worker, no communication
    TfConfig,      ///< the TF_CONFIG environment variable (cluster.chief + cluster.worker, task)
    WorkerHosts,   ///< --worker_hosts + --task_index
    LocalLauncher, ///< --num_local_workers: this process starts the workers (it is none of them)
    Environment,   ///< MASTER_ADDR / MASTER_PORT / WORLD_SIZE / RANK (torchrun style)
};

/// This process's place in a multi-worker cluster.
///
/// Ranks: TF_CONFIG's chief (if any) is rank 0, then cluster.worker[i] is rank i (+1 with a
/// chief); --worker_hosts entry i is rank i. Rank 0 is the chief: it hosts the rendezvous
/// (a c10d TCPStore on master_port) and alone writes checkpoints, metrics and summaries.
/// A plain value.
struct ClusterSpec
{
    ClusterSource source = ClusterSource::Single;
    int rank = 0;                       ///< this worker's rank; -1 for LocalLauncher
    int world_size = 1;                 ///< number of workers (processes)
    std::vector<std::string> addresses; ///< "host:port" of every rank, in rank order (empty for Environment)
    std::string master_addr = "127.0.0.1"; ///< the chief's host (rendezvous address)
    int master_port = 0;                ///< the chief's port (rendezvous port; 0 = pick a free one)
    std::string local_host;             ///< this worker's host for the Gloo transport ("" = this machine's hostname)
    std::string master_port_field;      ///< the variable or flag that set master_port (names it in errors)

    bool isChief() const { return rank == 0; }
    bool multiWorker() const { return world_size > 1; }
    /// Returns "rank 1 (10.0.0.2:2222)", or "rank 1" when the address is unknown.
    std::string describeRank(int r) const;
};

/// Looks up an environment variable; nothing when unset. Tests pass their own table.
using EnvLookup = std::function<std::optional<std::string>(const std::string &name)>;

/// Returns a lookup of the process environment (std::getenv).
EnvLookup processEnvironment();

/// Resolves the cluster from, in this order of precedence: TF_CONFIG; --worker_hosts with
/// --task_index; --num_local_workers (the launcher); WORLD_SIZE/RANK/MASTER_ADDR/MASTER_PORT.
/// Nothing set gives a single worker.
///
/// Every problem goes to `diag` as an error naming the variable or flag (field
/// "TF_CONFIG: task.index", "worker_hosts", "MASTER_PORT", ...): invalid JSON, missing
/// cluster/task, unsupported roles or task types, more than one chief, a non host:port
/// entry, a port out of range, duplicate addresses, an index out of range, a missing
/// task_index, incomplete torchrun variables, --num_local_workers combined with another
/// source. Pure parsing: whether the chief's port is free is the pre-flight check's
/// business (checkChiefPort in core/engine/preflight.h). Thread-safe; never throws.
ClusterSpec resolveClusterSpec(const TrainingOptions &options, Diagnostics &diag,
                               const EnvLookup &env = processEnvironment());

} // namespace wb
