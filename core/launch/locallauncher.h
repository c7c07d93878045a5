// SPDX-License-Identifier: Apache-2.0
#pragma once

// Torch-free and Qt-free (POSIX): the CLI and the GUI both start local workers with it.

#include "core/config/localworkerplan.h"
#include "core/config/trainingoptions.h"
#include "core/events/stoptoken.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace wb {

/// What to start: `num_workers` copies of `executable args...` on this machine, wired
/// into one multi_worker_mirrored cluster on loopback.
struct LocalLaunchOptions
{
    std::string executable;        ///< the worker binary (the CLI: /proc/self/exe)
    std::vector<std::string> args; ///< argv[1..] of every worker (see planLocalWorkers)
    int num_workers = 2;
    int master_port = 0;           ///< rendezvous port on 127.0.0.1; 0 = a free one
    int threads_per_worker = 0;    ///< >0: append --num_threads=<n> unless args set it
    int kill_grace_seconds = 10;   ///< after SIGTERM, wait this long before SIGKILL
    /// Polled by run() about every 100 ms; once it is requested, run() acts as if
    /// requestStop() was called once (the GUI's Stop button). Optional; must outlive run().
    const StopToken *stop = nullptr;
};

/// How a local cluster ended.
struct LocalLaunchResult
{
    int exit_code = 0;     ///< 0 all done; the failing worker's code (1 when it was killed); 130 stopped
    int failed_rank = -1;  ///< the first worker that failed, -1 when none
    std::string message;   ///< "worker rank 1 (pid 1234) was killed by signal 9; stopped the other workers"
};

/// Runs a local multi-worker cluster: forks and execs every worker with RANK, WORLD_SIZE,
/// LOCAL_RANK, MASTER_ADDR=127.0.0.1 and MASTER_PORT set (TF_CONFIG removed), each in its
/// own process group and with a parent-death signal so none outlives the launcher.
///
/// Output: the chief's (rank 0) stdout and stderr lines go to the sinks as they arrive; the
/// other workers' stderr lines go to the stderr sink prefixed with "[worker r] "; their
/// stdout is dropped (the chief reports for the cluster). When any worker exits with a
/// non-zero status or a signal, the others get SIGTERM (SIGKILL after the grace period)
/// and the result names the first failed rank.
///
/// Thread rules: run() blocks until all workers ended; requestStop() may be called from
/// any thread or a signal handler (it only sets a flag): the first request forwards SIGINT
/// to every worker (each stops after the current step, the chief writes a checkpoint),
/// the second forwards another SIGINT (workers quit at once).
class LocalLauncher
{
public:
    using LineSink = std::function<void(const std::string &line)>;

    explicit LocalLauncher(LocalLaunchOptions options);
    ~LocalLauncher();

    /// Starts the workers and waits for them. Throws wb::Error when a worker cannot be
    /// started (fork/pipe failure); everything after that is reported in the result.
    LocalLaunchResult run(const LineSink &out, const LineSink &err);

    /// Asks the workers to stop (async-signal-safe).
    void requestStop() { m_stopRequests.fetch_add(1); }

    /// The rendezvous port the workers use (valid once run() started).
    int masterPort() const { return m_port; }

private:
    LocalLaunchOptions m_options;
    std::atomic<int> m_stopRequests{0};
    int m_port = 0;
};

/// The launch of `plan` with `executable`: every worker runs `command` (e.g. "train") with
/// toCommandLineFlags(plan.worker), plus --progress_format=jsonl when `jsonl`; each gets
/// `threadsPerWorker` intra-op threads unless the flags set --num_threads (pass
/// threadsPerLocalWorker(plan.num_workers) from core/engine/blascheck.h: libtorch's default
/// thread count shared among the workers; 0 leaves the workers' default).
LocalLaunchOptions workerLaunchOptions(const LocalWorkerPlan &plan, const std::string &executable,
                                       const std::string &command, bool jsonl, int threadsPerWorker);

/// Returns the path of the running executable (/proc/self/exe), or "" when unknown.
std::string currentExecutable();

} // namespace wb
