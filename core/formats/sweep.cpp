// SPDX-License-Identifier: Apache-2.0
// Sweeps: the plan (a grid or a random sample of the hyperparameters) and sweep.json, the
// plan and state of a sweep folder (docs/file-formats.md, "Sweep folder").
#include "core/formats/sweep.h"

#include "core/config/jsonfields.h"
#include "core/config/jsonfile.h"
#include "core/config/jsonrecord.h"
#include "core/config/optionwords.h"
#include "core/io/metricsreader.h"
#include "core/formats/trainingsummary.h"
#include "core/util/error.h"
#include "core/util/jsonnumber.h"
#include "core/util/numbertext.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>

namespace fs = std::filesystem;

namespace wb {

namespace {

constexpr const char *kSweepFormat = "bert-workbench sweep 1";
constexpr const char *kSweepHint = "delete sweep.json to plan the sweep again (finished runs keep their folders)";
constexpr int64_t kMaxRuns = 10000;

bool isIntegerOption(const std::string &name)
{
    return name == "train_batch_size" || name == "num_train_epochs" || name == "seed";
}

bool isLogScale(const std::string &name) { return name == "learning_rate" || name == "weight_decay_rate"; }

/// Whether option `name` can take `v` as the writer and the flags write it: a finite number,
/// for the integer options a whole one that int64_t holds exactly (|v| < 2^53).
bool fitsOption(const std::string &name, double v)
{
    return std::isfinite(v) && (!isIntegerOption(name) || (v == std::floor(v) && std::fabs(v) < 9007199254740992.0));
}

/// The shortest text that reads back as `v` ("5e-05", "0.1", "3").
std::string exactNumber(double v)
{
    char buf[40];
    for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, v);
        if (std::strtod(buf, nullptr) == v)
            break;
    }
    return buf;
}

double parseNumber(const std::string &text, const std::string &whole)
{
    const std::optional<double> v = readWholeDouble(text);
    if (!v || !std::isfinite(*v))
        throw Error(optionName("param"), "\"" + whole + "\": \"" + text + "\" is not a number",
                    "write the values as numbers, e.g. learning_rate=1e-5,5e-5 or learning_rate=1e-5:1e-3");
    return *v;
}

std::vector<std::string> split(const std::string &text, char sep)
{
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        const size_t at = text.find(sep, start);
        out.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos)
            return out;
        start = at + 1;
    }
}

std::string joinOptions()
{
    std::string s;
    for (const std::string &n : sweepableOptions())
        s += (s.empty() ? "" : ", ") + n;
    return s;
}

/// A uniform double in [0, 1) from the top 53 bits of one draw (the same on every platform,
/// unlike std::uniform_real_distribution).
double unit(std::mt19937_64 &rng) { return double(rng() >> 11) * (1.0 / 9007199254740992.0); }

double draw(const SweepParameter &p, std::mt19937_64 &rng)
{
    if (!p.isRange())
        return p.values[size_t(rng() % p.values.size())];
    const double u = unit(rng);
    double v = isLogScale(p.name) ? std::exp(std::log(p.low) + u * (std::log(p.high) - std::log(p.low)))
                                  : p.low + u * (p.high - p.low);
    if (isIntegerOption(p.name))
        v = std::round(v);
    return v;
}

std::string runName(size_t index, size_t count)
{
    const int digits = std::max(3, int(std::to_string(count).size()));
    char buf[32];
    std::snprintf(buf, sizeof buf, "run-%0*zu", std::min(digits, 12), index + 1);
    return buf;
}

} // namespace

const std::vector<std::string> &sweepableOptions()
{
    static const std::vector<std::string> names = {"learning_rate",   "train_batch_size",  "num_train_epochs",
                                                   "warmup_fraction", "weight_decay_rate", "seed"};
    return names;
}

SweepParameter parseSweepParameter(const std::string &text)
{
    const size_t eq = text.find('=');
    SweepParameter p;
    p.name = text.substr(0, eq);
    const auto &names = sweepableOptions();
    if (eq == std::string::npos || std::find(names.begin(), names.end(), p.name) == names.end())
        throw Error(optionName("param"), "\"" + text + "\": " + (eq == std::string::npos ? "expected name=values" : "\"" + p.name + "\" cannot be swept"),
                    "sweep one of " + joinOptions() + ", as name=v1,v2,… or name=low:high");
    const std::string rhs = text.substr(eq + 1);
    if (rhs.find(':') != std::string::npos) {
        const auto parts = split(rhs, ':');
        if (parts.size() != 2)
            throw Error(optionName("param"), "\"" + text + "\": a range is low:high", "e.g. learning_rate=1e-5:1e-3");
        p.low = parseNumber(parts[0], text);
        p.high = parseNumber(parts[1], text);
        if (!(p.low < p.high))
            throw Error(optionName("param"), "\"" + text + "\": the range's low end must be below its high end",
                        "e.g. learning_rate=1e-5:1e-3");
        if (!fitsOption(p.name, p.low) || !fitsOption(p.name, p.high))
            throw Error(optionName("param"), "\"" + text + "\": " + p.name + " takes whole numbers below 2^53",
                        "e.g. " + p.name + "=1:100");
        if (isLogScale(p.name) && p.low <= 0)
            throw Error(optionName("param"), "\"" + text + "\": " + p.name + " is sampled on a log scale, so its range must be positive",
                        "e.g. " + p.name + "=1e-5:1e-3");
        return p;
    }
    std::set<double> seen;
    for (const std::string &item : split(rhs, ',')) {
        const double v = parseNumber(item, text);
        if (isIntegerOption(p.name) && v != std::floor(v))
            throw Error(optionName("param"), "\"" + text + "\": " + p.name + " takes whole numbers, not " + item,
                        "e.g. " + p.name + "=16,32");
        if (!fitsOption(p.name, v))
            throw Error(optionName("param"), "\"" + text + "\": " + p.name + " takes whole numbers below 2^53, not " + item,
                        "e.g. " + p.name + "=16,32");
        if (!seen.insert(v).second)
            throw Error(optionName("param"), "\"" + text + "\": " + item + " is listed twice", "list each value once");
        p.values.push_back(v);
    }
    return p;
}

std::string sweepParameterText(const SweepParameter &p)
{
    if (p.isRange())
        return p.name + "=" + exactNumber(p.low) + ":" + exactNumber(p.high);
    std::string s = p.name + "=";
    for (size_t i = 0; i < p.values.size(); ++i)
        s += (i ? "," : "") + exactNumber(p.values[i]);
    return s;
}

std::vector<SweepRun> planSweep(const SweepSpec &spec)
{
    if (spec.parameters.empty())
        throw Error(optionName("param"), "a sweep needs at least one option to vary",
                    "e.g. " + optionName("param") + " learning_rate=1e-4,5e-5");
    std::set<std::string> names;
    for (const SweepParameter &p : spec.parameters)
        if (!names.insert(p.name).second)
            throw Error(optionName("param"), p.name + " is given twice",
                        "give each option one " + optionName("param") + " with all its values");
    std::vector<std::vector<double>> combos;
    if (spec.method == "grid") {
        combos.push_back({});
        for (const SweepParameter &p : spec.parameters) {
            if (p.isRange())
                throw Error(optionName("param"), sweepParameterText(p) + ": a grid needs a list of values, not a range",
                            "list the values (" + p.name + "=1e-5,5e-5) or use " + optionName("method") + " random");
            std::vector<std::vector<double>> next;
            for (const auto &c : combos)
                for (double v : p.values) {
                    next.push_back(c);
                    next.back().push_back(v);
                }
            combos = std::move(next);
            if (int64_t(combos.size()) > kMaxRuns)
                throw Error(optionName("param"), "the grid has more than " + std::to_string(kMaxRuns) + " runs",
                            "fewer values, or " + optionName("method") + " random with " + optionName("num_runs"));
        }
    } else if (spec.method == "random") {
        if (spec.num_runs < 1 || spec.num_runs > kMaxRuns)
            throw Error(optionName("num_runs"), "a random sweep needs 1 to " + std::to_string(kMaxRuns) + " runs, got " + std::to_string(spec.num_runs),
                        "e.g. " + optionName("num_runs") + " 8");
        std::mt19937_64 rng(spec.sample_seed);
        for (int64_t i = 0; i < spec.num_runs; ++i) {
            std::vector<double> c;
            for (const SweepParameter &p : spec.parameters)
                c.push_back(draw(p, rng));
            combos.push_back(std::move(c));
        }
    } else {
        throw Error(optionName("method"), "\"" + spec.method + "\" is not a sweep method", "use grid or random");
    }
    std::vector<SweepRun> runs;
    for (size_t i = 0; i < combos.size(); ++i) {
        SweepRun r;
        r.name = runName(i, combos.size());
        for (size_t k = 0; k < spec.parameters.size(); ++k)
            r.values.emplace_back(spec.parameters[k].name, combos[i][k]);
        runs.push_back(std::move(r));
    }
    return runs;
}

void applySweepRun(TrainingOptions &o, const SweepRun &run)
{
    for (const auto &[name, v] : run.values) {
        if (name == "learning_rate")
            o.learning_rate = v;
        else if (name == "train_batch_size")
            o.train_batch_size = int64_t(v);
        else if (name == "num_train_epochs")
            o.num_train_epochs = int64_t(v);
        else if (name == "warmup_fraction")
            o.warmup_fraction = v;
        else if (name == "weight_decay_rate")
            o.weight_decay_rate = v;
        else if (name == "seed")
            o.seed = int64_t(v);
    }
}

std::vector<std::string> sweepRunFlags(const SweepRun &run)
{
    std::vector<std::string> flags;
    for (const auto &[name, v] : run.values)
        flags.push_back("--" + name + "=" + (isIntegerOption(name) ? std::to_string(int64_t(v)) : exactNumber(v)));
    return flags;
}

const char *sweepRunStatusName(SweepRunStatus s)
{
    switch (s) {
    case SweepRunStatus::Pending: return "pending";
    case SweepRunStatus::Running: return "running";
    case SweepRunStatus::Completed: return "completed";
    case SweepRunStatus::Failed: return "failed";
    case SweepRunStatus::Stopped: return "stopped";
    }
    return "pending";
}

std::string sweepFilePath(const std::string &sweepDir) { return (fs::path(sweepDir) / "sweep.json").string(); }

std::string sweepRunDir(const std::string &sweepDir, const SweepRun &run) { return (fs::path(sweepDir) / run.name).string(); }

void writeSweepFile(const std::string &sweepDir, const SweepFile &file)
{
    nlohmann::ordered_json j;
    j["format"] = kSweepFormat;
    j["method"] = file.spec.method;
    if (file.spec.method == "random") {
        j["num_runs"] = file.spec.num_runs;
        j["sample_seed"] = file.spec.sample_seed;
    }
    auto &params = j["parameters"] = nlohmann::ordered_json::array();
    for (const SweepParameter &p : file.spec.parameters) {
        nlohmann::ordered_json e;
        e["name"] = p.name;
        if (p.isRange()) {
            e["low"] = p.low;
            e["high"] = p.high;
            e["scale"] = isLogScale(p.name) ? "log" : "linear";
        } else if (isIntegerOption(p.name)) {
            auto &values = e["values"] = nlohmann::ordered_json::array();
            for (double v : p.values)
                values.push_back(int64_t(v));
        } else {
            e["values"] = p.values;
        }
        params.push_back(e);
    }
    j["base_flags"] = file.base_flags;
    j["metric"] = file.metric;
    auto &runs = j["runs"] = nlohmann::ordered_json::array();
    for (const SweepRunRecord &r : file.runs) {
        nlohmann::ordered_json e;
        e["name"] = r.run.name;
        e["model_dir"] = r.run.name;
        auto &values = e["values"] = nlohmann::ordered_json::object();
        for (const auto &[name, v] : r.run.values)
            values[name] = isIntegerOption(name) ? nlohmann::ordered_json(int64_t(v)) : nlohmann::ordered_json(v);
        e["status"] = sweepRunStatusName(r.status);
        if (!r.final_metrics.empty()) {
            auto &m = e["final_metrics"] = nlohmann::ordered_json::object();
            for (const auto &[k, v] : r.final_metrics)
                m[k] = numberOrNull(v);
        }
        runs.push_back(e);
    }
    std::error_code ec;
    fs::create_directories(sweepDir, ec);
    writeFileAtomic(sweepFilePath(sweepDir), j.dump(2) + "\n");
}

std::optional<SweepFile> readSweepFile(const std::string &sweepDir)
{
    const std::string path = sweepFilePath(sweepDir);
    const std::optional<JsonRecord> rec = JsonRecord::readFile(path, kSweepHint);
    if (!rec)
        return std::nullopt;
    if (rec->string("format").value_or("") != kSweepFormat)
        rec->fail("format", std::string("expected \"") + kSweepFormat + "\"");
    SweepFile f;
    f.spec.method = rec->string("method").value_or("grid");
    f.spec.num_runs = rec->integer("num_runs").value_or(0);
    if (rec->has("sample_seed")) {
        // The writer writes the seed as given (--sample_seed reads an unsigned 64-bit number).
        const nlohmann::json &seed = rec->json()["sample_seed"];
        if (!seed.is_number_unsigned())
            rec->fail("sample_seed", "expected a whole number from 0 to 18446744073709551615");
        f.spec.sample_seed = seed.get<uint64_t>();
    }
    if (const auto *params = rec->array("parameters"))
        for (size_t i = 0; i < params->size(); ++i) {
            const JsonRecord p = rec->objectItem("parameters", i);
            SweepParameter sp;
            sp.name = p.string("name").value_or("");
            if (const auto *values = p.array("values")) {
                for (size_t k = 0; k < values->size(); ++k)
                    sp.values.push_back(p.numberItem("values", k));
            } else {
                sp.low = p.number("low").value_or(0);
                sp.high = p.number("high").value_or(0);
            }
            try {
                (void)parseSweepParameter(sweepParameterText(sp)); // the rules of --param
            } catch (const Error &e) {
                p.fail(sp.isRange() ? "low" : "values", e.what());
            }
            f.spec.parameters.push_back(sp);
        }
    if (const auto *flags = rec->array("base_flags"))
        for (size_t i = 0; i < flags->size(); ++i)
            f.base_flags.push_back(rec->stringItem("base_flags", i));
    f.metric = rec->string("metric").value_or("eval_accuracy");
    if (const auto *runs = rec->array("runs"))
        for (size_t i = 0; i < runs->size(); ++i) {
            const JsonRecord r = rec->objectItem("runs", i);
            SweepRunRecord rr;
            rr.run.name = r.string("name").value_or("");
            if (rr.run.name.empty() || rr.run.name.find('/') != std::string::npos || rr.run.name == "..")
                r.fail("name", "expected a run folder's name");
            if (const auto values = r.object("values"))
                for (auto it = values->json().begin(); it != values->json().end(); ++it) {
                    const double v = values->number(it.key().c_str()).value_or(0);
                    const auto &names = sweepableOptions();
                    if (std::find(names.begin(), names.end(), it.key()) == names.end())
                        values->fail(it.key(), "not an option a sweep varies (" + joinOptions() + ")");
                    if (!fitsOption(it.key(), v))
                        values->fail(it.key(), isIntegerOption(it.key()) ? "expected a whole number below 2^53"
                                                                         : "expected a finite number");
                    rr.run.values.emplace_back(it.key(), v);
                }
            const std::string status = r.string("status").value_or("pending");
            bool known = false;
            for (SweepRunStatus s : {SweepRunStatus::Pending, SweepRunStatus::Running, SweepRunStatus::Completed,
                                     SweepRunStatus::Failed, SweepRunStatus::Stopped})
                if (status == sweepRunStatusName(s)) {
                    rr.status = s;
                    known = true;
                }
            if (!known)
                r.fail("status", "expected pending, running, completed, failed or stopped, got \"" + status + "\"");
            if (const auto m = r.object("final_metrics"))
                for (auto it = m->json().begin(); it != m->json().end(); ++it)
                    rr.final_metrics[it.key()] = m->number(it.key().c_str()).value_or(NAN);
            f.runs.push_back(std::move(rr));
        }
    return f;
}

bool samePlan(const SweepFile &a, const SweepFile &b)
{
    if (a.base_flags != b.base_flags || a.metric != b.metric || a.runs.size() != b.runs.size())
        return false;
    for (size_t i = 0; i < a.runs.size(); ++i) {
        const SweepRun &x = a.runs[i].run, &y = b.runs[i].run;
        if (x.name != y.name || x.values.size() != y.values.size())
            return false;
        for (size_t k = 0; k < x.values.size(); ++k)
            if (x.values[k].first != y.values[k].first || x.values[k].second != y.values[k].second)
                return false;
    }
    return true;
}

bool sweepRunCompleted(const std::string &runDir)
{
    std::error_code ec;
    return fs::is_regular_file(trainingSummaryPath(runDir), ec);
}

std::map<std::string, double> sweepRunFinalMetrics(const std::string &runDir)
{
    std::map<std::string, double> m;
    try {
        if (const auto s = readTrainingSummary(runDir))
            m["train_loss"] = s->train_loss;
    } catch (const std::exception &) {
        // an unreadable summary adds nothing; the run's own commands name it
    }
    const MetricsLog log = readMetricsFile((fs::path(runDir) / "metrics.jsonl").string());
    if (!log.eval.empty()) {
        const EvalMetrics &last = log.eval.back();
        m["eval_loss"] = last.eval_loss;
        if (!last.regression) {
            m["eval_accuracy"] = last.eval_accuracy;
            double best = last.eval_accuracy;
            for (const EvalMetrics &e : log.eval)
                best = std::max(best, e.eval_accuracy);
            m["best_eval_accuracy"] = best;
        }
    }
    return m;
}

} // namespace wb
