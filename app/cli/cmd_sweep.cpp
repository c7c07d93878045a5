// SPDX-License-Identifier: Apache-2.0
// `sweep`: train the runs of a grid or random sample of hyperparameters one after another, each
// a normal model_dir under one sweep folder; the same command again resumes the sweep
// (docs/file-formats.md, "Sweep folder").
#include "app/cli/commands.h"
#include "app/cli/errors.h"

#include "core/train/sweep.h"
#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace wb::cli {

namespace {

const char *const kSweepHelp =
    "Usage: bert-workbench-cli sweep --sweep_dir DIR --param NAME=VALUES [--param …] [train flags]\n\n"
    "Trains every run of a sweep one after another, each in its own model_dir DIR/run-001, DIR/run-002, …,\n"
    "with train's flags plus the run's values. DIR/sweep.json holds the plan and each run's status; the\n"
    "same command again (or just --sweep_dir DIR) resumes: completed runs are skipped, an interrupted run\n"
    "continues from its latest checkpoint. Ctrl+C stops the run going on with a checkpoint (exit 130).\n\n"
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
        const std::optional<SweepFile> existing = readSweepFile(flags.sweepDir);
        if (existing && flags.spec.parameters.empty()) {
            if (!flags.trainFlags.empty() || (flags.metricGiven && flags.metric != existing->metric))
                throw Error("--sweep_dir", "resuming " + sweepFilePath(flags.sweepDir) + " takes its own flags",
                            "give only --sweep_dir to resume, or the sweep's --param and train flags as first given");
            file = *existing;
        } else {
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
                file = *existing;
            }
        }
    } catch (...) {
        return reportCurrentException(err, "sweep", kExitInvalid);
    }
    const auto save = [&]() {
        writeSweepFile(flags.sweepDir, file);
    };
    try {
        save();
    } catch (...) {
        return reportCurrentException(err, sweepFilePath(flags.sweepDir), kExitRuntime);
    }
    out << "sweep " << flags.sweepDir << ": " << file.runs.size() << " run(s), " << file.spec.method << "\n";
    if (flags.dryRun) {
        for (const SweepRunRecord &r : file.runs)
            out << "  " << r.run.name << "  " << valuesText(r.run) << "\n";
        return kExitOk;
    }
    int failed = 0;
    for (size_t i = 0; i < file.runs.size(); ++i) {
        SweepRunRecord &r = file.runs[i];
        const std::string runDir = sweepRunDir(flags.sweepDir, r.run);
        if (r.status == SweepRunStatus::Completed && sweepRunCompleted(runDir)) {
            out << r.run.name << ": completed, skipped\n";
            continue;
        }
        out << r.run.name << " (" << i + 1 << "/" << file.runs.size() << "): " << valuesText(r.run) << "\n" << std::flush;
        std::vector<std::string> trainArgs = file.base_flags;
        for (const std::string &f : sweepRunFlags(r.run))
            trainArgs.push_back(f);
        trainArgs.push_back("--model_dir=" + runDir);
        r.status = SweepRunStatus::Running;
        try {
            save();
        } catch (...) {
            return reportCurrentException(err, sweepFilePath(flags.sweepDir), kExitRuntime);
        }
        const int code = cmdTrain(trainArgs, out, err); // resumes from the run's latest checkpoint
        r.status = code == kExitOk ? SweepRunStatus::Completed
                                   : code == kExitStopped ? SweepRunStatus::Stopped : SweepRunStatus::Failed;
        r.final_metrics = sweepRunFinalMetrics(runDir);
        try {
            save();
        } catch (...) {
            return reportCurrentException(err, sweepFilePath(flags.sweepDir), kExitRuntime);
        }
        if (code == kExitStopped) {
            err << "sweep stopped at " << r.run.name << "; run the same command again to resume it\n";
            return kExitStopped;
        }
        if (code != kExitOk) {
            ++failed;
            err << "warning: " << r.run.name << " failed (exit " << code << "); the sweep goes on with the next run\n";
        }
    }
    printResults(file, out);
    if (failed > 0) {
        err << "error: sweep: " << failed << " of " << file.runs.size() << " run(s) failed\n"
            << "  hint: see each run's messages above; fix the cause and run the same command again (completed runs are skipped)\n";
        return kExitRuntime;
    }
    return kExitOk;
}

} // namespace wb::cli
