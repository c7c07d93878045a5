// SPDX-License-Identifier: Apache-2.0
// `sweep`: train the runs of a grid or random sample of hyperparameters one after another (or
// up to --max_concurrent_runs at the same time, each in a child process), each a normal
// model_dir under one sweep folder; the same command again resumes the sweep
// (docs/file-formats.md, "Sweep folder").
#include "app/cli/commands.h"
#include "app/cli/errors.h"
#include "app/cli/interrupt.h"

#include "core/launch/locallauncher.h"
#include "core/launch/runpool.h"
#include "core/train/blascheck.h"
#include "core/train/sweep.h"
#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <thread>

namespace wb::cli {

namespace {

const char *const kSweepHelp =
    "Usage: bert-workbench-cli sweep --sweep_dir DIR --param NAME=VALUES [--param …] [train flags]\n\n"
    "Trains every run of a sweep one after another (or --max_concurrent_runs at the same time), each in its\n"
    "own model_dir DIR/run-001, DIR/run-002, …,\n"
    "with train's flags plus the run's values. DIR/sweep.json holds the plan and each run's status; the\n"
    "same command again (or just --sweep_dir DIR) resumes: completed runs are skipped, an interrupted run\n"
    "continues from its latest checkpoint. Ctrl+C stops the runs going on with a checkpoint (exit 130).\n\n"
    "Sweep flags:\n"
    "  --sweep_dir DIR        the sweep folder (required)\n"
    "  --param NAME=V1,V2,…   values of one option; NAME=LOW:HIGH samples a range (random only; log-uniform\n"
    "                         for learning_rate and weight_decay_rate). Options: learning_rate,\n"
    "                         train_batch_size, num_train_epochs, warmup_fraction, weight_decay_rate, seed\n"
    "  --method grid|random   every combination (default), or --num_runs random draws\n"
    "  --num_runs N           random: how many runs\n"
    "  --sample_seed S        random: the seed of the draws (default 0; the same seed, the same plan)\n"
    "  --metric NAME          the results are sorted by it: eval_accuracy (default, highest first),\n"
    "                         best_eval_accuracy, eval_loss or train_loss (lowest first)\n"
    "  --max_concurrent_runs N  train up to N runs at the same time, each in its own process with the\n"
    "                         machine's intra-op threads split among them (default 1: one after another;\n"
    "                         not part of the plan, so a resume may choose another N)\n"
    "  --dry_run              write sweep.json and print the plan; train nothing\n"
    "Every other flag is passed to 'train' for every run (see 'bert-workbench-cli train --help'); not\n"
    "--model_dir, and not the options swept.\n";

struct SweepFlags
{
    std::string sweepDir;
    SweepSpec spec;
    std::string metric = "eval_accuracy";
    bool metricGiven = false;
    bool dryRun = false;
    int maxConcurrentRuns = 1;
    std::vector<std::string> trainFlags;
};

/// The name of a "--name=value" / "--name" flag ("" for a value that follows a flag).
std::string flagName(const std::string &arg)
{
    if (arg.rfind("--", 0) != 0)
        return {};
    const size_t eq = arg.find('=');
    return arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
}

/// `v` read by `parse` (std::stoll, std::stoull); wb::Error(flag, …, hint) when it reads nothing.
template <typename Parse>
auto wholeNumber(const char *flag, const std::string &v, const char *hint, Parse parse)
{
    try {
        return parse(v);
    } catch (...) {
        throw Error(flag, "\"" + v + "\" is not a whole number", hint);
    }
}

/// Splits the sweep's own flags from train's. Throws wb::Error naming the flag.
SweepFlags parseSweepFlags(const std::vector<std::string> &args)
{
    SweepFlags f;
    bool methodGiven = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        const std::string name = flagName(a);
        const bool inlineValue = a.find('=') != std::string::npos;
        const auto value = [&]() -> std::string {
            if (inlineValue)
                return a.substr(a.find('=') + 1);
            if (i + 1 >= args.size())
                throw Error("--" + name, "needs a value", "e.g. --" + name + "=…");
            return args[++i];
        };
        if (name == "sweep_dir")
            f.sweepDir = value();
        else if (name == "param")
            f.spec.parameters.push_back(parseSweepParameter(value()));
        else if (name == "method") {
            f.spec.method = value();
            methodGiven = true;
        } else if (name == "num_runs") {
            f.spec.num_runs = wholeNumber("--num_runs", value(), "e.g. --num_runs 8",
                                          [](const std::string &v) { return std::stoll(v); });
        } else if (name == "sample_seed") {
            f.spec.sample_seed = wholeNumber("--sample_seed", value(), "e.g. --sample_seed 1",
                                             [](const std::string &v) { return std::stoull(v); });
        } else if (name == "metric") {
            f.metric = value();
            f.metricGiven = true;
            if (f.metric != "eval_accuracy" && f.metric != "best_eval_accuracy" && f.metric != "eval_loss"
                && f.metric != "train_loss")
                throw Error("--metric", "\"" + f.metric + "\" is not a metric a sweep sorts by",
                            "use eval_accuracy, best_eval_accuracy, eval_loss or train_loss");
        } else if (name == "max_concurrent_runs") {
            const std::string v = value();
            size_t used = 0;
            int n = 0;
            try {
                n = std::stoi(v, &used);
            } catch (...) {
                used = 0;
            }
            if (used != v.size() || n < 1)
                throw Error("--max_concurrent_runs", "\"" + v + "\" is not a whole number of at least 1",
                            "e.g. --max_concurrent_runs 2 (1 trains the runs one after another)");
            f.maxConcurrentRuns = n;
        } else if (name == "dry_run")
            f.dryRun = true;
        else if (name == "model_dir")
            throw Error("--model_dir", "a sweep gives each run its own model_dir under --sweep_dir",
                        "leave out --model_dir; the runs are DIR/run-001, DIR/run-002, …");
        else
            f.trainFlags.push_back(a);
    }
    if (!methodGiven && f.spec.num_runs > 0)
        f.spec.method = "random";
    if (f.sweepDir.empty())
        throw Error("--sweep_dir", "is required", "name the sweep folder, e.g. --sweep_dir sweeps/lr");
    for (const SweepParameter &p : f.spec.parameters)
        for (const std::string &a : f.trainFlags)
            if (flagName(a) == p.name)
                throw Error("--" + p.name, "is swept (--param " + sweepParameterText(p) + ") and given as a train flag too",
                            "leave out --" + p.name + ", or stop sweeping it");
    return f;
}

bool lowerIsBetter(const std::string &metric) { return metric == "eval_loss" || metric == "train_loss"; }

std::string valuesText(const SweepRun &run)
{
    std::string s;
    for (const std::string &flag : sweepRunFlags(run))
        s += (s.empty() ? "" : " ") + flag.substr(2);
    return s;
}

/// The results, best first by `metric` (runs without it last, in plan order).
void printResults(const SweepFile &file, std::ostream &out)
{
    std::vector<const SweepRunRecord *> order;
    for (const SweepRunRecord &r : file.runs)
        order.push_back(&r);
    const auto metricOf = [&file](const SweepRunRecord *r) {
        const auto it = r->final_metrics.find(file.metric);
        return it == r->final_metrics.end() ? NAN : it->second;
    };
    std::stable_sort(order.begin(), order.end(), [&](const SweepRunRecord *a, const SweepRunRecord *b) {
        const double x = metricOf(a), y = metricOf(b);
        if (!std::isfinite(y))
            return std::isfinite(x);
        if (!std::isfinite(x))
            return false;
        return lowerIsBetter(file.metric) ? x < y : x > y;
    });
    out << "results by " << file.metric << (lowerIsBetter(file.metric) ? " (lowest first)" : " (highest first)") << ":\n";
    for (const SweepRunRecord *r : order) {
        const double m = metricOf(r);
        std::ostringstream v;
        if (std::isfinite(m))
            v << std::fixed << std::setprecision(4) << m;
        else
            v << "-";
        out << "  " << r->run.name << "  " << file.metric << " " << v.str() << "  " << sweepRunStatusName(r->status)
            << "  " << valuesText(r->run) << "\n";
    }
}

/// The sweep to run: sweep.json's when the command resumes one (only --sweep_dir, or the same
/// plan again), else the plan of the flags. Throws wb::Error for flags that mix plans.
SweepFile loadOrPlanSweep(const SweepFlags &flags)
{
    const std::optional<SweepFile> existing = readSweepFile(flags.sweepDir);
    if (existing && flags.spec.parameters.empty()) {
        if (!flags.trainFlags.empty() || (flags.metricGiven && flags.metric != existing->metric))
            throw Error("--sweep_dir", "resuming " + sweepFilePath(flags.sweepDir) + " takes its own flags",
                        "give only --sweep_dir to resume, or the sweep's --param and train flags as first given");
        return *existing;
    }
    SweepFile file;
    file.spec = flags.spec;
    file.base_flags = flags.trainFlags;
    file.metric = flags.metric;
    for (const SweepRun &run : planSweep(flags.spec))
        file.runs.push_back({run, SweepRunStatus::Pending, {}});
    if (existing) {
        if (!samePlan(file, *existing))
            throw Error(sweepFilePath(flags.sweepDir),
                        "plans other runs or flags than this command (a sweep is resumed with the same flags)",
                        "run the command that started it again (or just --sweep_dir " + flags.sweepDir
                            + "), or choose another --sweep_dir");
        return *existing;
    }
    return file;
}

/// A sweep being trained: sweep.json kept up to date as runs start and end.
struct SweepProgress
{
    const SweepFlags &flags;
    SweepFile &file;
    std::ostream &out;
    std::ostream &err;
    int failed = 0;

    void save() const { writeSweepFile(flags.sweepDir, file); }
    std::string runDir(size_t i) const { return sweepRunDir(flags.sweepDir, file.runs[i].run); }

    /// The runs still to train, in plan order (a completed one is skipped, said on `out`).
    std::vector<size_t> pendingRuns() const
    {
        std::vector<size_t> pending;
        for (size_t i = 0; i < file.runs.size(); ++i) {
            if (file.runs[i].status == SweepRunStatus::Completed && sweepRunCompleted(runDir(i)))
                out << file.runs[i].run.name << ": completed, skipped\n";
            else
                pending.push_back(i);
        }
        return pending;
    }

    /// `train`'s arguments for run `i` (without the command): the shared flags, the run's
    /// values and its model_dir; `train` resumes from the run's latest checkpoint.
    std::vector<std::string> trainArgs(size_t i) const
    {
        std::vector<std::string> args = file.base_flags;
        for (const std::string &f : sweepRunFlags(file.runs[i].run))
            args.push_back(f);
        args.push_back("--model_dir=" + runDir(i));
        return args;
    }

    /// Run `i` starts: "run-002 (2/4): seed=2" and its status "running" (throws when sweep.json
    /// cannot be written).
    void started(size_t i)
    {
        out << file.runs[i].run.name << " (" << i + 1 << "/" << file.runs.size() << "): " << valuesText(file.runs[i].run)
            << "\n" << std::flush;
        file.runs[i].status = SweepRunStatus::Running;
        save();
    }

    /// Run `i` ended with `train`'s exit `code`: its status and final metrics (throws when
    /// sweep.json cannot be written).
    void ended(size_t i, int code)
    {
        SweepRunRecord &r = file.runs[i];
        r.status = code == kExitOk ? SweepRunStatus::Completed
                                   : code == kExitStopped ? SweepRunStatus::Stopped : SweepRunStatus::Failed;
        r.final_metrics = sweepRunFinalMetrics(runDir(i));
        save();
        if (code != kExitOk && code != kExitStopped) {
            ++failed;
            err << "warning: " << r.run.name << " failed (exit " << code << "); the sweep goes on with the next run\n";
        }
    }
};

/// One run after another, in this process (each like `train`). Returns kExitStopped when a run
/// was stopped, else kExitOk (failed runs are counted in `p.failed`).
int trainOneAfterAnother(SweepProgress &p)
{
    for (const size_t i : p.pendingRuns()) {
        p.started(i);
        const int code = cmdTrain(p.trainArgs(i), p.out, p.err);
        p.ended(i, code);
        if (code == kExitStopped) {
            p.err << "sweep stopped at " << p.file.runs[i].run.name << "; run the same command again to resume it\n";
            return kExitStopped;
        }
    }
    return kExitOk;
}

/// The program a run at the same time runs: BERT_WORKBENCH_CLI when set (as the window finds
/// its workers), else this executable.
std::string runExecutable()
{
    const char *fromEnv = std::getenv("BERT_WORKBENCH_CLI");
    return fromEnv && *fromEnv ? std::string(fromEnv) : currentExecutable();
}

/// Up to flags.maxConcurrentRuns runs at the same time, each `train` in a child process
/// (RunPool) with the intra-op threads split among them (unless the flags set --num_threads);
/// each child's lines on `out` prefixed "[run-001] ". Ctrl+C stops every run going on (each
/// writes a checkpoint) and starts no other. Returns kExitStopped when stopped, else kExitOk.
int trainAtTheSameTime(SweepProgress &p)
{
    const std::vector<size_t> pending = p.pendingRuns();
    if (pending.empty())
        return kExitOk;
    const int n = std::max(1, std::min<int>(p.flags.maxConcurrentRuns, int(pending.size())));
    const unsigned cores = std::thread::hardware_concurrency();
    bool threadsGiven = false;
    for (const std::string &f : p.file.base_flags)
        threadsGiven = threadsGiven || flagName(f) == "num_threads";
    const int threads = threadsPerLocalWorker(n);
    p.out << "training up to " << p.flags.maxConcurrentRuns << " runs at the same time, each in its own process"
          << (threadsGiven ? std::string(" with the sweep's --num_threads")
                           : " with " + std::to_string(threads) + " intra-op thread" + (threads == 1 ? "" : "s")
                                 + " (--num_threads) each")
          << (cores > 0 ? " (this machine has " + std::to_string(cores) + " cores)" : std::string()) << "\n";
    if (cores > 0 && unsigned(p.flags.maxConcurrentRuns) > cores)
        p.err << "warning: --max_concurrent_runs " << p.flags.maxConcurrentRuns << " is more than this machine's "
              << cores << " cores: the runs share them and each trains slower than it would alone\n";
    RunPoolOptions o;
    o.executable = runExecutable();
    o.max_concurrent = n;
    StopToken stop;
    o.stop = &stop;
    for (const size_t i : pending) {
        std::vector<std::string> job{"train"};
        for (std::string &a : p.trainArgs(i))
            job.push_back(std::move(a));
        if (!threadsGiven)
            job.push_back("--num_threads=" + std::to_string(threads));
        o.jobs.push_back(std::move(job));
    }
    InterruptGuard guard(stop, "\nstopping the sweep's runs after their current step (Ctrl+C again to quit at once)...\n");
    RunPool pool(std::move(o));
    RunPoolSinks sinks;
    sinks.started = [&](size_t job) { p.started(pending[job]); };
    sinks.line = [&](size_t job, const std::string &line) {
        p.out << "[" << p.file.runs[pending[job]].run.name << "] " << line << "\n" << std::flush;
    };
    sinks.ended = [&](size_t job, int code, const std::string &how) {
        const std::string &name = p.file.runs[pending[job]].run.name;
        p.out << name << ": " << (code == kExitOk ? "completed" : code == kExitStopped ? "stopped" : "failed, " + how)
              << "\n" << std::flush;
        p.ended(pending[job], code);
    };
    pool.run(sinks);
    if (stop.stopRequested()) {
        p.err << "sweep stopped; run the same command again to resume it (completed runs are skipped)\n";
        return kExitStopped;
    }
    return kExitOk;
}

} // namespace

int cmdSweep(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    if (std::find(args.begin(), args.end(), "--help") != args.end() || std::find(args.begin(), args.end(), "-h") != args.end()) {
        out << kSweepHelp;
        return kExitOk;
    }
    SweepFlags flags;
    SweepFile file;
    try {
        flags = parseSweepFlags(args);
        file = loadOrPlanSweep(flags);
    } catch (...) {
        return reportCurrentException(err, "sweep", kExitInvalid);
    }
    SweepProgress progress{flags, file, out, err};
    try {
        progress.save();
        out << "sweep " << flags.sweepDir << ": " << file.runs.size() << " run(s), " << file.spec.method << "\n";
        if (flags.dryRun) {
            for (const SweepRunRecord &r : file.runs)
                out << "  " << r.run.name << "  " << valuesText(r.run) << "\n";
            return kExitOk;
        }
        const int code = flags.maxConcurrentRuns > 1 ? trainAtTheSameTime(progress) : trainOneAfterAnother(progress);
        if (code != kExitOk)
            return code;
    } catch (...) {
        return reportCurrentException(err, sweepFilePath(flags.sweepDir), kExitRuntime);
    }
    printResults(file, out);
    if (progress.failed > 0) {
        err << "error: sweep: " << progress.failed << " of " << file.runs.size() << " run(s) failed\n"
            << "  hint: see each run's messages above; fix the cause and run the same command again (completed runs are skipped)\n";
        return kExitRuntime;
    }
    return kExitOk;
}

} // namespace wb::cli
