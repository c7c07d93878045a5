// SPDX-License-Identifier: Apache-2.0
#pragma once

// Torch-free and Qt-free (POSIX): `sweep --max_concurrent_runs N` trains its runs with it.

#include "core/events/stoptoken.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace wb {

/// How the jobs of a RunPool go: `executable jobs[i]...` (argv[1..]), at most
/// `max_concurrent` at the same time, started in order.
struct RunPoolOptions
{
    std::string executable;                     ///< the program every job runs (the CLI: itself)
    std::vector<std::vector<std::string>> jobs; ///< each job's arguments
    int max_concurrent = 1;                     ///< ≥ 1
    /// Polled about every 100 ms; once requested, run() acts as if requestStop() was called
    /// once (the GUI's Stop). Optional; must outlive run().
    const StopToken *stop = nullptr;
};

/// The callbacks of RunPool::run, all called on run()'s thread.
struct RunPoolSinks
{
    std::function<void(size_t job)> started;                        ///< job's process was started
    std::function<void(size_t job, const std::string &line)> line; ///< one line of its stdout or stderr
    /// The job ended: its exit code (130 stopped; 1 when killed by a signal other than a
    /// forwarded SIGINT) and waitpid's status in words ("exited with code 0").
    std::function<void(size_t job, int exitCode, const std::string &how)> ended;
};

/// A pool of child processes: starts the jobs in order, up to max_concurrent at once; when one
/// ends, the next starts. Each child has this process's environment without the cluster
/// variables (environmentWithoutCluster), its own process group and a parent-death signal;
/// a job that fails does not stop the others. Output lines arrive as they come (the last
/// state of a "\r"-redrawn line).
///
/// Stop: requestStop() (any thread or a signal handler; it only counts) — the first starts no
/// further job and forwards SIGINT to every running child (a `train` stops after its step with
/// a checkpoint, exit 130), the second forwards another SIGINT (they quit at once). The jobs
/// never started are reported by notStarted().
///
/// Thread rules: run() blocks until every started child has ended; call it once.
class RunPool
{
public:
    explicit RunPool(RunPoolOptions options);

    /// Runs the jobs. Throws wb::Error("max_concurrent_runs", …) when a process cannot be
    /// started (the children already running are killed and reaped first).
    void run(const RunPoolSinks &sinks);
    void requestStop() { m_stopRequests.fetch_add(1); }
    /// After run(): the jobs not started because of a stop, in order.
    const std::vector<size_t> &notStarted() const { return m_notStarted; }

private:
    RunPoolOptions m_options;
    std::atomic<int> m_stopRequests{0};
    std::vector<size_t> m_notStarted;
};

} // namespace wb
