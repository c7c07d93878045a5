// SPDX-License-Identifier: Apache-2.0
#include "core/formats/sweepevents.h"

#include "core/io/runeventjson.h"
#include "core/util/jsonnumber.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace wb {

namespace {

using ojson = nlohmann::ordered_json;

ojson stringOrNull(const std::string &s) { return s.empty() ? ojson(nullptr) : ojson(s); }

const char *name(SweepEventKind k)
{
    switch (k) {
    case SweepEventKind::SweepStarted: return "sweep_started";
    case SweepEventKind::RunSkipped: return "run_skipped";
    case SweepEventKind::RunStarted: return "run_started";
    case SweepEventKind::RunProgress: return "run_progress";
    case SweepEventKind::RunLog: return "run_log";
    case SweepEventKind::RunEnded: return "run_ended";
    case SweepEventKind::SweepFinished: return "sweep_finished";
    case SweepEventKind::NotAnEvent: break;
    }
    return "";
}

std::string str(const nlohmann::json &j, const char *key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t integer(const nlohmann::json &j, const char *key, int64_t otherwise = 0)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : otherwise;
}

double number(const nlohmann::json &j, const char *key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : NAN;
}

} // namespace

std::string sweepEventLine(const SweepEvent &e)
{
    ojson j;
    j["event"] = name(e.kind);
    switch (e.kind) {
    case SweepEventKind::SweepStarted:
        j["sweep_dir"] = e.sweep_dir;
        j["method"] = e.method;
        j["metric"] = e.metric;
        j["runs"] = e.runs;
        j["to_train"] = e.to_train;
        j["max_concurrent_runs"] = e.max_concurrent_runs;
        break;
    case SweepEventKind::RunSkipped:
        j["run"] = e.run;
        break;
    case SweepEventKind::RunStarted: {
        j["run"] = e.run;
        j["number"] = e.number;
        j["runs"] = e.runs;
        auto &values = j["values"] = ojson::object();
        for (const auto &[k, v] : e.values)
            values[k] = std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0
                            ? ojson(int64_t(v))
                            : numberOrNull<ojson>(v);
        j["model_dir"] = e.model_dir;
        break;
    }
    case SweepEventKind::RunProgress: {
        j["run"] = e.run;
        const ojson data = ojson::parse(e.data, nullptr, false);
        if (data.is_discarded() || !data.is_object()) {
            j["event"] = name(SweepEventKind::RunLog);
            j["line"] = e.data;
        } else {
            j["data"] = data;
        }
        break;
    }
    case SweepEventKind::RunLog:
        j["run"] = e.run;
        j["line"] = e.line;
        break;
    case SweepEventKind::RunEnded: {
        j["run"] = e.run;
        j["status"] = e.status;
        j["exit_code"] = e.exit_code;
        j["metric"] = e.metric;
        j["value"] = numberOrNull<ojson>(e.value);
        auto &m = j["final_metrics"] = ojson::object();
        for (const auto &[k, v] : e.final_metrics)
            m[k] = numberOrNull<ojson>(v);
        break;
    }
    case SweepEventKind::SweepFinished:
        j["status"] = e.status;
        j["exit_code"] = e.exit_code;
        j["runs"] = e.runs;
        j["completed"] = e.completed;
        j["stopped"] = e.stopped;
        j["failed"] = e.failed;
        j["best_run"] = stringOrNull(e.best_run);
        if (!e.message.empty())
            j["message"] = e.message;
        break;
    case SweepEventKind::NotAnEvent:
        break;
    }
    return dumpLine(j);
}

SweepEvent decodeSweepEvent(const std::string &line)
{
    SweepEvent e;
    if (line.empty() || line.front() != '{')
        return e;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return e;
    const std::string event = str(j, "event");
    for (SweepEventKind k : {SweepEventKind::SweepStarted, SweepEventKind::RunSkipped, SweepEventKind::RunStarted,
                             SweepEventKind::RunProgress, SweepEventKind::RunLog, SweepEventKind::RunEnded,
                             SweepEventKind::SweepFinished})
        if (event == name(k))
            e.kind = k;
    if (e.kind == SweepEventKind::NotAnEvent)
        return e;
    e.sweep_dir = str(j, "sweep_dir");
    e.method = str(j, "method");
    e.metric = str(j, "metric");
    e.runs = integer(j, "runs");
    e.to_train = integer(j, "to_train");
    e.max_concurrent_runs = integer(j, "max_concurrent_runs", 1);
    e.run = str(j, "run");
    e.number = integer(j, "number");
    if (const auto v = j.find("values"); v != j.end() && v->is_object())
        for (auto it = v->begin(); it != v->end(); ++it)
            e.values.emplace_back(it.key(), it->is_number() ? it->get<double>() : NAN);
    e.model_dir = str(j, "model_dir");
    if (const auto d = j.find("data"); d != j.end() && d->is_object())
        e.data = dumpLine(*d);
    e.line = str(j, "line");
    e.status = str(j, "status");
    e.exit_code = int(integer(j, "exit_code"));
    e.value = number(j, "value");
    if (const auto m = j.find("final_metrics"); m != j.end() && m->is_object())
        for (auto it = m->begin(); it != m->end(); ++it)
            e.final_metrics[it.key()] = it->is_number() ? it->get<double>() : NAN;
    e.completed = integer(j, "completed");
    e.stopped = integer(j, "stopped");
    e.failed = integer(j, "failed");
    e.best_run = str(j, "best_run");
    e.message = str(j, "message");
    return e;
}

} // namespace wb
