// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"
#include "core/launch/runplanned.h"
#include "core/engine/preparedrun.h"

#include <string>

namespace wb {

/// Where the GUI finds the worker binary, bert-workbench-cli: $BERT_WORKBENCH_CLI when set,
/// else beside the running executable, else on the PATH. Returns "" when none is found.
std::string findWorkerExecutable();

/// A worker's stderr line as the window's Log shows it: the CLI's "(Ctrl+C again to quit at
/// once)" hint (the workers' answer to the window's Stop, a SIGINT) is left out. Pure.
std::string workerLineForWindow(std::string line);

/// How the window runs a plan's local workers with runPlanned (core/launch/runplanned.h):
/// `train <toCommandLineFlags(plan.worker)> --progress_format=jsonl` in each process of
/// `workerExecutable`; the chief's decoded events go to runPlanned's observer, every worker's
/// stderr line to `observer`'s Log (workerLineForWindow); a Log line before they start, or,
/// with no worker program (""), a Failed end naming it and how to fix it (field
/// "num_local_workers"). `observer` must outlive the run.
LocalWorkersFrontEnd windowLocalWorkers(TrainingObserver &observer, const std::string &workerExecutable);

/// runPlanned(run, observer, stop, windowLocalWorkers(observer, workerExecutable)).end: trains
/// `run` (prepared for Train, run.local_workers planned) on its num_workers processes
/// of `workerExecutable` on this machine (issue 6: the GUI's "Local workers: N"). Each worker runs
/// `train <toCommandLineFlags(plan.worker)> --progress_format=jsonl` under wb::LocalLauncher; the
/// chief's JSON events are decoded and forwarded to `observer` (so the plot shows the
/// chief's curves), its other output and every worker's stderr ("[worker r] …") become log
/// lines. A stop request on `stop` is forwarded to all workers (the chief writes a
/// checkpoint; the run ends Cancelled).
///
/// Returns how the cluster ended: the chief's own result, or Failed with field "cluster"
/// naming the first failed worker (rank, pid, exit status) when one failed or could not
/// be started. Does not call observer.runFinished (the caller reports the result).
/// Thread rules: blocks until every worker ended; call it from the training thread.
/// Never throws.
RunFinished runLocalWorkers(const PreparedRun &run, TrainingObserver &observer, const StopToken &stop,
                            const std::string &workerExecutable);

} // namespace wb
