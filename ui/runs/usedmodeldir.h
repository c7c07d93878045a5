// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"

#include <QString>
#include <QStringList>

#include <cstdint>

namespace wb {

/// What a model directory already holds before Train writes into it: the latest training
/// checkpoint ("ckpt-N", core/formats/checkpointstate.h), the run's defining settings from its
/// run_config.json (core/formats/runidentity.h) and how the form's options differ from them.
/// The window asks Continue / Start a new run / Cancel when `used` is set. A plain value.
struct UsedModelDir
{
    bool used = false;           ///< a training checkpoint is in model_dir
    QString modelDir;
    QString latestCheckpoint;    ///< full path of the latest ckpt-N ("" when unused)
    int64_t step = -1;           ///< N of the latest checkpoint (global step, updates applied)
    int64_t totalSteps = -1;     ///< the run's total_steps from run_config.json; -1 when unknown
    /// The run's settings in form words, one "Label: value" per entry (learning rate,
    /// epochs, batch size, …), from run_config.json's "defining" block.
    QStringList settings;
    /// "Label: saved → now", one per defining entry that differs (runIdentityDifferences).
    QStringList differences;
    /// Why the run cannot be continued ("" when it can): no run_config.json, the form's BERT
    /// config or meta data cannot be read, settings differ, or the run is complete.
    QString whyNotContinue;

    bool isComplete() const { return totalSteps > 0 && step >= totalSteps; }
    bool canContinue() const { return used && whyNotContinue.isEmpty(); }
};

/// Inspects `options.model_dir` for a run (train_and_eval only; other modes read the
/// checkpoint on purpose). Reads run_config.json, bert_config.json and the meta data; no
/// torch. Never throws (problems become whyNotContinue). Any thread.
UsedModelDir inspectModelDir(const TrainingOptions &options);

/// Proposes a fresh sibling folder for a new run: "runs/mw2" → "runs/mw2-2" (or -3, … the
/// first that does not exist); "runs/mw2-2" → "runs/mw2-3". Any thread.
QString proposeNewModelDir(const QString &modelDir);

/// Returns the bytes of the training checkpoints (files named ckpt-*) directly in
/// `modelDir` and their count in `*count`; 0 when none or unreadable. Any thread.
qint64 checkpointDiskUse(const QString &modelDir, int *count = nullptr);

} // namespace wb
