// SPDX-License-Identifier: Apache-2.0
// `sweep`: train the runs of a grid or random sample of hyperparameters one after another (or
// up to --max_concurrent_runs at the same time, each in a child process), each a normal
// model_dir under one sweep folder; the same command again resumes the sweep
// (docs/file-formats.md, "Sweep folder").
#include "app/cli/commands.h"
#include "app/cli/errors.h"
#include "app/cli/interrupt.h"

#include "core/launch/locallauncher.h"
#include "core/launch/runexecutor.h"
#include "core/engine/blascheck.h"
#include "core/formats/sweep.h"
#include "core/formats/sweepdriver.h"
#include "core/formats/sweepevents.h"
#include "core/util/error.h"
#include "core/util/errortext.h"
#include "core/util/numbertext.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>
#include <streambuf>
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
    "  --sweep_dir DIR        the sweep folder (required); beside a project's runs runs/run-1, runs/run-2 name\n"
    "                         it runs/sweep-1, runs/sweep-2, … as the window does (its runs are then shown as\n"
    "                         sweep-1/run-001, …; docs/file-formats.md, \"Sweep folder\")\n"
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
    "  --progress_format text|jsonl  text (default: the lines above) or jsonl: one JSON event per line on\n"
    "                         stdout (sweep_started, run_skipped, run_started, run_progress with each run's\n"
    "                         own train event, run_log, run_ended, sweep_finished; docs/cli.md)\n"
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
    std::string progressFormat = "text"; ///< "text" or "jsonl" (core/formats/sweepevents.h)
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
            const std::optional<int> n = readWholeInt(v);
            if (!n || *n < 1)
                throw Error("--max_concurrent_runs", "\"" + v + "\" is not a whole number of at least 1",
                            "e.g. --max_concurrent_runs 2 (1 trains the runs one after another)");
            f.maxConcurrentRuns = *n;
        } else if (name == "progress_format") {
            f.progressFormat = value();
            if (f.progressFormat != "text" && f.progressFormat != "jsonl")
                throw Error("--progress_format", "\"" + f.progressFormat + "\" is not text or jsonl",
                            "use --progress_format=jsonl for one JSON event per line, or leave it out for text");
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
        throw Error("--sweep_dir", "is required",
                    "name the sweep folder, e.g. --sweep_dir runs/sweep-1 (beside the runs runs/run-1, …)");
    for (const SweepParameter &p : f.spec.parameters)
        for (const std::string &a : f.trainFlags)
            if (flagName(a) == p.name)
                throw Error("--" + p.name, "is swept (--param " + sweepParameterText(p) + ") and given as a train flag too",
                            "leave out --" + p.name + ", or stop sweeping it");
    return f;
}

std::string valuesText(const SweepRun &run)
{
    std::string s;
    for (const std::string &flag : sweepRunFlags(run))
        s += (s.empty() ? "" : " ") + flag.substr(2);
    return s;
}

/// The results, best first by the sweep's metric (runs without it last, in plan order).
void printResults(const SweepDriver &d, std::ostream &out)
{
    const SweepFile &file = d.file();
    const bool lower = SweepDriver::lowerIsBetter(file.metric);
    out << "results by " << file.metric << (lower ? " (lowest first)" : " (highest first)") << ":\n";
    for (const size_t i : d.resultsOrder()) {
        const SweepRunRecord &r = file.runs[i];
        const double m = d.metricOf(i);
        std::ostringstream v;
        if (std::isfinite(m))
            v << std::fixed << std::setprecision(4) << m;
        else
            v << "-";
        out << "  " << r.run.name << "  " << file.metric << " " << v.str() << "  " << sweepRunStatusName(r.status)
            << "  " << valuesText(r.run) << "\n";
    }
}

/// The sweep to run: sweep.json's when the command resumes one (only --sweep_dir, or the same
/// plan again), else the plan of the flags. Throws wb::Error for flags that mix plans.
SweepDriver loadOrPlanSweep(const SweepFlags &flags)
{
    if (flags.spec.parameters.empty()) {
        if (std::optional<SweepDriver> existing = SweepDriver::resume(flags.sweepDir)) {
            if (!flags.trainFlags.empty() || (flags.metricGiven && flags.metric != existing->file().metric))
                throw Error("--sweep_dir", "resuming " + sweepFilePath(flags.sweepDir) + " takes its own flags",
                            "give only --sweep_dir to resume, or the sweep's --param and train flags as first given");
            return std::move(*existing);
        }
    }
    SweepFile planned;
    planned.spec = flags.spec;
    planned.base_flags = flags.trainFlags;
    planned.metric = flags.metric;
    return SweepDriver::planOrResume(flags.sweepDir, SweepDriver::withPlannedRuns(std::move(planned)),
                                     "plans other runs or flags than this command (a sweep is resumed with the same flags)",
                                     "run the command that started it again (or just --sweep_dir " + flags.sweepDir
                                         + "), or choose another --sweep_dir");
}

/// A std::streambuf that hands each complete line to `sink` (without the '\n'): a run's
/// `train --progress_format=jsonl` output, in this process, wrapped into the sweep's events.
class LineBuf : public std::streambuf
{
public:
    explicit LineBuf(std::function<void(const std::string &)> sink) : m_sink(std::move(sink)) {}
    ~LineBuf() override
    {
        if (!m_line.empty())
            m_sink(m_line);
    }

protected:
    int_type overflow(int_type c) override
    {
        if (traits_type::eq_int_type(c, traits_type::eof()))
            return traits_type::not_eof(c);
        put(traits_type::to_char_type(c));
        return c;
    }
    std::streamsize xsputn(const char *s, std::streamsize n) override
    {
        for (std::streamsize k = 0; k < n; ++k)
            put(s[k]);
        return n;
    }

private:
    void put(char ch)
    {
        if (ch != '\n') {
            m_line += ch;
            return;
        }
        m_sink(m_line);
        m_line.clear();
    }
    std::function<void(const std::string &)> m_sink;
    std::string m_line;
};

/// What `sweep` says as its runs start and end: the text lines (as ever) or, with
/// --progress_format=jsonl, the sweep's events (core/formats/sweepevents.h) on `out`.
struct SweepOutput
{
    const SweepFlags &flags;
    SweepDriver &driver;
    std::ostream &out;
    std::ostream &err;

    bool jsonl() const { return flags.progressFormat == "jsonl"; }
    void event(const SweepEvent &e) const { out << sweepEventLine(e) << "\n" << std::flush; }
    const std::string &name(size_t i) const { return driver.file().runs[i].run.name; }

    void sweepStarted(size_t toTrain, int maxConcurrent) const
    {
        const SweepFile &file = driver.file();
        if (!jsonl()) {
            out << "sweep " << flags.sweepDir << ": " << file.runs.size() << " run(s), " << file.spec.method << "\n";
            return;
        }
        SweepEvent e;
        e.kind = SweepEventKind::SweepStarted;
        e.sweep_dir = flags.sweepDir;
        e.method = file.spec.method;
        e.metric = file.metric;
        e.runs = int64_t(file.runs.size());
        e.to_train = int64_t(toTrain);
        e.max_concurrent_runs = maxConcurrent;
        event(e);
    }

    void skipped(size_t i) const
    {
        if (!jsonl()) {
            out << name(i) << ": completed, skipped\n";
            return;
        }
        SweepEvent e;
        e.kind = SweepEventKind::RunSkipped;
        e.run = name(i);
        event(e);
    }

    /// "run-002 (2/4): seed=2", or run_started; the run's status "running" in sweep.json.
    void started(size_t i) const
    {
        const SweepFile &file = driver.file();
        if (!jsonl()) {
            out << name(i) << " (" << i + 1 << "/" << file.runs.size() << "): " << valuesText(file.runs[i].run) << "\n"
                << std::flush;
        } else {
            SweepEvent e;
            e.kind = SweepEventKind::RunStarted;
            e.run = name(i);
            e.number = int64_t(i + 1);
            e.runs = int64_t(file.runs.size());
            e.values = file.runs[i].run.values;
            e.model_dir = driver.runDir(i);
            event(e);
        }
        driver.started(i);
    }

    /// One line of run `i` (its `train` output): "[run-001] …", or run_progress / run_log.
    void line(size_t i, const std::string &text) const
    {
        if (!jsonl()) {
            out << "[" << name(i) << "] " << text << "\n" << std::flush;
            return;
        }
        SweepEvent e;
        e.kind = SweepEventKind::RunProgress; // written as run_log when the line is not JSON
        e.run = name(i);
        e.data = text;
        event(e);
    }

    /// Run `i` ended with `train`'s exit `code`: its status and final metrics in sweep.json,
    /// then, for runs at the same time (`said`), "run-002: completed" (or run_ended).
    void ended(size_t i, int code, const std::string &how, bool said) const
    {
        const SweepRunStatus status = SweepDriver::statusOfExitCode(code);
        if (said && !jsonl())
            out << name(i) << ": " << (code == kExitOk ? "completed" : code == kExitStopped ? "stopped" : "failed, " + how)
                << "\n" << std::flush;
        driver.ended(i, status);
        if (jsonl()) {
            SweepEvent e;
            e.kind = SweepEventKind::RunEnded;
            e.run = name(i);
            e.status = sweepRunStatusName(status);
            e.exit_code = code;
            e.metric = driver.file().metric;
            e.value = driver.metricOf(i);
            e.final_metrics = driver.file().runs[i].final_metrics;
            event(e);
        }
        if (status == SweepRunStatus::Failed)
            err << "warning: " << name(i) << " failed (exit " << code << "); the sweep goes on with the next run\n";
    }

    /// The end: sweep_finished with `exitCode` (jsonl only; the text says its results itself);
    /// `status` "planned" for --dry_run, else from the exit code.
    void sweepFinished(int exitCode, const std::string &message = {}, const char *status = nullptr) const
    {
        if (!jsonl())
            return;
        SweepEvent e;
        e.kind = SweepEventKind::SweepFinished;
        e.status = status ? status : exitCode == kExitOk ? "completed" : exitCode == kExitStopped ? "stopped" : "failed";
        e.exit_code = exitCode;
        e.runs = int64_t(driver.file().runs.size());
        for (const SweepRunRecord &r : driver.file().runs) {
            e.completed += r.status == SweepRunStatus::Completed;
            e.stopped += r.status == SweepRunStatus::Stopped;
            e.failed += r.status == SweepRunStatus::Failed;
        }
        const std::vector<size_t> order = driver.resultsOrder();
        if (!order.empty() && std::isfinite(driver.metricOf(order.front())))
            e.best_run = name(order.front());
        e.message = message;
        event(e);
    }
};

/// The jobs of `pending` for an executor: each run's `train` arguments plus `extra`.
std::vector<RunJob> jobsOf(const SweepDriver &d, const std::vector<size_t> &pending, const std::vector<std::string> &extra)
{
    std::vector<RunJob> jobs;
    for (const size_t i : pending) {
        RunJob job{d.file().runs[i].run.name, d.trainArgs(i)};
        job.args.insert(job.args.end(), extra.begin(), extra.end());
        jobs.push_back(std::move(job));
    }
    return jobs;
}

/// One run after another, in this process (each like `train`; SequentialExecutor). Returns
/// kExitStopped when a run was stopped, else kExitOk (failed runs are counted by the driver).
int trainOneAfterAnother(const SweepOutput &o, const std::vector<size_t> &pending)
{
    const std::vector<std::string> extra =
        o.jsonl() ? std::vector<std::string>{"--progress_format=jsonl"} : std::vector<std::string>{};
    size_t current = 0;
    SequentialExecutor executor([&](const RunJob &job) {
        if (!o.jsonl())
            return cmdTrain(job.args, o.out, o.err);
        LineBuf buf([&](const std::string &line) { o.line(pending[current], line); });
        std::ostream lines(&buf);
        return cmdTrain(job.args, lines, o.err);
    });
    bool stopped = false;
    RunExecutorSinks sinks;
    sinks.started = [&](size_t job) {
        current = job;
        o.started(pending[job]);
    };
    sinks.ended = [&](size_t job, int code, const std::string &how) {
        o.ended(pending[job], code, how, false);
        if (code == kExitStopped) {
            stopped = true;
            o.err << "sweep stopped at " << o.name(pending[job]) << "; run the same command again to resume it\n";
        }
    };
    executor.run(jobsOf(o.driver, pending, extra), sinks);
    return stopped ? kExitStopped : kExitOk;
}

/// The program a run at the same time runs: BERT_WORKBENCH_CLI when set (as the window finds
/// its workers), else this executable.
std::string runExecutable()
{
    const char *fromEnv = std::getenv("BERT_WORKBENCH_CLI");
    return fromEnv && *fromEnv ? std::string(fromEnv) : currentExecutable();
}

bool threadsGiven(const SweepDriver &d)
{
    for (const std::string &f : d.file().base_flags)
        if (flagName(f) == "num_threads")
            return true;
    return false;
}

/// Up to flags.maxConcurrentRuns runs at the same time, each `train` in a child process
/// (ProcessPoolExecutor) with the intra-op threads split among them (unless the flags set
/// --num_threads); each child's lines on `out` prefixed "[run-001] " (or as run_progress
/// events). Ctrl+C stops every run going on (each writes a checkpoint) and starts no other.
/// Returns kExitStopped when stopped, else kExitOk.
int trainAtTheSameTime(const SweepOutput &o, const std::vector<size_t> &pending)
{
    if (pending.empty())
        return kExitOk;
    const int maxRuns = o.flags.maxConcurrentRuns;
    const int n = std::max(1, std::min<int>(maxRuns, int(pending.size())));
    const unsigned cores = std::thread::hardware_concurrency();
    const bool ownThreads = threadsGiven(o.driver);
    const int threads = threadsPerLocalWorker(n);
    if (!o.jsonl())
        o.out << "training up to " << maxRuns << " runs at the same time, each in its own process"
              << (ownThreads ? std::string(" with the sweep's --num_threads")
                             : " with " + std::to_string(threads) + " intra-op thread" + (threads == 1 ? "" : "s")
                                   + " (--num_threads) each")
              << (cores > 0 ? " (this machine has " + std::to_string(cores) + " cores)" : std::string()) << "\n";
    if (cores > 0 && unsigned(maxRuns) > cores)
        o.err << "warning: --max_concurrent_runs " << maxRuns << " is more than this machine's " << cores
              << " cores: the runs share them and each trains slower than it would alone\n";
    std::vector<std::string> extra;
    if (!ownThreads)
        extra.push_back("--num_threads=" + std::to_string(threads));
    if (o.jsonl())
        extra.push_back("--progress_format=jsonl");
    StopToken stop;
    ProcessPoolExecutor executor(runExecutable(), n, &stop);
    InterruptGuard guard(stop, "\nstopping the sweep's runs after their current step (Ctrl+C again to quit at once)...\n");
    RunExecutorSinks sinks;
    sinks.started = [&](size_t job) { o.started(pending[job]); };
    sinks.line = [&](size_t job, const std::string &line) { o.line(pending[job], line); };
    sinks.ended = [&](size_t job, int code, const std::string &how) { o.ended(pending[job], code, how, true); };
    executor.run(jobsOf(o.driver, pending, extra), sinks);
    if (stop.stopRequested()) {
        o.err << "sweep stopped; run the same command again to resume it (completed runs are skipped)\n";
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
    bool jsonl = false; // known before the flags are read: an error then still ends the stream
    for (size_t i = 0; i < args.size(); ++i)
        jsonl = jsonl || args[i] == "--progress_format=jsonl"
                || (args[i] == "--progress_format" && i + 1 < args.size() && args[i + 1] == "jsonl");
    const auto failedToStart = [&](int code) {
        if (jsonl) { // the event stream ends with sweep_finished whatever happened
            SweepEvent e;
            e.kind = SweepEventKind::SweepFinished;
            e.status = "failed";
            e.exit_code = code;
            e.message = describeCurrentException("sweep").line();
            out << sweepEventLine(e) << "\n" << std::flush;
        }
        return reportCurrentException(err, "sweep", code);
    };
    SweepFlags flags;
    std::optional<SweepDriver> driver;
    try {
        flags = parseSweepFlags(args);
        driver = loadOrPlanSweep(flags);
    } catch (...) {
        return failedToStart(kExitInvalid);
    }
    const SweepOutput output{flags, *driver, out, err};
    try {
        driver->save();
        std::vector<size_t> skipped;
        const std::vector<size_t> pending = driver->pendingRuns(&skipped);
        output.sweepStarted(pending.size(), flags.maxConcurrentRuns);
        if (flags.dryRun) {
            if (!output.jsonl())
                for (const SweepRunRecord &r : driver->file().runs)
                    out << "  " << r.run.name << "  " << valuesText(r.run) << "\n";
            else
                output.sweepFinished(kExitOk, {}, "planned");
            return kExitOk;
        }
        for (const size_t i : skipped)
            output.skipped(i);
        const int code = flags.maxConcurrentRuns > 1 ? trainAtTheSameTime(output, pending)
                                                     : trainOneAfterAnother(output, pending);
        if (code != kExitOk) {
            output.sweepFinished(code);
            return code;
        }
    } catch (...) {
        if (output.jsonl())
            output.sweepFinished(kExitRuntime, describeCurrentException(sweepFilePath(flags.sweepDir)).line());
        return reportCurrentException(err, sweepFilePath(flags.sweepDir), kExitRuntime);
    }
    if (!output.jsonl())
        printResults(*driver, out);
    if (driver->failedCount() > 0) {
        output.sweepFinished(kExitRuntime);
        err << "error: sweep: " << driver->failedCount() << " of " << driver->file().runs.size() << " run(s) failed\n"
            << "  hint: see each run's messages above; fix the cause and run the same command again (completed runs are skipped)\n";
        return kExitRuntime;
    }
    output.sweepFinished(kExitOk);
    return kExitOk;
}

} // namespace wb::cli
