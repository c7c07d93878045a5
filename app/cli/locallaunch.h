// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/launch/runplanned.h"

#include <iosfwd>
#include <string>

namespace wb::cli {

/// How `train --distribution_strategy=multi_worker_mirrored --num_local_workers=N` (or
/// `mirrored --num_gpus=N`, N > 1) runs its plan's local workers with runPlanned: plan.num_workers
/// copies of this binary as workers on loopback (wb::LocalLauncher), each running `command` with
/// toCommandLineFlags(plan.worker) (and --progress_format=jsonl when `jsonl`: then every line
/// on `out` is a JSON event, ending with "finished"); "starting N local workers …" and the
/// chief's output on `out` as printed, every worker's errors on `err` ("[worker r] ...").
/// Ctrl+C reaches the workers through LocalWorkersInterrupt (forward_stop is off).
/// The streams must outlive the run.
LocalWorkersFrontEnd localWorkersFrontEnd(const std::string &command, bool jsonl, std::ostream &out,
                                          std::ostream &err);

/// While it lives, Ctrl+C stops the running local workers (localWorkersFrontEnd's launcher):
/// the first press after the current step (with a checkpoint), the second at once; each
/// says so on stderr. Restores the previous SIGINT handler. One at a time.
class LocalWorkersInterrupt
{
public:
    LocalWorkersInterrupt();
    ~LocalWorkersInterrupt();
    LocalWorkersInterrupt(const LocalWorkersInterrupt &) = delete;
    LocalWorkersInterrupt &operator=(const LocalWorkersInterrupt &) = delete;

private:
    void (*m_old)(int);
};

/// The exit code of a local cluster's run, after reporting: with `jsonl` a "finished" event
/// on `out` when the chief wrote none (killed, or another worker failed first); a worker that
/// could not start as an error on `err` (exit 1); a failed worker as "error: cluster: worker
/// rank r ..." with a hint (its code: 2 stays 2, else 1); else the chief's code (0, 130).
int localWorkersExitCode(const LocalClusterEnd &r, bool jsonl, std::ostream &out, std::ostream &err);

} // namespace wb::cli
