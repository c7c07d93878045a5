// SPDX-License-Identifier: Apache-2.0
#include "app/cli/locallaunch.h"

#include "app/cli/commands.h"
#include "app/cli/errors.h"
#include "core/io/runevents.h"

#include <atomic>
#include <csignal>
#include <ostream>
#include <unistd.h>

namespace wb::cli {

namespace {

std::atomic<LocalLauncher *> g_launcher{nullptr};
std::atomic<int> g_launcherInterrupts{0};

extern "C" void onLauncherInterrupt(int)
{
    if (LocalLauncher *l = g_launcher.load())
        l->requestStop(); // first: workers stop after the step; second: they quit at once
    static const char first[] = "\nstopping the workers after the current step (Ctrl+C again to quit at once)...\n";
    static const char again[] = "\nquitting: stopping the workers now, without a checkpoint...\n";
    if (g_launcherInterrupts.fetch_add(1) == 0)
        (void)!::write(STDERR_FILENO, first, sizeof first - 1);
    else
        (void)!::write(STDERR_FILENO, again, sizeof again - 1);
}

} // namespace

LocalWorkersFrontEnd localWorkersFrontEnd(const std::string &command, bool jsonl, std::ostream &out, std::ostream &err)
{
    LocalWorkersFrontEnd f;
    f.executable = currentExecutable();
    f.command = command;
    f.jsonl = jsonl;
    f.chief_line = [&out](const std::string &line) { out << line << "\n" << std::flush; };
    f.error_line = [&err](const std::string &line) { err << line << "\n" << std::flush; };
    f.running = &g_launcher;
    f.forward_stop = false; // LocalWorkersInterrupt stops the launcher itself
    f.starting = [&out, jsonl](const LocalWorkerPlan &plan) -> std::optional<RunFinished> {
        const std::string starting = "starting " + std::to_string(plan.num_workers) + " local worker"
                                     + (plan.num_workers == 1 ? "" : "s") + " (multi_worker_mirrored on 127.0.0.1"
                                     + (plan.worker.num_gpus == 1 ? ", one GPU each" : "") + "); showing the chief's output";
        out << (jsonl ? runEventLine(starting) : starting) << "\n" << std::flush;
        return std::nullopt;
    };
    return f;
}

LocalWorkersInterrupt::LocalWorkersInterrupt()
{
    g_launcherInterrupts = 0;
    m_old = std::signal(SIGINT, onLauncherInterrupt);
}

LocalWorkersInterrupt::~LocalWorkersInterrupt() { std::signal(SIGINT, m_old); }

int localWorkersExitCode(const LocalClusterEnd &r, bool jsonl, std::ostream &out, std::ostream &err)
{
    // jsonl: the stream must end with a "finished" event even when the chief could not
    // write one (killed, or another worker failed first).
    if (jsonl && !r.chief_finished)
        out << runEventLine(r.end) << "\n" << std::flush;
    if (r.launch_failed) {
        reportError(err, ErrorText{r.end.field, r.end.message, r.end.hint});
        return kExitRuntime;
    }
    if (r.launched.failed_rank >= 0) {
        err << "error: cluster: " << r.launched.message << "\n"
            << "  hint: the lines marked [worker " << r.launched.failed_rank
            << "] above (or the chief's own lines for worker 0) show why it failed\n";
        return r.launched.exit_code == kExitInvalid ? kExitInvalid : kExitRuntime;
    }
    return r.launched.exit_code;
}

} // namespace wb::cli
