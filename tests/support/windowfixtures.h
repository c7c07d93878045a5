// SPDX-License-Identifier: Apache-2.0
// Test helper for the window tests (ui.windowmanners, ui.windowruns, ui.windowhelp): settings
// kept apart from the user's, a run function that records what the window starts, and a
// model_dir left as training leaves it.
#pragma once

#include "core/config/bertconfig.h"
#include "core/config/diagnostics.h"
#include "core/config/inputmetadata.h"
#include "core/config/schedule.h"
#include "core/io/metricswriter.h"
#include "core/formats/checkpointstate.h"
#include "core/formats/runidentity.h"
#include "ui/runs/trainingcontroller.h"
#include "ui/window/mainwindow.h"
#include "ui/window/runsession.h"

#include <QCoreApplication>
#include <QDir>
#include <QStandardPaths>
#include <QtTest>

#include <atomic>
#include <fstream>
#include <memory>
#include <string>

namespace wbtest {

/// initTestCase of a window test: QStandardPaths' test mode and the tests' own organisation,
/// so recent projects and remembered values never touch the user's settings.
inline void useTestSettings()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("bert-workbench-tests"));
}

/// Counts the runs the window starts and keeps the last one's options; each run ends at
/// once, completed at step 16 (installRecorder).
struct RecordingRun
{
    std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
    std::shared_ptr<wb::TrainingOptions> lastSpec = std::make_shared<wb::TrainingOptions>();
};

/// Makes `w`'s runs record into `rec` instead of training.
inline void installRecorder(wb::MainWindow &w, const RecordingRun &rec)
{
    w.runSession()->controller()->setRunFunction(
        [rec](const wb::PreparedRun &prepared, wb::TrainingObserver &obs, const wb::StopToken &) {
            ++*rec.calls;
            *rec.lastSpec = prepared.options;
            wb::RunFinished r;
            r.last_step = 16;
            obs.runFinished(r);
            return r;
        });
}

/// Leaves a run in o.model_dir as training would: run_config.json for `o`, checkpoint
/// ckpt-<step> and the checkpoint index; with `withMetrics`, a metrics.jsonl of `step`
/// training steps too (loss 0.7 - 0.01 × step).
inline void writeUsedModelDir(const wb::TrainingOptions &o, int64_t step, bool withMetrics = false)
{
    wb::Diagnostics diag;
    const auto config = wb::BertConfig::load(o.bert_config_file, diag);
    const auto meta = wb::InputMetaData::load(o.input_meta_data_path, diag);
    QVERIFY(config && meta);
    const auto schedule = wb::Schedule::compute(*meta->train_data_size, *meta->eval_data_size, o.num_train_epochs,
                                                o.num_eval_per_epoch, o.train_batch_size, o.eval_batch_size,
                                                o.train_data_size, o.warmup_fraction, diag);
    QVERIFY(schedule);
    QVERIFY(QDir().mkpath(QString::fromStdString(o.model_dir)));
    wb::writeRunConfig(o.model_dir, wb::RunIdentity::of(o, *config, *meta, *schedule));
    const std::string name = "ckpt-" + std::to_string(step);
    std::ofstream(o.model_dir + "/" + name) << "checkpoint bytes";
    wb::recordCheckpoint(o.model_dir, name, 0);
    if (!withMetrics)
        return;
    wb::MetricsWriter writer(o.metricsPath());
    for (int64_t s = 1; s <= step; ++s) {
        wb::StepMetrics m;
        m.step = s;
        m.loss = 0.7 - 0.01 * double(s);
        m.learning_rate = 1e-3;
        m.wall_time = 1000 + double(s);
        writer.writeTrain(m);
    }
}

} // namespace wbtest
