// SPDX-License-Identifier: Apache-2.0
#include "app/cli/locallaunch.h"

#include "app/cli/commands.h"
#include "app/cli/errors.h"
#include "core/launch/chiefstream.h"
#include "core/launch/locallauncher.h"
#include "core/io/runevents.h"
#include "core/train/blascheck.h"
#include "core/util/error.h"

#include <algorithm>
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

int runLocalWorkers(const std::string &command, const LocalWorkerPlan &plan, const std::string &progressFormat,
                    std::ostream &out, std::ostream &err)
{
    const bool jsonl = progressFormat == "jsonl";
    LocalLauncher launcher(workerLaunchOptions(plan, currentExecutable(), command, jsonl,
                                                 threadsPerLocalWorker(plan.num_workers)));
    const std::string starting = "starting " + std::to_string(plan.num_workers) + " local worker"
                                 + (plan.num_workers == 1 ? "" : "s") + " (multi_worker_mirrored on 127.0.0.1"
                                 + (plan.worker.num_gpus == 1 ? ", one GPU each" : "") + "); showing the chief's output";
    out << (jsonl ? runEventLine(starting) : starting) << "\n" << std::flush;
    // jsonl: the stream must end with a "finished" event even when the chief could not
    // write one (killed, or another worker failed first); the chief's lines are followed.
    ChiefStream chief;
    g_launcherInterrupts = 0;
    g_launcher = &launcher;
    auto old = std::signal(SIGINT, onLauncherInterrupt);
    LocalLaunchResult r;
    try {
        r = launcher.run(
            [&](const std::string &line) {
                if (jsonl)
                    chief.feedOutput(line);
                out << line << "\n" << std::flush;
            },
            [&](const std::string &line) {
                chief.feedError(line);
                err << line << "\n" << std::flush;
            });
    } catch (...) {
        std::signal(SIGINT, old);
        g_launcher = nullptr;
        const ErrorText error = describeCurrentException("num_local_workers");
        reportError(err, error);
        if (jsonl)
            out << runEventLine(failedRun(error)) << "\n" << std::flush;
        return kExitRuntime;
    }
    std::signal(SIGINT, old);
    g_launcher = nullptr;
    const RunFinished end = chief.result(r);
    if (jsonl && !chief.finished())
        out << runEventLine(end) << "\n" << std::flush;
    if (r.failed_rank >= 0) {
        err << "error: cluster: " << r.message << "\n"
            << "  hint: the lines marked [worker " << r.failed_rank
            << "] above (or the chief's own lines for worker 0) show why it failed\n";
        return r.exit_code == kExitInvalid ? kExitInvalid : kExitRuntime;
    }
    return r.exit_code;
}

} // namespace wb::cli
