// SPDX-License-Identifier: Apache-2.0
#include "core/launch/locallauncher.h"

#include "core/launch/childprocess.h"
#include "core/config/optionwords.h"

#include "core/util/error.h"
#include "core/util/tcpport.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

namespace wb {

namespace {

using Clock = std::chrono::steady_clock;
using Worker = ChildProcess;

bool succeeded(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }
bool stoppedByUser(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 130; }

/// The workers' flags: the launcher's, plus --num_threads when it sets the threads.
std::vector<std::string> workerArgs(const LocalLaunchOptions &o)
{
    std::vector<std::string> args = o.args;
    bool hasThreads = false;
    for (const auto &a : args)
        if (a.rfind("--num_threads", 0) == 0)
            hasThreads = true;
    if (o.threads_per_worker > 0 && !hasThreads)
        args.push_back("--num_threads=" + std::to_string(o.threads_per_worker));
    return args;
}

/// The environment shared by all `n` workers: this process's, without its own rendezvous
/// variables, plus WORLD_SIZE and the master at 127.0.0.1:`port`.
std::vector<std::string> workerEnvironment(int n, int port)
{
    std::vector<std::string> env = environmentWithoutCluster();
    env.push_back("WORLD_SIZE=" + std::to_string(n));
    env.push_back("MASTER_ADDR=127.0.0.1");
    env.push_back("MASTER_PORT=" + std::to_string(port));
    return env;
}

/// Starts worker `w.index` (its rank) with `env` plus its RANK/LOCAL_RANK (startChild).
void startWorker(Worker &w, const std::string &executable, std::vector<std::string> args, std::vector<std::string> env)
{
    env.push_back("RANK=" + std::to_string(w.index));
    env.push_back("LOCAL_RANK=" + std::to_string(w.index));
    startChild(w, executable, std::move(args), std::move(env), "num_local_workers",
               "worker " + std::to_string(w.index), "lower " + optionName("num_local_workers") + " or free memory");
}

/// Watches running workers until every one has exited and its pipes are drained: forwards
/// their lines (rank 0's stdout plain, the others' prefixed; everyone's stderr), forwards stop
/// requests as SIGINT (twice at most), and when one fails stops the others (SIGTERM, then
/// SIGKILL after the grace period).
class Supervisor
{
public:
    Supervisor(std::vector<Worker> &workers, const LocalLauncher::LineSink &out, const LocalLauncher::LineSink &err,
               int killGraceSeconds)
        : m_workers(workers), m_out(out), m_err(err), m_grace(killGraceSeconds)
    {
    }

    bool anyOpen() const
    {
        for (const auto &w : m_workers)
            if (w.running || w.out.valid() || w.err.valid())
                return true;
        return false;
    }

    /// Waits up to 100 ms for output and forwards the complete lines.
    void pumpOutput()
    {
        waitForOutput(m_workers);
        for (auto &w : m_workers) {
            drainPipe(w.out, w.outBuf);
            drainPipe(w.err, w.errBuf);
            const std::string prefix = w.index == 0 ? std::string() : "[worker " + std::to_string(w.index) + "] ";
            emitLines(w.outBuf, w.index == 0 ? m_out : LocalLauncher::LineSink(), prefix, !w.out.valid());
            emitLines(w.errBuf, m_err, prefix, !w.err.valid());
        }
    }

    /// Sends SIGINT for each of the first two of `stops` requests not forwarded yet.
    void forwardStops(int stops)
    {
        while (m_forwardedStops < stops && m_forwardedStops < 2) {
            killAll(SIGINT);
            ++m_forwardedStops;
        }
    }

    /// Reaps the workers that exited; the first failure (not a stop) is the result's.
    void reapExits(LocalLaunchResult &result)
    {
        for (auto &w : m_workers) {
            if (!w.running)
                continue;
            int status = 0;
            if (::waitpid(w.pid, &status, WNOHANG) != w.pid)
                continue;
            w.running = false;
            w.status = status;
            const bool interrupted = m_forwardedStops > 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGINT;
            if (succeeded(status) || stoppedByUser(status) || interrupted || result.failed_rank >= 0 || m_termPending)
                continue;
            result.failed_rank = w.index;
            result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
            result.message = "worker rank " + std::to_string(w.index) + " (pid " + std::to_string(w.pid) + ") "
                             + describeExitStatus(status);
            bool others = false;
            for (const auto &o : m_workers)
                others = others || o.running;
            if (others) {
                result.message += "; stopped the other workers";
                killAll(SIGTERM);
                m_termSent = Clock::now();
                m_termPending = true;
            }
        }
        if (m_termPending && Clock::now() - m_termSent > std::chrono::seconds(m_grace))
            killAll(SIGKILL);
    }

    /// The result when no worker failed: stopped (exit 130) or finished.
    void finish(LocalLaunchResult &result) const
    {
        if (result.failed_rank >= 0)
            return;
        bool stopped = false;
        for (const auto &w : m_workers)
            stopped = stopped || stoppedByUser(w.status);
        if (stopped || m_forwardedStops > 0) {
            result.exit_code = 130;
            result.message = "stopped by the user";
        } else {
            result.message = std::to_string(m_workers.size()) + " worker(s) finished";
        }
    }

private:
    void killAll(int sig)
    {
        for (auto &w : m_workers)
            if (w.running)
                ::kill(w.pid, sig);
    }

    std::vector<Worker> &m_workers;
    const LocalLauncher::LineSink &m_out, &m_err;
    int m_grace;
    int m_forwardedStops = 0;
    Clock::time_point m_termSent{};
    bool m_termPending = false;
};

} // namespace

LocalLauncher::LocalLauncher(LocalLaunchOptions options) : m_options(std::move(options)) {}
LocalLauncher::~LocalLauncher() = default;

LocalLaunchResult LocalLauncher::run(const LineSink &out, const LineSink &err)
{
    const int n = m_options.num_workers;
    if (n < 1)
        throw Error("num_local_workers", "num_local_workers must be at least 1");
    if (m_options.executable.empty())
        throw Error("num_local_workers", "the worker executable is unknown", "run bert-workbench-cli by its path");
    m_port = m_options.master_port > 0 ? m_options.master_port : pickFreeTcpPort();

    const std::vector<std::string> args = workerArgs(m_options);
    const std::vector<std::string> env = workerEnvironment(n, m_port);
    std::vector<Worker> workers(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) {
        workers[size_t(r)].index = r;
        startWorker(workers[size_t(r)], m_options.executable, args, env);
    }

    LocalLaunchResult result;
    Supervisor supervisor(workers, out, err, m_options.kill_grace_seconds);
    bool polledStop = false;
    while (supervisor.anyOpen()) {
        supervisor.pumpOutput();
        // Stop requests (Ctrl+C, GUI stop button).
        if (m_options.stop && !polledStop && m_options.stop->stopRequested()) {
            polledStop = true;
            requestStop();
        }
        supervisor.forwardStops(m_stopRequests.load());
        supervisor.reapExits(result);
    }
    supervisor.finish(result);
    return result;
}

LocalLaunchOptions workerLaunchOptions(const LocalWorkerPlan &plan, const std::string &executable,
                                       const std::string &command, bool jsonl, int threadsPerWorker)
{
    LocalLaunchOptions o;
    o.executable = executable;
    o.args.push_back(command);
    for (const std::string &flag : toCommandLineFlags(plan.worker))
        o.args.push_back(flag);
    if (jsonl)
        o.args.push_back("--progress_format=jsonl");
    o.num_workers = plan.num_workers;
    o.threads_per_worker = threadsPerWorker;
    return o;
}

std::string currentExecutable()
{
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return {};
    return std::string(buf, size_t(n));
}

} // namespace wb
