// SPDX-License-Identifier: Apache-2.0
// The CLI's executors of a sweep's runs: one after another in this process, or N child
// processes at the same time.
#include "core/launch/runexecutor.h"

#include "core/launch/childprocess.h"
#include "core/config/optionwords.h"
#include "core/util/error.h"

#include <csignal>
#include <list>
#include <sys/wait.h>

namespace wb {

SequentialExecutor::SequentialExecutor(std::function<int(const RunJob &)> train, const StopToken *stop)
    : m_train(std::move(train)), m_stop(stop)
{
}

void SequentialExecutor::run(std::vector<RunJob> jobs, RunExecutorSinks sinks)
{
    size_t next = 0;
    for (; next < jobs.size(); ++next) {
        if (m_stopRequested.load() || (m_stop && m_stop->stopRequested()))
            break;
        if (sinks.started)
            sinks.started(next);
        const int code = m_train(jobs[next]);
        if (sinks.ended)
            sinks.ended(next, code, "exited with code " + std::to_string(code));
        if (code == 130) {
            ++next;
            break;
        }
    }
    for (size_t j = next; j < jobs.size(); ++j)
        m_notStarted.push_back(j);
    if (sinks.finished)
        sinks.finished();
}

ProcessPoolExecutor::ProcessPoolExecutor(std::string executable, int maxConcurrent, const StopToken *stop)
    : m_executable(std::move(executable)), m_maxConcurrent(maxConcurrent), m_stop(stop)
{
}

namespace {

/// Sends SIGINT to every running child once per stop request not yet passed on (at most two:
/// the second makes `train` quit at once).
void forwardStops(std::list<ChildProcess> &running, int requested, int &forwarded)
{
    while (forwarded < requested && forwarded < 2) {
        for (ChildProcess &c : running)
            if (c.running)
                ::kill(c.pid, SIGINT);
        ++forwarded;
    }
}

/// Passes each child's complete lines to sinks.line and reaps it: true when it has exited
/// and both its pipes are closed (then `code` is `train`'s exit code, 130 for a forwarded stop).
bool drainAndReap(ChildProcess &c, const RunExecutorSinks &sinks, bool stopsForwarded, int &code)
{
    const auto lineSink = [&sinks, job = size_t(c.index)](const std::string &l) {
        if (sinks.line)
            sinks.line(job, l);
    };
    drainPipe(c.out, c.outBuf);
    drainPipe(c.err, c.errBuf);
    emitLines(c.outBuf, lineSink, std::string(), !c.out.valid());
    emitLines(c.errBuf, lineSink, std::string(), !c.err.valid());
    if (c.running) {
        int status = 0;
        if (::waitpid(c.pid, &status, WNOHANG) == c.pid) {
            c.running = false;
            c.status = status;
        }
    }
    if (c.running || c.out.valid() || c.err.valid())
        return false;
    const bool interrupted = stopsForwarded && WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGINT;
    code = WIFEXITED(c.status) ? WEXITSTATUS(c.status) : interrupted ? 130 : 1;
    return true;
}

} // namespace

void ProcessPoolExecutor::run(std::vector<RunJob> jobs, RunExecutorSinks sinks)
{
    if (m_maxConcurrent < 1)
        throw Error("max_concurrent_runs", "must be at least 1, got " + std::to_string(m_maxConcurrent));
    if (m_executable.empty())
        throw Error("max_concurrent_runs", "the program to run is unknown", "run bert-workbench-cli by its path");
    const std::vector<std::string> env = environmentWithoutCluster();
    std::list<ChildProcess> running; // std::list: a ChildProcess does not move
    size_t next = 0;
    int forwardedStops = 0;
    bool polledStop = false;
    for (;;) {
        if (m_stop && !polledStop && m_stop->stopRequested()) {
            polledStop = true;
            requestStop();
        }
        forwardStops(running, m_stopRequests.load(), forwardedStops);
        while (forwardedStops == 0 && next < jobs.size() && int(running.size()) < m_maxConcurrent) {
            running.emplace_back();
            ChildProcess &c = running.back();
            c.index = int(next);
            std::vector<std::string> argv{"train"};
            argv.insert(argv.end(), jobs[next].args.begin(), jobs[next].args.end());
            startChild(c, m_executable, argv, env, "max_concurrent_runs", "run " + std::to_string(next + 1),
                       "lower " + optionName("max_concurrent_runs") + " or free memory");
            if (sinks.started)
                sinks.started(next);
            ++next;
        }
        if (running.empty())
            break;
        waitForOutput(running);
        for (auto it = running.begin(); it != running.end();) {
            int code = 0;
            if (!drainAndReap(*it, sinks, forwardedStops > 0, code)) {
                ++it;
                continue;
            }
            if (sinks.ended)
                sinks.ended(size_t(it->index), code, describeExitStatus(it->status));
            it = running.erase(it);
        }
    }
    for (size_t j = next; j < jobs.size(); ++j)
        m_notStarted.push_back(j);
    if (sinks.finished)
        sinks.finished();
}

} // namespace wb
