// SPDX-License-Identifier: Apache-2.0
// Training dynamics recorded by a real run (issue 46; docs/data-map.md): every training record
// once per pass over the data, at the step that saw it; the probabilities are the training
// forward pass's own; nothing for a run that does not record. Resume and two workers are tested
// in core.runrandomness and core.distributedtraining.
#include "core/formats/evalexamples.h"
#include "core/formats/trainingdynamics.h"
#include "core/launch/trainer.h"
#include "support/recordingobserver.h"
#include "support/tinyrun.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>

using namespace wb;
namespace fs = std::filesystem;

class tst_DynamicsRecording : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyRecordOncePerPass()
    {
        QTemporaryDir dir;
        wbtest::TinyRun tiny; // 64 records, batch 8: a pass is 8 steps; 3 epochs = 24 steps
        tiny.num_train_epochs = 3;
        tiny.learning_rate = 1e-2;
        const TrainingOptions o = wbtest::writeTinyRun(dir.path().toStdString(), tiny);
        const std::vector<TrainingDynamicsRow> rows = train(o);
        QCOMPARE(int(rows.size()), 64);
        double firstPass = 0, lastPass = 0;
        for (size_t i = 0; i < rows.size(); ++i) {
            const TrainingDynamicsRow &row = rows[i];
            QCOMPARE(row.index, int64_t(i));
            QCOMPARE(row.label_id, int64_t(i % 2)); // writeTinyRun's label
            QCOMPARE(int(row.steps.size()), 3);
            for (int pass = 0; pass < 3; ++pass) { // the data is shuffled, then repeated: pass p is steps 8p+1 … 8p+8
                QVERIFY2(row.steps[size_t(pass)] > 8 * pass && row.steps[size_t(pass)] <= 8 * (pass + 1),
                         qPrintable(QStringLiteral("record %1 pass %2 at step %3").arg(i).arg(pass).arg(row.steps[size_t(pass)])));
                QCOMPARE(row.correct[size_t(pass)], row.predicted_label_ids[size_t(pass)] == row.label_id);
            }
            firstPass += row.gold_probabilities.front() / 64.0;
            lastPass += row.gold_probabilities.back() / 64.0;
        }
        // The run learns the labels the tokens show: the gold label gets likelier pass by pass.
        QVERIFY2(lastPass > firstPass + 0.2, qPrintable(QStringLiteral("%1 -> %2").arg(firstPass).arg(lastPass)));
    }

    void probabilitiesAreTheTrainingForwardPasses()
    {
        // No dropout and a learning rate too small to move the weights: the training forward of
        // record i is the evaluation's forward of eval record i (writeTinyRun writes the same first
        // 16 records to both files), so the recorded probability is the eval example's.
        QTemporaryDir dir;
        wbtest::TinyRun tiny;
        tiny.dropout_prob = 0.0;
        tiny.learning_rate = 1e-12;
        tiny.num_train_epochs = 1;
        const TrainingOptions o = wbtest::writeTinyRun(dir.path().toStdString(), tiny);
        const std::vector<TrainingDynamicsRow> rows = train(o);
        const std::vector<EvalExample> eval = readEvalExamples(o.model_dir + "/eval_examples.jsonl");
        QCOMPARE(int(eval.size()), 16);
        QCOMPARE(int(rows.size()), 64);
        for (const EvalExample &e : eval) {
            const TrainingDynamicsRow &row = rows[size_t(e.index)];
            QCOMPARE(row.label_id, e.true_label_id);
            const double expected = e.probabilities[size_t(e.true_label_id)];
            QVERIFY2(std::abs(row.gold_probabilities[0] - expected) < 1e-5,
                     qPrintable(QStringLiteral("record %1: %2 vs %3").arg(e.index).arg(row.gold_probabilities[0]).arg(expected)));
            QCOMPARE(row.predicted_label_ids[0], e.predicted_label_id);
        }
    }

    void nothingWhenTurnedOff()
    {
        QTemporaryDir dir;
        TrainingOptions o = wbtest::writeTinyRun(dir.path().toStdString());
        o.record_training_dynamics = false;
        QVERIFY(train(o).empty());
        QVERIFY(!fs::exists(o.model_dir + "/training_dynamics.jsonl"));
    }

private:
    /// Trains `o` to the end and reads its training_dynamics.jsonl.
    static std::vector<TrainingDynamicsRow> train(const TrainingOptions &o)
    {
        wbtest::RecordingObserver obs;
        StopToken stop;
        const RunFinished r = Trainer().run(o, obs, stop);
        if (r.status != RunStatus::Completed)
            qFatal("training failed: %s", r.message.c_str());
        return readTrainingDynamics(o.model_dir + "/training_dynamics.jsonl");
    }
};

QTEST_GUILESS_MAIN(tst_DynamicsRecording)
#include "tst_dynamicsrecording.moc"
