// SPDX-License-Identifier: Apache-2.0
#include "app/cli/locallaunch.h"

#include "app/cli/commands.h"
#include "core/distribute/locallauncher.h"
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
    LocalLaunchOptions o;
    o.executable = currentExecutable();
    o.args.push_back(command);
    for (const std::string &flag : toCommandLineFlags(plan.worker))
        o.args.push_back(flag);
    if (jsonl)
        o.args.push_back("--progress_format=jsonl");
    o.num_workers = plan.num_workers;
    // Share libtorch's default thread count among the workers (not the vCPU count: more
    // threads than that fight OpenBLAS's own), unless --num_threads says otherwise.
    o.threads_per_worker = threadsPerLocalWorker(plan.num_workers);
    LocalLauncher launcher(o);
    const std::string starting = "starting " + std::to_string(o.num_workers) + " local worker"
                                 + (o.num_workers == 1 ? "" : "s") + " (multi_worker_mirrored on 127.0.0.1"
                                 + (plan.worker.num_gpus == 1 ? ", one GPU each" : "") + "); showing the chief's output";
    out << (jsonl ? runEventLine(starting) : starting) << "\n" << std::flush;
    // In jsonl mode the stream must end with a "finished" event even when the chief could
    // not write one (killed, or another worker failed first).
    bool chiefFinished = false;
    struct Progress : TrainingObserver // what the chief reported last, for that final event
    {
        void runStarted(const RunStarted &) override {}
        void stepCompleted(const StepMetrics &m) override
        {
            last_step = m.step;
            loss = m.loss;
        }
        void evaluationCompleted(const EvalMetrics &) override {}
        void checkpointSaved(const CheckpointSaved &c) override { checkpoint = c.path; }
        void logMessage(const std::string &) override {}
        void runFinished(const RunFinished &) override {}
        int64_t last_step = 0;
        double loss = 0;
        std::string checkpoint;
    } progress;
    const auto finishJsonl = [&](const std::string &field, const std::string &message, const std::string &hint) {
        if (!jsonl || chiefFinished)
            return;
        RunFinished f;
        f.status = RunStatus::Failed;
        f.field = field;
        f.message = message;
        f.hint = hint;
        f.last_step = progress.last_step;
        f.final_train_loss = progress.loss;
        f.last_checkpoint = progress.checkpoint;
        out << runEventLine(f) << "\n" << std::flush;
    };
    g_launcherInterrupts = 0;
    g_launcher = &launcher;
    auto old = std::signal(SIGINT, onLauncherInterrupt);
    LocalLaunchResult r;
    try {
        r = launcher.run(
            [&](const std::string &line) {
                if (jsonl && decodeRunEvent(line, progress) == RunEventKind::Finished)
                    chiefFinished = true;
                out << line << "\n" << std::flush;
            },
            [&](const std::string &line) { err << line << "\n" << std::flush; });
    } catch (const Error &e) {
        std::signal(SIGINT, old);
        g_launcher = nullptr;
        const std::string field = e.field().empty() ? "num_local_workers" : e.field();
        err << "error: " << field << ": " << e.what() << "\n";
        finishJsonl(field, e.what(), e.hint());
        return kExitRuntime;
    }
    std::signal(SIGINT, old);
    g_launcher = nullptr;
    if (r.failed_rank >= 0) {
        const std::string hint = "the lines marked [worker " + std::to_string(r.failed_rank)
                                 + "] above (or the chief's output for rank 0) show why it failed";
        err << "error: cluster: " << r.message << "\n"
            << "  hint: " << hint << "\n";
        finishJsonl("cluster", r.message, hint);
        return r.exit_code == kExitInvalid ? kExitInvalid : kExitRuntime;
    }
    return r.exit_code;
}

} // namespace wb::cli
