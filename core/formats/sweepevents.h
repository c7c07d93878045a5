// SPDX-License-Identifier: Apache-2.0
#pragma once

// Torch-free: the event stream of `bert-workbench-cli sweep --progress_format=jsonl`, its writer
// and its reader (the window follows a sweep of runs at the same time with it).

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace wb {

/// The kinds of line of a sweep's event stream.
enum class SweepEventKind { NotAnEvent, SweepStarted, RunSkipped, RunStarted, RunProgress, RunLog, RunEnded, SweepFinished };

/// One event of `sweep --progress_format=jsonl`: one JSON object per line on stdout, with an
/// "event" key, written as `train`'s stream is (core/io/runevents.h; non-finite numbers null),
/// keys in this order:
///
///   {"event":"sweep_started","sweep_dir":…,"method":"grid","metric":"eval_accuracy","runs":4,
///    "to_train":3,"max_concurrent_runs":1}
///   {"event":"run_skipped","run":"run-001"}                       (completed before: not trained)
///   {"event":"run_started","run":"run-002","number":2,"runs":4,"values":{"seed":2},"model_dir":…}
///   {"event":"run_progress","run":"run-002","data":{…}}   (the run's own `train` event, as is)
///   {"event":"run_log","run":"run-002","line":"…"}        (a line of the run that is not an event)
///   {"event":"run_ended","run":"run-002","status":"completed"|"stopped"|"failed","exit_code":0,
///    "metric":"eval_accuracy","value":0.75,"final_metrics":{"eval_accuracy":0.75,…}}
///   {"event":"sweep_finished","status":"completed"|"stopped"|"failed","exit_code":0,"runs":4,
///    "completed":4,"stopped":0,"failed":0,"best_run":"run-003","message":…}
///
/// run_started/run_ended name the sweep's runs (not `train`'s own "run_started"/"finished",
/// which come inside run_progress). A run's `status` and `final_metrics` are sweep.json's.
/// sweep_finished is the last line whatever happened (best_run null when no run has the
/// metric; message only when the sweep could not go on: flags, sweep.json).
struct SweepEvent
{
    SweepEventKind kind = SweepEventKind::NotAnEvent;
    // sweep_started
    std::string sweep_dir, method, metric;
    int64_t runs = 0;     ///< sweep_started, run_started, sweep_finished: runs in the plan
    int64_t to_train = 0; ///< sweep_started: runs not completed before
    int64_t max_concurrent_runs = 1;
    // run_*
    std::string run;    ///< the run's name ("run-002")
    int64_t number = 0; ///< run_started: its place in the plan, from 1
    std::vector<std::pair<std::string, double>> values; ///< run_started: the swept options' values
    std::string model_dir;                              ///< run_started
    std::string data;   ///< run_progress: the run's event, one line of JSON (decodeRunEvent reads it)
    std::string line;   ///< run_log
    // run_ended, sweep_finished
    std::string status; ///< "completed", "stopped", "failed"
    int exit_code = 0;  ///< the run's `train` exit code; the sweep's own
    double value = std::numeric_limits<double>::quiet_NaN(); ///< run_ended: the metric (NaN: none)
    std::map<std::string, double> final_metrics;              ///< run_ended
    // sweep_finished
    int64_t completed = 0, stopped = 0, failed = 0;
    std::string best_run; ///< "" when none
    std::string message;  ///< why the sweep could not go on ("" otherwise)
};

/// The event as one line of JSON (no newline). Pure. A run_progress whose `data` is not a
/// JSON object is written as a run_log of that text.
std::string sweepEventLine(const SweepEvent &e);

/// Reads one line of the stream; a line that is not a JSON object with a known sweep "event"
/// gives kind NotAnEvent (pass it on as text). Missing keys keep the defaults. Never throws.
SweepEvent decodeSweepEvent(const std::string &line);

} // namespace wb
