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

    std::vector<std::string> args = m_options.args;
    bool hasThreads = false;
    for (const auto &a : args)
        if (a.rfind("--num_threads", 0) == 0)
            hasThreads = true;
    if (m_options.threads_per_worker > 0 && !hasThreads)
        args.push_back("--num_threads=" + std::to_string(m_options.threads_per_worker));

    // Environment shared by all workers (everything prepared before fork()).
    std::vector<std::string> baseEnv;
    for (char **e = environ; e && *e; ++e) {
        const std::string kv = *e;
        const std::string key = kv.substr(0, kv.find('='));
        if (key == "TF_CONFIG" || key == "RANK" || key == "WORLD_SIZE" || key == "LOCAL_RANK" || key == "MASTER_ADDR"
            || key == "MASTER_PORT")
            continue;
        baseEnv.push_back(kv);
    }
    baseEnv.push_back("WORLD_SIZE=" + std::to_string(n));
    baseEnv.push_back("MASTER_ADDR=127.0.0.1");
    baseEnv.push_back("MASTER_PORT=" + std::to_string(m_port));

    std::vector<Worker> workers(static_cast<size_t>(n));
    auto killAll = [&](int sig) {
        for (auto &w : workers)
            if (w.running)
                ::kill(w.pid, sig);
    };

    for (int r = 0; r < n; ++r) {
        Worker &w = workers[size_t(r)];
        w.rank = r;
        std::vector<std::string> env = baseEnv;
        env.push_back("RANK=" + std::to_string(r));
        env.push_back("LOCAL_RANK=" + std::to_string(r));
        std::vector<char *> envp, argv;
        for (auto &e : env)
            envp.push_back(e.data());
        envp.push_back(nullptr);
        std::string exe = m_options.executable;
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

    LocalLaunchResult result;
    int forwardedStops = 0;
    bool polledStop = false;
    Clock::time_point termSent{};
    bool termPending = false;
    auto anyOpen = [&] {
        for (const auto &w : workers)
            if (w.running || w.out.valid() || w.err.valid())
                return true;
        return false;
    };
    while (anyOpen()) {
        // Output.
        std::vector<pollfd> fds;
        for (const auto &w : workers) {
            if (w.out.valid())
                fds.push_back(pollfd{w.out.get(), POLLIN, 0});
            if (w.err.valid())
                fds.push_back(pollfd{w.err.get(), POLLIN, 0});
        }
        if (!fds.empty())
            ::poll(fds.data(), fds.size(), 100);
        else
            ::usleep(50 * 1000);
        for (auto &w : workers) {
            drain(w.out, w.outBuf);
            drain(w.err, w.errBuf);
            const std::string prefix = w.rank == 0 ? std::string() : "[worker " + std::to_string(w.rank) + "] ";
            emitLines(w.outBuf, w.rank == 0 ? out : LineSink(), prefix, !w.out.valid());
            emitLines(w.errBuf, err, prefix, !w.err.valid());
        }
        // Stop requests (Ctrl+C, GUI stop button).
        if (m_options.stop && !polledStop && m_options.stop->stopRequested()) {
            polledStop = true;
            requestStop();
        }
        const int stops = m_stopRequests.load();
        while (forwardedStops < stops && forwardedStops < 2) {
            killAll(SIGINT);
            ++forwardedStops;
        }
        // Exits.
        for (auto &w : workers) {
            if (!w.running)
                continue;
            int status = 0;
            const pid_t got = ::waitpid(w.pid, &status, WNOHANG);
            if (got != w.pid)
                continue;
            w.running = false;
            w.status = status;
            const bool interrupted = forwardedStops > 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGINT;
            if (!succeeded(status) && !stoppedByUser(status) && !interrupted && result.failed_rank < 0 && !termPending) {
                result.failed_rank = w.rank;
                result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
                result.message = "worker rank " + std::to_string(w.rank) + " (pid " + std::to_string(w.pid) + ") "
                                 + describeStatus(status);
                bool others = false;
                for (const auto &o : workers)
                    others = others || o.running;
                if (others) {
                    result.message += "; stopped the other workers";
                    killAll(SIGTERM);
                    termSent = Clock::now();
                    termPending = true;
                }
            }
        }
        if (termPending && Clock::now() - termSent > std::chrono::seconds(m_options.kill_grace_seconds))
            killAll(SIGKILL);
    }
    if (result.failed_rank < 0) {
        bool stopped = false;
        for (const auto &w : workers)
            stopped = stopped || stoppedByUser(w.status);
        if (stopped || forwardedStops > 0) {
            result.exit_code = 130;
            result.message = "stopped by the user";
        } else {
            result.message = std::to_string(n) + " worker(s) finished";
        }
    }
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
