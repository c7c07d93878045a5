// SPDX-License-Identifier: Apache-2.0
#include "core/launch/locallauncher.h"

#include "core/util/error.h"
#include "core/util/tcpport.h"
#include "core/util/uniquefd.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace wb {

namespace {

using Clock = std::chrono::steady_clock;

/// One worker process. Owns the read ends of its pipes, and the child itself: a Worker
/// destroyed while its process still runs (an exception, an early return) kills it with
/// SIGKILL and reaps it, so no launch leaves orphans or zombies behind.
struct Worker
{
    int rank = 0;
    pid_t pid = -1;
    UniqueFd out; ///< read end of the worker's stdout
    UniqueFd err; ///< read end of the worker's stderr
    std::string outBuf, errBuf;
    bool running = false;
    int status = 0;

    Worker() = default;
    Worker(const Worker &) = delete;
    Worker &operator=(const Worker &) = delete;
    ~Worker()
    {
        if (running && pid > 0) {
            ::kill(pid, SIGKILL);
            int ignored = 0;
            while (::waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
            }
        }
    }
};

/// Emits the complete lines of `buf` (keeps the incomplete tail); `flush` emits the tail too.
void emitLines(std::string &buf, const LocalLauncher::LineSink &sink, const std::string &prefix, bool flush)
{
    size_t start = 0;
    for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1) {
        std::string line = buf.substr(start, nl - start);
        // A progress bar redraws with "\r": keep the last state of the line.
        if (const auto cr = line.rfind('\r'); cr != std::string::npos)
            line = line.substr(cr + 1);
        if (line.empty() && !prefix.empty())
            continue; // a worker's blank line says nothing once prefixed
        if (sink)
            sink(prefix + line);
    }
    buf.erase(0, start);
    if (flush && !buf.empty()) {
        if (sink)
            sink(prefix + buf);
        buf.clear();
    }
}

/// Reads what is available on `fd` into `buf`; closes the fd at end of file.
void drain(UniqueFd &fd, std::string &buf)
{
    char chunk[4096];
    while (fd.valid()) {
        const ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
        if (n > 0) {
            buf.append(chunk, size_t(n));
            continue;
        }
        if (n < 0 && (errno == EINTR))
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        fd.reset();
    }
}

std::string describeStatus(int status)
{
    if (WIFEXITED(status))
        return "exited with code " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char *name = ::strsignal(sig);
        return "was killed by signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : std::string());
    }
    return "ended with status " + std::to_string(status);
}

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
    std::vector<std::string> env;
    for (char **e = environ; e && *e; ++e) {
        const std::string kv = *e;
        const std::string key = kv.substr(0, kv.find('='));
        if (key == "TF_CONFIG" || key == "RANK" || key == "WORLD_SIZE" || key == "LOCAL_RANK" || key == "MASTER_ADDR"
            || key == "MASTER_PORT")
            continue;
        env.push_back(kv);
    }
    env.push_back("WORLD_SIZE=" + std::to_string(n));
    env.push_back("MASTER_ADDR=127.0.0.1");
    env.push_back("MASTER_PORT=" + std::to_string(port));
    return env;
}

/// Starts worker `w.rank` as `exe args` with `baseEnv` plus its RANK/LOCAL_RANK, its stdout
/// and stderr on non-blocking pipes that `w` reads. Everything is prepared before fork(); the
/// child makes only async-signal-safe calls. Throws wb::Error when no pipe or process can be made.
void startWorker(Worker &w, const std::string &executable, std::vector<std::string> args, std::vector<std::string> env)
{
    const int r = w.rank;
    env.push_back("RANK=" + std::to_string(r));
    env.push_back("LOCAL_RANK=" + std::to_string(r));
    std::vector<char *> envp, argv;
    for (auto &e : env)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string exe = executable;
    argv.push_back(exe.data());
    for (auto &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    int outPipe[2] = {-1, -1}, errPipe[2] = {-1, -1};
    const bool outOk = ::pipe2(outPipe, O_CLOEXEC) == 0;
    const bool errOk = outOk && ::pipe2(errPipe, O_CLOEXEC) == 0;
    UniqueFd outRead(outPipe[0]), outWrite(outPipe[1]), errRead(errPipe[0]), errWrite(errPipe[1]);
    if (!outOk || !errOk) // the Worker destructors kill and reap the workers started so far
        throw Error("num_local_workers",
                    "could not create a pipe for worker " + std::to_string(r) + ": " + std::strerror(errno));
    const pid_t parent = ::getpid();
    // Block signals across fork(): the child must not run this process's handlers
    // (e.g. a SIGTERM from killAll arriving before execve); it resets them first.
    sigset_t all, previous;
    ::sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &previous);
    const pid_t pid = ::fork();
    if (pid != 0)
        ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    if (pid < 0) {
        const std::string why = std::strerror(errno);
        throw Error("num_local_workers", "could not start worker " + std::to_string(r) + ": " + why,
                    "lower --num_local_workers or free memory");
    }
    if (pid == 0) {
        // Child: only async-signal-safe calls from here on.
        for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2})
            ::signal(sig, SIG_DFL);
        sigset_t none;
        ::sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::setpgid(0, 0); // terminal Ctrl+C reaches the launcher only; it forwards stops
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent)
            ::_exit(1);
        ::dup2(outWrite.get(), STDOUT_FILENO);
        ::dup2(errWrite.get(), STDERR_FILENO);
        ::execve(exe.c_str(), argv.data(), envp.data());
        static const char msg[] = "could not execute the worker binary\n";
        (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
        ::_exit(127);
    }
    w.pid = pid;
    w.running = true;
    outWrite.reset(); // the parent keeps only the read ends
    errWrite.reset();
    w.out = std::move(outRead);
    w.err = std::move(errRead);
    ::fcntl(w.out.get(), F_SETFL, ::fcntl(w.out.get(), F_GETFL) | O_NONBLOCK);
    ::fcntl(w.err.get(), F_SETFL, ::fcntl(w.err.get(), F_GETFL) | O_NONBLOCK);
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
        std::vector<pollfd> fds;
        for (const auto &w : m_workers) {
            if (w.out.valid())
                fds.push_back(pollfd{w.out.get(), POLLIN, 0});
            if (w.err.valid())
                fds.push_back(pollfd{w.err.get(), POLLIN, 0});
        }
        if (!fds.empty())
            ::poll(fds.data(), fds.size(), 100);
        else
            ::usleep(50 * 1000);
        for (auto &w : m_workers) {
            drain(w.out, w.outBuf);
            drain(w.err, w.errBuf);
            const std::string prefix = w.rank == 0 ? std::string() : "[worker " + std::to_string(w.rank) + "] ";
            emitLines(w.outBuf, w.rank == 0 ? m_out : LocalLauncher::LineSink(), prefix, !w.out.valid());
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
            result.failed_rank = w.rank;
            result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
            result.message = "worker rank " + std::to_string(w.rank) + " (pid " + std::to_string(w.pid) + ") "
                             + describeStatus(status);
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
        workers[size_t(r)].rank = r;
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
