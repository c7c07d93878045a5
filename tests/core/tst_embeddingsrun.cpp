// SPDX-License-Identifier: Apache-2.0
// The embedding view's dump (issue 25): a tiny classification run saves each evaluation's
// pooled [CLS] vectors in model_dir/embeddings, matching eval_examples.jsonl and the metrics.
#include "core/events/stoptoken.h"
#include "core/formats/embeddings.h"
#include "core/formats/evalexamples.h"
#include "core/launch/trainer.h"

#include "support/tinyrun.h"

#include <QtTest>

#include <cmath>
#include <filesystem>

using namespace wb;

namespace {

struct Evals : TrainingObserver
{
    std::vector<EvalMetrics> evals;
    void evaluationCompleted(const EvalMetrics &m) override { evals.push_back(m); }
};

} // namespace

class tst_EmbeddingsRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void eachEvaluationSavesItsVectors()
    {
        QTemporaryDir dir;
        wbtest::TinyRun p;
        p.num_train_epochs = 2;
        TrainingOptions o = wbtest::writeTinyRun(dir.path().toStdString(), p);
        o.num_eval_per_epoch = 1;
        Evals obs;
        StopToken stop;
        const RunFinished r = Trainer().run(o, obs, stop);
        QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
        QCOMPARE(int(obs.evals.size()), 2);
        std::vector<int64_t> steps;
        for (const EvalMetrics &m : obs.evals)
            steps.push_back(m.step);
        QCOMPARE(embeddingSteps(o.model_dir), steps);
        for (const EvalMetrics &m : obs.evals) {
            const EmbeddingSnapshot s = readEmbeddings(embeddingsPath(o.model_dir, m.step));
            QCOMPARE(s.step, m.step);
            QCOMPARE(s.size(), p.eval_size);
            QCOMPARE(s.hidden, int64_t(p.hidden_size));
            QCOMPARE(int64_t(s.pooled.size()), p.eval_size * p.hidden_size);
            // Pooled outputs are tanh values; the predictions give the evaluation's accuracy.
            for (const float v : s.pooled)
                QVERIFY(std::isfinite(v) && v >= -1.0f && v <= 1.0f);
            int64_t correct = 0;
            for (int64_t i = 0; i < s.size(); ++i) {
                QCOMPARE(s.example_index[size_t(i)], i);
                correct += s.label_ids[size_t(i)] == s.predictions[size_t(i)];
            }
            QCOMPARE(double(correct) / double(s.size()), m.eval_accuracy);
        }
        // The last file and eval_examples.jsonl (the last evaluation) agree example by example.
        const EmbeddingSnapshot last = readEmbeddings(embeddingsPath(o.model_dir, steps.back()));
        const auto examples = readEvalExamples(evalExamplesPath(o.model_dir));
        QCOMPARE(int64_t(examples.size()), last.size());
        for (size_t i = 0; i < examples.size(); ++i) {
            QCOMPARE(examples[i].true_label_id, last.label_ids[i]);
            QCOMPARE(examples[i].predicted_label_id, last.predictions[i]);
        }
        const Projection2D proj = pcaProject2D(last.pooled, last.size(), last.hidden);
        QCOMPARE(int64_t(proj.points.size()), last.size());
        QVERIFY(proj.variance[0] >= proj.variance[1]);
    }

    /// --save_embeddings=false: the run evaluates as before (eval_examples.jsonl is written)
    /// but model_dir gets no embeddings/ folder at all.
    void saveEmbeddingsFalseWritesNone()
    {
        QTemporaryDir dir;
        wbtest::TinyRun p;
        p.num_train_epochs = 1;
        TrainingOptions o = wbtest::writeTinyRun(dir.path().toStdString(), p);
        o.num_eval_per_epoch = 1;
        o.save_embeddings = false;
        Evals obs;
        StopToken stop;
        const RunFinished r = Trainer().run(o, obs, stop);
        QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
        QCOMPARE(int(obs.evals.size()), 1);
        QVERIFY(embeddingSteps(o.model_dir).empty());
        QVERIFY(!std::filesystem::exists(std::filesystem::path(o.model_dir) / "embeddings"));
        QCOMPARE(int64_t(readEvalExamples(evalExamplesPath(o.model_dir)).size()), p.eval_size);
    }
};

QTEST_APPLESS_MAIN(tst_EmbeddingsRun)
#include "tst_embeddingsrun.moc"
