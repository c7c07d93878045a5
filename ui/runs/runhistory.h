// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/formats/runidentity.h"
#include "core/formats/trainingsummary.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// The metrics of one run, as read from its `metrics.jsonl` (docs/file-formats.md), for overlaying
/// in the plot and listing in the run comparison table. A plain value.
struct RunHistory
{
    QString name;          ///< shown in legends and tables (the run directory's name)
    /// Where it was read from: a metrics.jsonl file (load) or a TensorBoard run directory
    /// (fromTensorBoard). Identifies the run in the comparison table and the plot.
    QString sourcePath;
    std::vector<double> trainStep, trainWallTime, trainLoss, learningRate;
    std::vector<double> evalStep, evalWallTime, evalLoss, evalAccuracy;
    /// The run's options as it recorded them, each from one file: run_config.json (every run
    /// writes it with its first checkpoint, the command line's too), else — no checkpoint
    /// yet, or an older version — the options of bert_workbench_project.json (the window
    /// writes it when it starts a run). Unset: neither file records it. input_meta_data_path
    /// is as recorded (a relative path is relative to the run's folder).
    RecordedRunOptions recorded;
    /// training_summary.json beside the metrics file: how the run ended (a completed run only).
    std::optional<TrainingSummary> trainingSummary;
    /// Why a file beside the metrics file was not used ("<file>: <key>: <reason>"), one each.
    QStringList warnings;
    /// The run's label names in id order: labels.txt beside its input_meta_data_path (as
    /// run_config.json or bert_workbench_project.json records it; relative paths from the
    /// run's folder). Empty when unknown (no labels.txt, TensorBoard logs).
    std::vector<std::string> labelNames;
    /// Every setting the run recorded, flat, by flag name ("learning_rate" → "5e-05",
    /// "bert_config.hidden_size" → "128"; text values without quotes): the options of
    /// bert_workbench_project.json (all of them), then run_config.json's "defining" and
    /// "informational" objects over them (the run's own record wins; working_directory and
    /// version are left out). Empty when neither file is there (TensorBoard logs).
    std::map<std::string, std::string> settings;
    /// A seed group's mean curve (groupHistory, ui/runs/rungroup.h) also has the lowest and the
    /// highest train loss of its runs at each of trainStep: the band drawn around the mean.
    /// Empty for a run.
    std::vector<double> trainLossLow, trainLossHigh;
    /// The seed group its sweep records (wb::sweepSeedGroup, core/formats/sweepdriver.h: a run of
    /// a sweep over seed, Repeat with Seeds' too: "model-seeds", "lr-sweep learning_rate=0.001");
    /// empty otherwise (seedGroups then reads an older "<name>-seed-N" folder name).
    QString seedGroup;

    bool isEmpty() const { return trainStep.empty() && evalStep.empty(); }

    /// Reads `path` with wb::readMetricsFile (core/io/metricsreader.h) and adds what the files
    /// beside it record (their core readers; a file that cannot be read adds a warning). Lines that are empty are skipped; a line that is not a JSON object
    /// sets `*error` to "<path>: line N: …" and stops (a partly written last line — a run
    /// still in progress — is ignored). Never throws. GUI or worker thread.
    static RunHistory load(const QString &path, QString *error = nullptr);

    /// Reads a TensorBoard log directory (wb::EventReader: our summaries, run_classifier's,
    /// Keras' TensorBoard callback). Event-file directories named train/validation/eval
    /// (run_classifier and Keras) are merged into one run named after their parent folder
    /// (or the folder above `summaries/`); any other event-file directory is a run of its own.
    /// Tags: loss, batch_loss, epoch_loss, train_loss → training loss; learning_rate, lr,
    /// epoch_learning_rate → learning rate; in an eval directory (or with an eval_ prefix)
    /// loss → eval loss and accuracy → eval accuracy. `sourcePath` of each run is its
    /// directory, which identifies it in the run table. Sets `*error` (and returns nothing)
    /// when `logdir` holds no event file or cannot be read; damaged files add warnings to
    /// `*warnings` and keep the records before the damage. Never throws. Any thread.
    static std::vector<RunHistory> fromTensorBoard(const QString &logdir, QString *error = nullptr,
                                                   QStringList *warnings = nullptr);

    /// Returns metrics.jsonl files of runs related to `modelDir`: its own, those of its
    /// immediate subdirectories and of its sibling directories. Sorted, without duplicates.
    static QStringList findRuns(const QString &modelDir);
};

/// How many things `run` knows besides its curves: recorded options, settings, summary,
/// label names (mergeRunHistory keeps the richer record). Pure.
int recordedFactCount(const RunHistory &run);

/// The same run read twice (its metrics.jsonl, then its TensorBoard logs, or the other way):
/// one record that loses nothing. The curves come from the read with more points; every
/// recorded option, setting, the summary and the label names from `incoming` where it has
/// them, else from `existing`; name and sourcePath from the richer read (recordedFactCount).
/// Pure.
RunHistory mergeRunHistory(const RunHistory &existing, const RunHistory &incoming);

/// Where the run started: the "Start from" pretrained model's name (settings' pretrained_model),
/// else the init_checkpoint's file name, else "scratch" (random weights); "–" without settings.
QString runStartText(const RunHistory &run);

/// One setting whose values differ between runs (differingSettings): the key and each run's
/// value in the order of the runs ("–" where a run does not record it).
struct SettingDifference
{
    std::string key;
    std::vector<std::string> values;
};

/// The settings (RunHistory::settings) whose values are not the same in all of `runs`, sorted
/// by key; paths of the run itself (model_dir, metrics_file) are left out. Fewer than two
/// runs: nothing. Pure.
std::vector<SettingDifference> differingSettings(const std::vector<RunHistory> &runs);

} // namespace wb
