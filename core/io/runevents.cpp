// SPDX-License-Identifier: Apache-2.0
#include "core/io/runevents.h"

#include "core/io/runeventjson.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace wb {

namespace {

/// {"event": name} followed by the keys of `body` (an event's one format, runeventjson.h).
nlohmann::ordered_json tagged(const char *name, const nlohmann::ordered_json &body)
{
    nlohmann::ordered_json j;
    j["event"] = name;
    for (auto it = body.begin(); it != body.end(); ++it)
        j[it.key()] = it.value();
    return j;
}

} // namespace

std::string runEventLine(const RunStarted &info)
{
    return dumpLine(tagged("run_started", info));
}

std::string runEventLine(const StepMetrics &m)
{
    return dumpLine(tagged("step", m));
}

std::string runEventLine(const EvalMetrics &m)
{
    nlohmann::json j = m; // sorted keys, as the eval line of metrics.jsonl
    j["event"] = "eval";
    return dumpLine(j);
}

std::string runEventLine(const CheckpointSaved &c)
{
    return dumpLine(tagged("checkpoint", c));
}

std::string runEventLine(const std::string &logLine)
{
    nlohmann::ordered_json j;
    j["event"] = "log";
    j["line"] = logLine;
    return dumpLine(j);
}

std::string runEventLine(const CoachNote &n)
{
    return dumpLine(tagged("note", n));
}

std::string runEventLine(const RunFinished &r)
{
    return dumpLine(tagged("finished", r));
}

void JsonLinesObserver::write(const std::string &line)
{
    m_out << line << '\n' << std::flush; // one whole line per event, flushed for the reader
}

RunEventKind decodeRunEvent(const std::string &line, TrainingObserver &observer, RunFinished *finished)
{
    if (line.empty() || line.front() != '{')
        return RunEventKind::NotAnEvent;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return RunEventKind::NotAnEvent;
    const auto it = j.find("event");
    const std::string event = it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    if (event == "run_started") {
        observer.runStarted(j.get<RunStarted>());
        return RunEventKind::RunStarted;
    }
    if (event == "step") {
        observer.stepCompleted(j.get<StepMetrics>());
        return RunEventKind::Step;
    }
    if (event == "eval") {
        observer.evaluationCompleted(j.get<EvalMetrics>()); // from_json drops an implausible confusion
        return RunEventKind::Eval;
    }
    if (event == "checkpoint") {
        observer.checkpointSaved(j.get<CheckpointSaved>());
        return RunEventKind::Checkpoint;
    }
    if (event == "log") {
        const auto l = j.find("line");
        observer.logMessage(l != j.end() && l->is_string() ? l->get<std::string>() : std::string());
        return RunEventKind::Log;
    }
    if (event == "note") {
        observer.coachNote(j.get<CoachNote>());
        return RunEventKind::Note;
    }
    if (event == "finished") {
        if (finished)
            *finished = j.get<RunFinished>();
        return RunEventKind::Finished;
    }
    return RunEventKind::NotAnEvent;
}

} // namespace wb
