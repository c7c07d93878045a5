// SPDX-License-Identifier: Apache-2.0
#pragma once

// The second of a front-end's two calls to train (docs/architecture.md, "Starting a run: one
// entry point"): planRun (core/engine/runplan.h) prepares the run, runPlanned runs it, as local
// worker processes or in this process, as the plan says. Torch-free header (the window
// includes it).

#include "core/launch/localcluster.h"
#include "core/engine/preparedrun.h"

#include <functional>
#include <optional>
#include <string>

namespace wb {

/// How a front-end runs a plan's local workers (PreparedRun::runsAsLocalWorkers). Unused for
/// a run in this process.
struct LocalWorkersFrontEnd
{
    std::string executable;      ///< the worker program (bert-workbench-cli)
    std::string command = "train"; ///< the command each worker runs ("train", "pretrain")
    /// Workers print JSON events (--progress_format=jsonl): the chief's are decoded for the
    /// observer and its "finished" event is the run's end.
    bool jsonl = true;
    /// The chief's stdout lines as printed (the CLI shows them as they are). When set, the
    /// chief's events do not reach runPlanned's observer; when empty, they do.
    LocalLauncher::LineSink chief_line;
    /// Every worker's stderr line ("[worker r] …" for r > 0, bare for the chief).
    LocalLauncher::LineSink error_line;
    /// Holds the running launcher while it runs (LocalClusterSinks::running): for a signal
    /// handler that forwards Ctrl+C.
    std::atomic<LocalLauncher *> *running = nullptr;
    /// Called before the workers start, with the plan: says so (the CLI's "starting 2 local
    /// workers …", the window's Log line), or returns the end of a run that cannot start
    /// (the window: no worker program found); then nothing starts.
    std::function<std::optional<RunFinished>(const LocalWorkerPlan &)> starting;
    /// Forward a request on runPlanned's `stop` to the workers (the window's Stop). The CLI
    /// leaves it false: its signal handler stops the launcher itself (`running`).
    bool forward_stop = true;
};

/// How a planned run ended.
struct PlannedRunEnd
{
    /// The run's end: Trainer::execute's, the local cluster's (LocalClusterEnd::end), or the
    /// one LocalWorkersFrontEnd::starting returned.
    RunFinished end;
    /// Local workers only (when they were started): how the cluster ended (failed rank, exit
    /// code, whether the chief reported its own end).
    std::optional<LocalClusterEnd> cluster;
};

/// Runs `plan` (planRun's result, Ready): as plan.local_workers.num_workers processes of
/// workers.executable on this machine (runLocalCluster, threadsPerLocalWorker threads each)
/// when plan.runsAsLocalWorkers(), else in this process (Trainer::execute). Reports through
/// `observer` (for local workers: the chief's decoded events, unless workers.chief_line takes
/// its lines) and polls `stop`; never calls observer.runFinished (the caller reports `end`,
/// once). Blocks until the run (every worker) ended; call it from the training thread, never
/// a GUI thread. Never throws.
PlannedRunEnd runPlanned(const PreparedRun &plan, TrainingObserver &observer, const StopToken &stop,
                         const LocalWorkersFrontEnd &workers);

} // namespace wb
