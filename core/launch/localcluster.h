// SPDX-License-Identifier: Apache-2.0
#pragma once

// Torch-free and Qt-free: the one way a front-end runs a prepared run as local workers (the
// CLI's `train --num_local_workers=N`, the window's "Local workers: N").

#include "core/launch/chiefstream.h"
#include "core/launch/locallauncher.h"

#include <atomic>
#include <string>

namespace wb {

/// How a local cluster's run ended.
struct LocalClusterEnd
{
    RunFinished end;             ///< the chief's result (ChiefStream::result), or Failed when no worker could start
    LocalLaunchResult launched;  ///< the launcher's view: failed rank, exit code, message
    bool chief_finished = false; ///< the chief reported its own "finished" event
    bool launch_failed = false;  ///< no cluster ran: a worker could not be started (end says why)
};

/// What a local cluster reports while it runs. Every member is optional.
struct LocalClusterSinks
{
    /// Gets the chief's decoded events (step, eval, checkpoint, log; never "finished").
    TrainingObserver *observer = nullptr;
    /// Every line of the chief's stdout, as it printed it (the CLI shows them as they are).
    LocalLauncher::LineSink chief_line;
    /// Every worker's stderr line ("[worker r] …" for r > 0, bare for the chief).
    LocalLauncher::LineSink error_line;
    /// Holds the running launcher while it runs (nullptr before and after), for a signal
    /// handler that forwards Ctrl+C (LocalLauncher::requestStop is async-signal-safe).
    std::atomic<LocalLauncher *> *running = nullptr;
};

/// Runs `plan` (PreparedRun::local_workers) as plan.num_workers processes of `executable`,
/// each running `command` with the plan's flags (and --progress_format=jsonl when `jsonl`:
/// then `end` is the chief's own account; without it the chief prints text lines and only
/// `launched` tells how the cluster ended), with
/// threadsPerLocalWorker-style `threadsPerWorker` intra-op threads each (0: the workers'
/// default). A request on `stop` (optional) is forwarded to the workers once; the chief
/// writes a checkpoint and the run ends Cancelled. Blocks until every worker ended; never
/// throws: a launch failure is end.status Failed with field "num_local_workers".
LocalClusterEnd runLocalCluster(const LocalWorkerPlan &plan, const std::string &executable, const std::string &command,
                                bool jsonl, int threadsPerWorker, const LocalClusterSinks &sinks,
                                const StopToken *stop);

} // namespace wb
