// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"
#include "core/io/eachevent.h"

#include <iosfwd>
#include <string>

namespace wb {

/// Encodes one event as a single line of JSON (no trailing newline).
std::string runEventLine(const RunStarted &info);
std::string runEventLine(const StepMetrics &m);
std::string runEventLine(const EvalMetrics &m);
std::string runEventLine(const CheckpointSaved &c);
std::string runEventLine(const std::string &logLine);
std::string runEventLine(const CoachNote &n);
std::string runEventLine(const RunFinished &r);

/// The machine-readable progress stream of `bert-workbench-cli train --progress_format=jsonl`:
/// one JSON object per line on stdout, one per TrainingObserver hook, with an "event" key:
///
///   {"event":"run_started","total_steps":340,"steps_per_epoch":170,...}
///   {"event":"step","step":12,"total_steps":340,"epoch":0.07,"loss":0.69,"learning_rate":…,
///    "examples_per_second":…,"wall_time":…}
///   {"event":"eval","step":170,"eval_loss":…,"eval_accuracy":…,"confusion":[[…],[…]],…}
///     (the metrics.jsonl eval line with "event" for "kind", keys in alphabetical order)
///   {"event":"checkpoint","step":170,"path":"…/ckpt-170"}
///   {"event":"log","line":"…"}
///   {"event":"note","step":170,"id":"overfitting","severity":"warning","text":"…"} (the coach)
///   {"event":"finished","status":"completed"|"cancelled"|"failed","last_step":…,"message":…,
///    "field":…,"hint":…,"last_checkpoint":…,"final_train_loss":…}
///
/// Field names and units are those of the structs in trainingobserver.h (and of
/// metrics.jsonl). Non-finite numbers are written as null and read back as NaN. The GUI
/// reads the chief's stream when it runs local workers (issue 6); other tools may too.
///
/// Thread rules: the hooks are called from the training thread only (as every observer's);
/// each event is written as one line and flushed.
class JsonLinesObserver : public EachEventObserver<JsonLinesObserver>
{
public:
    explicit JsonLinesObserver(std::ostream &out) : m_out(out) {}

private:
    friend class EachEventObserver<JsonLinesObserver>;
    /// Writes runEventLine(event) and a newline, flushed.
    template <typename Event>
    void onEvent(const Event &event)
    {
        write(runEventLine(event));
    }
    void write(const std::string &line);
    std::ostream &m_out;
};

/// What decodeRunEvent found in a line.
enum class RunEventKind { NotAnEvent, RunStarted, Step, Eval, Checkpoint, Log, Note, Finished };

/// Decodes one line of the stream and calls the matching hook of `observer`, except for a
/// "finished" event, which is stored in `*finished` (when given) and not forwarded, so the
/// caller can add what it knows (e.g. a failed worker) before reporting the end.
/// A line that is not a JSON object with a known "event" (a stray print, a crash message)
/// returns NotAnEvent and calls nothing: pass it on as a log line. Missing keys keep the
/// struct's defaults; an eval's "confusion" that is not a square matrix of counts in
/// [0, 2^40] with at most 1000000 classes is dropped (left empty). Never throws.
RunEventKind decodeRunEvent(const std::string &line, TrainingObserver &observer, RunFinished *finished = nullptr);

} // namespace wb
