// SPDX-License-Identifier: Apache-2.0
#include "core/io/runevents.h"

#include "core/io/metricswriter.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <ostream>

namespace wb {

namespace {

using ojson = nlohmann::ordered_json;

ojson num(double v)
{
    return std::isfinite(v) ? ojson(v) : ojson(nullptr);
}

double getNum(const nlohmann::json &j, const char *key, double fallback = 0.0)
{
    const auto it = j.find(key);
    if (it == j.end())
        return fallback;
    if (it->is_null())
        return std::numeric_limits<double>::quiet_NaN();
    return it->is_number() ? it->get<double>() : fallback;
}

int64_t getInt(const nlohmann::json &j, const char *key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

std::string getStr(const nlohmann::json &j, const char *key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool getBool(const nlohmann::json &j, const char *key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_boolean() && it->get<bool>();
}

RunStatus statusFromName(const std::string &s)
{
    if (s == "completed")
        return RunStatus::Completed;
    if (s == "cancelled")
        return RunStatus::Cancelled;
    return RunStatus::Failed;
}

} // namespace

std::string runEventLine(const RunStarted &info)
{
    ojson j;
    j["event"] = "run_started";
    j["total_steps"] = info.total_steps;
    j["steps_per_epoch"] = info.steps_per_epoch;
    j["warmup_steps"] = info.warmup_steps;
    j["eval_steps"] = info.eval_steps;
    j["start_step"] = info.start_step;
    j["num_labels"] = info.num_labels;
    j["parameter_count"] = info.parameter_count;
    j["model_dir"] = info.model_dir;
    j["device"] = info.device;
    j["wall_time"] = num(info.wall_time);
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string runEventLine(const StepMetrics &m)
{
    ojson j;
    j["event"] = "step";
    j["step"] = m.step;
    j["total_steps"] = m.total_steps;
    j["epoch"] = num(m.epoch);
    j["loss"] = num(m.loss);
    j["learning_rate"] = num(m.learning_rate);
    j["examples_per_second"] = num(m.examples_per_second);
    j["wall_time"] = num(m.wall_time);
    return j.dump();
}

std::string runEventLine(const EvalMetrics &m)
{
    // The metrics.jsonl eval line, plus what the evaluation view needs.
    nlohmann::json j = MetricsWriter::evalJson(m);
    j.erase("kind");
    j["event"] = "eval";
    j["regression"] = m.regression;
    j["binary"] = m.binary;
    if (!m.regression)
        j["confusion"] = m.confusion;
    return j.dump();
}

std::string runEventLine(const CheckpointSaved &c)
{
    ojson j;
    j["event"] = "checkpoint";
    j["step"] = c.step;
    j["path"] = c.path;
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string runEventLine(const std::string &logLine)
{
    ojson j;
    j["event"] = "log";
    j["line"] = logLine;
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string runEventLine(const RunFinished &r)
{
    ojson j;
    j["event"] = "finished";
    j["status"] = runStatusName(r.status);
    j["last_step"] = r.last_step;
    j["final_train_loss"] = num(r.final_train_loss);
    j["message"] = r.message;
    j["field"] = r.field;
    j["hint"] = r.hint;
    j["last_checkpoint"] = r.last_checkpoint;
    if (r.stopped_early_at_step > 0)
        j["stopped_early_at_step"] = r.stopped_early_at_step;
    if (r.best_step >= 0) {
        j["best_step"] = r.best_step;
        j["best_checkpoint"] = r.best_checkpoint;
    }
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void JsonLinesObserver::write(const std::string &line)
{
    m_out << line << '\n' << std::flush; // one whole line per event, flushed for the reader
}

void JsonLinesObserver::runStarted(const RunStarted &info) { write(runEventLine(info)); }
void JsonLinesObserver::stepCompleted(const StepMetrics &m) { write(runEventLine(m)); }
void JsonLinesObserver::evaluationCompleted(const EvalMetrics &m) { write(runEventLine(m)); }
void JsonLinesObserver::checkpointSaved(const CheckpointSaved &c) { write(runEventLine(c)); }
void JsonLinesObserver::logMessage(const std::string &line) { write(runEventLine(line)); }
void JsonLinesObserver::runFinished(const RunFinished &r) { write(runEventLine(r)); }

RunEventKind decodeRunEvent(const std::string &line, TrainingObserver &observer, RunFinished *finished)
{
    if (line.empty() || line.front() != '{')
        return RunEventKind::NotAnEvent;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return RunEventKind::NotAnEvent;
    const std::string event = getStr(j, "event");
    if (event == "run_started") {
        RunStarted info;
        info.total_steps = getInt(j, "total_steps");
        info.steps_per_epoch = getInt(j, "steps_per_epoch");
        info.warmup_steps = getInt(j, "warmup_steps");
        info.eval_steps = getInt(j, "eval_steps");
        info.start_step = getInt(j, "start_step");
        info.num_labels = getInt(j, "num_labels");
        info.parameter_count = getInt(j, "parameter_count");
        info.model_dir = getStr(j, "model_dir");
        info.device = getStr(j, "device");
        info.wall_time = getNum(j, "wall_time");
        observer.runStarted(info);
        return RunEventKind::RunStarted;
    }
    if (event == "step") {
        StepMetrics m;
        m.step = getInt(j, "step");
        m.total_steps = getInt(j, "total_steps");
        m.epoch = getNum(j, "epoch");
        m.loss = getNum(j, "loss");
        m.learning_rate = getNum(j, "learning_rate");
        m.examples_per_second = getNum(j, "examples_per_second");
        m.wall_time = getNum(j, "wall_time");
        observer.stepCompleted(m);
        return RunEventKind::Step;
    }
    if (event == "eval") {
        EvalMetrics m;
        m.step = getInt(j, "step");
        m.wall_time = getNum(j, "wall_time");
        m.eval_loss = getNum(j, "eval_loss");
        m.num_examples = getInt(j, "num_examples");
        m.regression = getBool(j, "regression");
        m.binary = getBool(j, "binary");
        m.eval_accuracy = getNum(j, "eval_accuracy");
        m.eval_f1 = getNum(j, "eval_f1");
        m.eval_mcc = getNum(j, "eval_mcc");
        m.eval_mse = getNum(j, "eval_mse");
        m.eval_pearson = getNum(j, "eval_pearson");
        m.eval_spearman = getNum(j, "eval_spearman");
        if (const auto it = j.find("confusion"); it != j.end() && it->is_array()) {
            for (const auto &row : *it) {
                std::vector<int64_t> r;
                if (row.is_array())
                    for (const auto &v : row)
                        r.push_back(v.is_number_integer() ? v.get<int64_t>() : 0);
                m.confusion.push_back(std::move(r));
            }
        }
        observer.evaluationCompleted(m);
        return RunEventKind::Eval;
    }
    if (event == "checkpoint") {
        observer.checkpointSaved({getInt(j, "step"), getStr(j, "path")});
        return RunEventKind::Checkpoint;
    }
    if (event == "log") {
        observer.logMessage(getStr(j, "line"));
        return RunEventKind::Log;
    }
    if (event == "finished") {
        if (finished) {
            finished->status = statusFromName(getStr(j, "status"));
            finished->last_step = getInt(j, "last_step");
            finished->final_train_loss = getNum(j, "final_train_loss");
            finished->message = getStr(j, "message");
            finished->field = getStr(j, "field");
            finished->hint = getStr(j, "hint");
            finished->last_checkpoint = getStr(j, "last_checkpoint");
            finished->stopped_early_at_step = j.contains("stopped_early_at_step") ? getInt(j, "stopped_early_at_step") : 0;
            finished->best_step = j.contains("best_step") ? getInt(j, "best_step") : -1;
            finished->best_checkpoint = getStr(j, "best_checkpoint");
        }
        return RunEventKind::Finished;
    }
    return RunEventKind::NotAnEvent;
}

} // namespace wb
