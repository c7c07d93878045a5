// SPDX-License-Identifier: Apache-2.0
#pragma once

// Torch-free and Qt-free (POSIX): the child processes of LocalLauncher (local workers) and
// ProcessPoolExecutor (a sweep's runs at the same time, runexecutor.h), with RAII for their
// pipes and processes.

#include "core/util/uniquefd.h"

#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace wb {

/// One child process. Owns the read ends of its pipes, and the child itself: a ChildProcess
/// destroyed while its process still runs (an exception, an early return) kills it with
/// SIGKILL and reaps it, so no launch leaves orphans or zombies behind.
struct ChildProcess
{
    int index = 0; ///< a local worker's rank; a ProcessPoolExecutor job's index
    pid_t pid = -1;
    UniqueFd out;  ///< read end of the child's stdout
    UniqueFd err;  ///< read end of the child's stderr
    std::string outBuf, errBuf;
    bool running = false;
    int status = 0; ///< waitpid's status once it exited

    ChildProcess() = default;
    ChildProcess(const ChildProcess &) = delete;
    ChildProcess &operator=(const ChildProcess &) = delete;
    ~ChildProcess();
};

/// Starts `executable args...` with exactly the environment `env` ("KEY=value"), its stdout
/// and stderr on non-blocking pipes that `c` reads, in its own process group (a terminal's
/// Ctrl+C reaches only this process, which forwards stops) and with a parent-death SIGTERM.
/// Everything is prepared before fork(); the child makes only async-signal-safe calls.
/// Throws wb::Error(`field`, "could not … `what` …", `hint`) when no pipe or process can be made.
void startChild(ChildProcess &c, const std::string &executable, std::vector<std::string> args,
                std::vector<std::string> env, const std::string &field, const std::string &what,
                const std::string &hint);

/// Reads what is available on the non-blocking `fd` into `buf`; closes the fd at end of file.
void drainPipe(UniqueFd &fd, std::string &buf);

/// Waits up to 100 ms until one of the pipe read ends `fds` has something to read (poll), or
/// 50 ms when `fds` is empty.
void waitForReadable(const std::vector<int> &fds);

/// Waits up to 100 ms until an open pipe of `children` (ChildProcess objects in any container)
/// has output, or 50 ms when none of them has an open pipe (waitForReadable).
template <typename Children>
void waitForOutput(const Children &children)
{
    std::vector<int> fds;
    for (const ChildProcess &c : children)
        for (const UniqueFd *pipe : {&c.out, &c.err})
            if (pipe->valid())
                fds.push_back(pipe->get());
    waitForReadable(fds);
}

/// Emits the complete lines of `buf` to `sink` with `prefix` (keeps the incomplete tail;
/// `flush` emits the tail too). A line redrawn with "\r" (a progress bar) keeps its last
/// state; an empty line is dropped when `prefix` is not empty. `sink` may be empty (dropped).
void emitLines(std::string &buf, const std::function<void(const std::string &)> &sink, const std::string &prefix,
               bool flush);

/// waitpid's `status` in words: "exited with code 2", "was killed by signal 9 (Killed)".
std::string describeExitStatus(int status);

/// The environment of this process without the variables that describe a cluster (TF_CONFIG,
/// RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT): a child that is not a worker of
/// it must not join one.
std::vector<std::string> environmentWithoutCluster();

} // namespace wb
