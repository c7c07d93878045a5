// SPDX-License-Identifier: Apache-2.0
#include "core/launch/childprocess.h"

#include "core/util/error.h"

#include <cerrno>
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

ChildProcess::~ChildProcess()
{
    if (running && pid > 0) {
        ::kill(pid, SIGKILL);
        int ignored = 0;
        while (::waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
        }
    }
}

void startChild(ChildProcess &c, const std::string &executable, std::vector<std::string> args,
                std::vector<std::string> env, const std::string &field, const std::string &what,
                const std::string &hint)
{
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
    if (!outOk || !errOk) // the ChildProcess destructors kill and reap the children started so far
        throw Error(field, "could not create a pipe for " + what + ": " + std::strerror(errno));
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
        throw Error(field, "could not start " + what + ": " + why, hint);
    }
    if (pid == 0) {
        // Child: only async-signal-safe calls from here on.
        for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2})
            ::signal(sig, SIG_DFL);
        sigset_t none;
        ::sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::setpgid(0, 0); // terminal Ctrl+C reaches the parent only; it forwards stops
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
    c.pid = pid;
    c.running = true;
    outWrite.reset(); // the parent keeps only the read ends
    errWrite.reset();
    c.out = std::move(outRead);
    c.err = std::move(errRead);
    ::fcntl(c.out.get(), F_SETFL, ::fcntl(c.out.get(), F_GETFL) | O_NONBLOCK);
    ::fcntl(c.err.get(), F_SETFL, ::fcntl(c.err.get(), F_GETFL) | O_NONBLOCK);
}

void emitLines(std::string &buf, const std::function<void(const std::string &)> &sink, const std::string &prefix,
               bool flush)
{
    size_t start = 0;
    for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1) {
        std::string line = buf.substr(start, nl - start);
        // A progress bar redraws with "\r": keep the last state of the line.
        if (const auto cr = line.rfind('\r'); cr != std::string::npos)
            line = line.substr(cr + 1);
        if (line.empty() && !prefix.empty())
            continue; // a child's blank line says nothing once prefixed
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

void drainPipe(UniqueFd &fd, std::string &buf)
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

void waitForReadable(const std::vector<int> &fds)
{
    std::vector<pollfd> polled;
    for (const int fd : fds)
        polled.push_back(pollfd{fd, POLLIN, 0});
    if (!polled.empty())
        ::poll(polled.data(), polled.size(), 100);
    else
        ::usleep(50 * 1000);
}

std::string describeExitStatus(int status)
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

std::vector<std::string> environmentWithoutCluster()
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
    return env;
}

} // namespace wb
