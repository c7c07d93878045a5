// SPDX-License-Identifier: Apache-2.0
#include "app/cli/locallaunch.h"

#include "app/cli/commands.h"
#include "core/distribute/locallauncher.h"
#include "core/util/error.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <ostream>
#include <thread>
#include <unistd.h>

namespace wb::cli {

namespace {

std::atomic<LocalLauncher *> g_launcher{nullptr};

extern "C" void onLauncherInterrupt(int)
{
    if (LocalLauncher *l = g_launcher.load())
        l->requestStop(); // first: workers stop after the step; second: they quit at once
    static const char msg[] = "\nstopping the workers after the current step (Ctrl+C again to quit at once)...\n";
    (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
}

} // namespace

int runLocalWorkers(const std::string &command, const LocalWorkerPlan &plan, const std::vector<std::string> &extraFlags,
                    std::ostream &out, std::ostream &err)
{
    LocalLaunchOptions o;
    o.executable = currentExecutable();
    o.args.push_back(command);
    for (const std::string &flag : toCommandLineFlags(plan.worker))
        o.args.push_back(flag);
    o.args.insert(o.args.end(), extraFlags.begin(), extraFlags.end());
    o.num_workers = plan.num_workers;
    // Share the cores: each worker gets its part unless --num_threads says otherwise.
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    o.threads_per_worker = std::max(1, int(cores) / std::max(1, plan.num_workers));
    LocalLauncher launcher(o);
    out << "starting " << o.num_workers << " local workers (multi_worker_mirrored on 127.0.0.1"
        << (plan.worker.num_gpus == 1 ? ", one GPU each" : "") << "); showing the chief's output\n"
        << std::flush;
    g_launcher = &launcher;
    auto old = std::signal(SIGINT, onLauncherInterrupt);
    LocalLaunchResult r;
    try {
        r = launcher.run([&](const std::string &line) { out << line << "\n" << std::flush; },
                         [&](const std::string &line) { err << line << "\n" << std::flush; });
    } catch (const Error &e) {
        std::signal(SIGINT, old);
        g_launcher = nullptr;
        err << "error: " << (e.field().empty() ? "num_local_workers" : e.field()) << ": " << e.what() << "\n";
        return kExitRuntime;
    }
    std::signal(SIGINT, old);
    g_launcher = nullptr;
    if (r.failed_rank >= 0) {
        err << "error: cluster: " << r.message << "\n"
            << "  hint: the lines marked [worker " << r.failed_rank << "] above (or the chief's output for rank 0) "
            << "show why it failed\n";
        return r.exit_code == kExitInvalid ? kExitInvalid : kExitRuntime;
    }
    return r.exit_code;
}

} // namespace wb::cli
