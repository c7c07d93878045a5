// SPDX-License-Identifier: Apache-2.0
// padding "longest" (issue 49): a batch cut to its longest text (trimmedToLongest), and a run
// that trains so learns what the same run padded to max_seq_length learns, up to float rounding.
#include "core/engine/batching.h"
#include "core/formats/evalexamples.h"
#include "core/formats/trainingdynamics.h"
#include "core/launch/trainer.h"
#include "support/recordingobserver.h"
#include "support/tinyrun.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace wb;

class tst_Padding : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aBatchIsCutAfterItsLongestRow()
    {
        // Rows of 3, 5 and 2 marked positions in 8; the padding ids are not 0, to see what is kept.
        ClassifierBatch b;
        b.size = 3;
        b.seq_length = 8;
        for (int64_t r = 0; r < 3; ++r)
            for (int64_t c = 0; c < 8; ++c) {
                const int64_t length = r == 0 ? 3 : r == 1 ? 5 : 2;
                b.input_ids.push_back(100 * r + c);
                b.input_mask.push_back(c < length ? 1 : 0);
                b.segment_ids.push_back(c % 2);
            }
        b.label_ids = {0, 1, 0};
        const BatchTensors full = toTensors(b, "max_length");
        QCOMPARE(full.ids.size(1), int64_t(8));
        const BatchTensors cut = toTensors(b, "longest");
        QCOMPARE(cut.ids.sizes().vec(), (std::vector<int64_t>{3, 5}));
        QVERIFY(cut.ids.is_contiguous());
        QVERIFY(torch::equal(cut.ids, full.ids.narrow(1, 0, 5)));
        QVERIFY(torch::equal(cut.mask, full.mask.narrow(1, 0, 5)));
        QVERIFY(torch::equal(cut.segments, full.segments.narrow(1, 0, 5)));
        QVERIFY(torch::equal(cut.labels, full.labels));
        QCOMPARE(cut.mask.sum().item<int64_t>(), int64_t(10)); // every marked position kept

        // A mark after a gap counts: the row is as long as its last marked position.
        b.input_mask[2 * 8 + 6] = 1;
        QCOMPARE(toTensors(b, "longest").ids.size(1), int64_t(7));
        // A full row: nothing to cut, the same views come back.
        b.input_mask[2 * 8 + 7] = 1;
        const BatchTensors whole = trimmedToLongest(toTensors(b));
        QCOMPARE(whole.ids.size(1), int64_t(8));
        QCOMPARE(whole.ids.data_ptr<int64_t>(), b.input_ids.data());
    }

    void aRunPaddedToItsLongestLearnsTheSame()
    {
        // writeTinyRun's texts are 6 of max_seq_length 16 positions. Without dropout the two runs
        // draw nothing differently, so what differs is float rounding alone.
        QTemporaryDir dir;
        wbtest::TinyRun tiny;
        tiny.dropout_prob = 0.0;
        tiny.learning_rate = 5e-3;
        tiny.num_train_epochs = 3;
        tiny.mislabel_every = 5; // eval loss stays informative
        TrainingOptions full = wbtest::writeTinyRun(dir.path().toStdString(), tiny);
        TrainingOptions cut = full;
        cut.model_dir = dir.path().toStdString() + "/cut";
        cut.padding = "longest";
        train(full);
        train(cut);

        const auto fullEval = readEvalExamples(full.model_dir + "/eval_examples.jsonl");
        const auto cutEval = readEvalExamples(cut.model_dir + "/eval_examples.jsonl");
        QCOMPARE(cutEval.size(), fullEval.size());
        double moved = 0;
        for (size_t i = 0; i < fullEval.size(); ++i) {
            QCOMPARE(cutEval[i].predicted_label_id, fullEval[i].predicted_label_id);
            for (size_t k = 0; k < fullEval[i].probabilities.size(); ++k)
                moved = std::max(moved, std::abs(cutEval[i].probabilities[k] - fullEval[i].probabilities[k]));
        }
        QVERIFY2(moved < 1e-4, qPrintable(QString::number(moved)));
        // The training forward passes too (the recorded gold-label probabilities, every pass).
        const auto fullRows = readTrainingDynamics(full.model_dir + "/training_dynamics.jsonl");
        const auto cutRows = readTrainingDynamics(cut.model_dir + "/training_dynamics.jsonl");
        QCOMPARE(cutRows.size(), size_t(64));
        QCOMPARE(cutRows.size(), fullRows.size());
        for (size_t i = 0; i < fullRows.size(); ++i)
            for (size_t p = 0; p < fullRows[i].gold_probabilities.size(); ++p)
                QVERIFY2(std::abs(cutRows[i].gold_probabilities[p] - fullRows[i].gold_probabilities[p]) < 1e-4,
                         qPrintable(QStringLiteral("record %1 pass %2").arg(i).arg(p)));
        // The run says how it padded.
        std::ifstream in(cut.model_dir + "/run_config.json");
        const auto j = nlohmann::json::parse(in);
        QCOMPARE(j.at("informational").at("padding").get<std::string>(), std::string("longest"));
    }

private:
    static void train(const TrainingOptions &o)
    {
        wbtest::RecordingObserver obs;
        StopToken stop;
        const RunFinished r = Trainer().run(o, obs, stop);
        if (r.status != RunStatus::Completed)
            qFatal("training failed: %s", r.message.c_str());
    }
};

QTEST_GUILESS_MAIN(tst_Padding)
#include "tst_padding.moc"
