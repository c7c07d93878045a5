// SPDX-License-Identifier: Apache-2.0
#pragma once

// Torch-free and Qt-free (POSIX): how the runs of a sweep are trained, one interface for the
// CLI and the window.

#include "core/events/stoptoken.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace wb {

/// One run for a RunExecutor: its name ("run-002") and `train`'s arguments (without the
/// command; its own --model_dir among them).
struct RunJob
{
    std::string name;
    std::vector<std::string> args;
};

/// The callbacks of RunExecutor::run, each called on the thread that drives the executor (the
/// caller of run() for the CLI's; the GUI thread for the window's). Any may be empty.
struct RunExecutorSinks
{
    std::function<void(size_t job)> started;                        ///< jobs[job] starts
    std::function<void(size_t job, const std::string &line)> line; ///< a line of its output (child processes)
    /// jobs[job] ended: `train`'s exit code (0 completed, 130 stopped, else failed) and how, in
    /// words ("exited with code 0").
    std::function<void(size_t job, int exitCode, const std::string &how)> ended;
    /// Every job started has ended and no other will start (the last call).
    std::function<void()> finished;
};

/// Trains a list of runs. Implementations: SequentialExecutor (in this process, one after
/// another: the CLI's `sweep`), ProcessPoolExecutor (N `train` child processes at the same time:
/// `sweep --max_concurrent_runs N`) and the window's RunQueue (ui/window/runqueue.h: one after
/// another through the window's run control). A blocking executor returns from run() after
/// sinks.finished; an asynchronous one (the window's) returns at once and calls the sinks
/// later. requestStop(): start no further job and stop those going on (each `train` stops
/// after its step with a checkpoint, exit 130); notStarted() then lists the jobs never started.
class RunExecutor
{
public:
    virtual ~RunExecutor() = default;
    /// Trains `jobs` in order. Call once per executor. Throws wb::Error when a job cannot be
    /// started at all (ProcessPoolExecutor: the program is missing).
    virtual void run(std::vector<RunJob> jobs, RunExecutorSinks sinks) = 0;
    /// Any thread (or a signal handler for the CLI's executors: it only counts).
    virtual void requestStop() = 0;
    /// After sinks.finished: the jobs not started because of a stop (or a failure, for
    /// executors that stop at one), in order.
    virtual std::vector<size_t> notStarted() const = 0;
};

/// In this process, one after another: `train(job)` trains one run and returns its exit code.
/// After a run that returns 130 (stopped: Ctrl+C), or once requestStop() or `stop` was seen,
/// no further run starts. A failed run does not stop the others.
class SequentialExecutor : public RunExecutor
{
public:
    explicit SequentialExecutor(std::function<int(const RunJob &)> train, const StopToken *stop = nullptr);
    void run(std::vector<RunJob> jobs, RunExecutorSinks sinks) override;
    void requestStop() override { m_stopRequested.store(true); }
    std::vector<size_t> notStarted() const override { return m_notStarted; }

private:
    std::function<int(const RunJob &)> m_train;
    const StopToken *m_stop;
    std::atomic<bool> m_stopRequested{false};
    std::vector<size_t> m_notStarted;
};

/// Up to `maxConcurrent` jobs at the same time, each `executable train <args>` in a child
/// process (RunPool, core/launch/runpool.h: its environment, process groups, parent-death
/// signal and stop rules); each child's output lines arrive through sinks.line. `stop`
/// (optional; polled about every 100 ms) acts as requestStop(). Blocking.
class ProcessPoolExecutor : public RunExecutor
{
public:
    ProcessPoolExecutor(std::string executable, int maxConcurrent, const StopToken *stop = nullptr);
    void run(std::vector<RunJob> jobs, RunExecutorSinks sinks) override;
    void requestStop() override { m_stopRequests.fetch_add(1); }
    std::vector<size_t> notStarted() const override { return m_notStarted; }

private:
    std::string m_executable;
    int m_maxConcurrent;
    const StopToken *m_stop;
    std::atomic<int> m_stopRequests{0};
    std::vector<size_t> m_notStarted;
};

} // namespace wb
