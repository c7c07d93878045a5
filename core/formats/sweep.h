// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// The options a sweep may vary (TrainingOptions members of the same names): learning_rate,
/// train_batch_size, num_train_epochs, warmup_fraction, weight_decay_rate, seed.
const std::vector<std::string> &sweepableOptions();

/// One swept option: a list of values, or (random search only) a range sampled uniformly —
/// log-uniformly for learning_rate and weight_decay_rate, whose useful values span decades;
/// train_batch_size, num_train_epochs and seed are rounded to integers.
struct SweepParameter
{
    std::string name;
    std::vector<double> values; ///< the list ("learning_rate=1e-5,5e-5"); empty for a range
    double low = 0, high = 0;   ///< the range ("learning_rate=1e-5:1e-3"), when values is empty
    bool isRange() const { return values.empty(); }
};

/// Parses "name=v1,v2,…" or "name=low:high" (the CLI's --param and the Sweep dialog). Throws
/// wb::Error(optionName("param"), …) ("--param" on the command line, the Sweep dialog's words in
/// the window, core/config/optionwords.h) naming the text for an unknown option (the list of sweepable ones),
/// a value that is not a number, an integer option given a fraction, a range with low ≥ high,
/// a log-scale range that is not positive, or a duplicate value.
SweepParameter parseSweepParameter(const std::string &text);

/// The text parseSweepParameter reads back as `p` (numbers in the shortest exact form).
std::string sweepParameterText(const SweepParameter &p);

/// What to sweep: "grid" (every combination of the lists) or "random" (`num_runs` draws, each
/// option independently: a list by a uniform pick, a range as SweepParameter says), with the
/// draws' own generator seeded with `sample_seed` (std::mt19937_64, so a plan is the same on
/// every machine for the same seed).
struct SweepSpec
{
    std::string method = "grid";
    std::vector<SweepParameter> parameters;
    int64_t num_runs = 0;     ///< random: how many runs
    uint64_t sample_seed = 0; ///< random: the seed of the draws
};

/// One run of a sweep: its name (also its folder under the sweep folder: "run-001", …) and the
/// value of each swept option, in the order of the spec's parameters.
struct SweepRun
{
    std::string name;
    std::vector<std::pair<std::string, double>> values;
};

/// The runs of `spec`. Grid: the cartesian product, the first parameter changing slowest
/// ("learning_rate=1e-4,5e-5 seed=1,2" → (1e-4,1), (1e-4,2), (5e-5,1), (5e-5,2)); a range is an
/// error there. Random: num_runs draws (≥ 1). Runs are named run-001, run-002, … (3 digits,
/// more when there are more than 999). Throws wb::Error naming optionName("method"),
/// optionName("num_runs") or optionName("param") ("--param" on the command line) for a spec
/// that cannot be planned (no parameter, the same option twice, more than 10000 runs).
/// Pure; thread-safe.
std::vector<SweepRun> planSweep(const SweepSpec &spec);

/// Sets each swept option of `run` in `o` (learning_rate, train_batch_size, …). Pure.
void applySweepRun(TrainingOptions &o, const SweepRun &run);

/// The `train` flags of a run's values ("--learning_rate=5e-05", "--seed=2"): integers without
/// a fraction, others in the shortest form that reads back the same. Pure.
std::vector<std::string> sweepRunFlags(const SweepRun &run);

/// Where a run of a sweep stands in sweep.json.
enum class SweepRunStatus { Pending, Running, Completed, Failed, Stopped };
const char *sweepRunStatusName(SweepRunStatus s);

/// A run's entry in sweep.json: the plan's run, its status and, once it ended, its final
/// metrics (training_summary.json and the last evaluation: "train_loss", "eval_loss",
/// "eval_accuracy", …; NaN written as null).
struct SweepRunRecord
{
    SweepRun run;
    SweepRunStatus status = SweepRunStatus::Pending;
    std::map<std::string, double> final_metrics;
};

/// sweep.json, the plan and state of a sweep folder (docs/file-formats.md, "Sweep folder"):
/// the spec, the `train` flags every run shares (`base_flags`, without --model_dir and without
/// the swept options), the metric the results are sorted by, and every run's record.
struct SweepFile
{
    SweepSpec spec;
    std::vector<std::string> base_flags;
    std::string metric = "eval_accuracy";
    std::vector<SweepRunRecord> runs;
};

/// `sweepDir`/sweep.json.
std::string sweepFilePath(const std::string &sweepDir);
/// `sweepDir`/<run name>: each run's model_dir.
std::string sweepRunDir(const std::string &sweepDir, const SweepRun &run);
/// Writes sweep.json atomically (the writer of the format). Throws wb::Error(path, …).
void writeSweepFile(const std::string &sweepDir, const SweepFile &file);
/// Reads sweep.json; nothing when there is none. Throws wb::Error("<file>: <key>", …) for a
/// file that is not the format (JsonRecord's rules).
std::optional<SweepFile> readSweepFile(const std::string &sweepDir);
/// Whether `a` and `b` plan the same runs from the same flags (resume must not mix plans):
/// the same base flags, metric and, run by run, names and values.
bool samePlan(const SweepFile &a, const SweepFile &b);

/// Whether the run folder holds a completed run: training_summary.json is there (the trainer
/// writes it when a run completes). Reads the disk.
bool sweepRunCompleted(const std::string &runDir);
/// The final metrics of the run in `runDir` (training_summary.json's train_loss, the last
/// evaluation of metrics.jsonl: eval_loss, eval_accuracy, eval_f1 when binary; and
/// best_eval_accuracy, the highest). Missing files give fewer keys. Reads the disk.
std::map<std::string, double> sweepRunFinalMetrics(const std::string &runDir);

} // namespace wb
