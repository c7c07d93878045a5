// SPDX-License-Identifier: Apache-2.0
// Each case is an input that crashed a fuzz target in fuzz/ (the file it came from is in
// fuzz/regressions/<target>/); each asserts the clear error that replaced the crash.
#include "core/config/bertconfig.h"
#include "core/config/inputmetadata.h"
#include "core/config/jsonfile.h"
#include "core/io/metricsreader.h"
#include "core/io/runevents.h"
#include "core/formats/bestmodel.h"
#include "core/formats/evalexamples.h"
#include "core/util/error.h"
#include "ui/form/projectfile.h"

#include <QtTest>

using namespace wb;

namespace {

// Keeps the last evaluation decoded.
struct LastEval : TrainingObserver
{
    void runStarted(const RunStarted &) override {}
    void stepCompleted(const StepMetrics &) override {}
    void evaluationCompleted(const EvalMetrics &m) override
    {
        eval = m;
        ++evals;
    }
    void checkpointSaved(const CheckpointSaved &) override {}
    void logMessage(const std::string &) override {}
    void runFinished(const RunFinished &) override {}
    EvalMetrics eval;
    int evals = 0;
};

} // namespace

class tst_FuzzRegressions : public QObject
{
    Q_OBJECT

private:
    static const Diagnostic *firstError(const Diagnostics &d)
    {
        for (const auto &i : d.items())
            if (i.severity == Severity::Error)
                return &i;
        return nullptr;
    }

private Q_SLOTS:
    // fuzz_bertconfig: a number beyond double's range made nlohmann::json throw out_of_range
    // (error 406), which parseJsonObject did not catch: std::terminate.
    void jsonNumberOverflowIsAnError()
    {
        Diagnostics d;
        const auto j = parseJsonObject(R"({"vocab_size": 5981, "initializer_range": 0.02e222222222222222})",
                                       "bert_config.json", d);
        QVERIFY(!j);
        const Diagnostic *e = firstError(d);
        QVERIFY(e);
        QCOMPARE(e->field, std::string("bert_config.json"));
        QCOMPARE(e->message, std::string("invalid JSON: number overflow parsing '0.02e222222222222222'"));
        QVERIFY(!e->hint.empty());
    }

    // Found while reviewing fuzz_projectfile's inputs (the fuzzer's 4 KB inputs are too short):
    // 300,000 nested arrays parse fine but the error message's dump() recursed once per level
    // and overflowed the stack. The depth limit (512) is checked before parsing.
    void deepNestingIsAnError()
    {
        const size_t n = 300000;
        const std::string text = R"({"format":"bert-workbench-project","options":{"seed":)" + std::string(n, '[')
                                 + std::string(n, ']') + "}}";
        Diagnostics d;
        QVERIFY(!parseJsonObject(text, "project.json", d));
        const Diagnostic *e = firstError(d);
        QVERIFY(e);
        QCOMPARE(e->field, std::string("project.json"));
        // Level 513 is the 511th '[' (two braces open before it), at byte 53 + 510.
        QCOMPARE(e->message, std::string("invalid JSON at line 1, column 564: arrays and objects are nested more than "
                                         "512 levels deep"));
        // 512 levels are still accepted, and brackets inside strings do not count.
        Diagnostics ok;
        const std::string deep = "{\"a\":" + std::string(511, '[') + std::string(511, ']') + ",\"b\":\"[[[[{{{{\"}";
        QVERIFY2(parseJsonObject(deep, "ok.json", ok).has_value(), ok.format().c_str());
    }

    // fuzz_bertconfig: vocab_size 9e18 passed validation and overflowed the int64 arithmetic of
    // parameterCount() (signed overflow; the window shows the count).
    void hugeSizesAreAnError()
    {
        Diagnostics d;
        const auto c = BertConfig::fromJson(nlohmann::json::parse(R"({"vocab_size": 9000000000000000000})"),
                                            "bert_config.json", d);
        const Diagnostic *e = firstError(d);
        QVERIFY(e);
        QCOMPARE(e->field, std::string("bert_config.json"));
        QVERIFY2(e->message.find("more than the limit of 1e12") != std::string::npos, e->message.c_str());
        QCOMPARE(c.vocab_size, int64_t(9000000000000000000));

        // The limit leaves every real model alone: BERT-Large with a 250k-token vocabulary.
        Diagnostics ok;
        const auto large = BertConfig::fromJson(nlohmann::json::parse(R"({"vocab_size": 250000, "hidden_size": 1024,
            "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096, "type_vocab_size": 2})"),
                                                "bert_config.json", ok);
        QVERIFY2(!ok.hasErrors(), ok.format().c_str());
        QCOMPARE(large.parameterCount(2).total(), int64_t(559889410));
    }

    // fuzz_inputmetadata: num_labels 9e18 overflowed hidden_size × num_labels in the window's
    // parameter count.
    void hugeNumLabelsIsAnError()
    {
        Diagnostics d;
        const auto m = InputMetaData::fromJson(nlohmann::json::parse(R"({"task_type": "bert_classification",
            "num_labels": 9000000000000000000, "max_seq_length": 128})"),
                                               "input_meta_data.json", d);
        const Diagnostic *e = firstError(d);
        QVERIFY(e);
        QCOMPARE(e->field, std::string("input_meta_data.json: num_labels"));
        QCOMPARE(e->message, std::string("num_labels must be ≤ 1000000, got 9000000000000000000"));
        QCOMPARE(m.num_labels, int64_t(1)); // the default, never the overflowing value
        QCOMPARE(bertPresets().back().config.parameterCount(m.num_labels).classifier, int64_t(1024 + 1));
    }

    // fuzz_projectfile: a "format" that is not a string made json::value() throw type_error
    // out of ProjectFile::fromJson (File → Open Project aborted the window).
    void projectFormatNotAStringIsAWarning()
    {
        Diagnostics d;
        const auto j = parseJsonObject(
            R"({"format":{"bert_config_file":"cfg/bert_config.json"},"options":{"seed":7}})", "p.json", d);
        QVERIFY(j);
        const TrainingOptions o = ProjectFile::fromJson(*j, QStringLiteral("/projects"), d);
        QCOMPARE(o.seed, int64_t(7));
        QCOMPARE(d.items().size(), size_t(1));
        QCOMPARE(d.items()[0].severity, Severity::Warning);
        QCOMPARE(d.items()[0].field, std::string("format"));
        QCOMPARE(d.items()[0].message, std::string("this is not marked as a BERT Workbench project file"));
    }

    // fuzz_progressjsonl: an eval line of the jsonl progress stream with counts near 2^63
    // overflowed the window's per-class sums (classMetrics); ragged or negative matrices
    // reached it too. Such a confusion is now dropped; the eval itself still arrives.
    void implausibleConfusionIsDropped()
    {
        LastEval obs;
        QCOMPARE(decodeRunEvent(R"({"event":"eval","step":8,"eval_accuracy":0.5,)"
                                R"("confusion":[[9000000000000000000,9000000000000000000],[1,2]]})",
                                obs),
                 RunEventKind::Eval);
        QCOMPARE(obs.evals, 1);
        QCOMPARE(obs.eval.step, int64_t(8));
        QCOMPARE(obs.eval.eval_accuracy, 0.5);
        QVERIFY(obs.eval.confusion.empty());
        for (const char *bad : {R"({"event":"eval","confusion":[[1,2],[3]]})", R"({"event":"eval","confusion":[[1,-2],[3,4]]})",
                                R"({"event":"eval","confusion":[[],[]]})"}) {
            QCOMPARE(decodeRunEvent(bad, obs), RunEventKind::Eval);
            QVERIFY2(obs.eval.confusion.empty(), bad);
        }
        // A real matrix passes unchanged.
        QCOMPARE(decodeRunEvent(R"({"event":"eval","confusion":[[400,10],[20,175]]})", obs), RunEventKind::Eval);
        QCOMPARE(obs.eval.confusion, (std::vector<std::vector<int64_t>>{{400, 10}, {20, 175}}));
    }

    // fuzz_metricsjsonl: the same confusion in metrics.jsonl reached the window's evaluation
    // view unchecked (Open Run shows the recorded evaluation). The reader shares the check.
    void implausibleConfusionInMetricsFileIsDropped()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("metrics.jsonl"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"kind":"eval","step":8,"eval_accuracy":0.5,"confusion":[[9000000000000000000,9000000000000000000],[1,1]]})"
                "\n"
                R"({"kind":"eval","step":16,"eval_accuracy":0.75,"confusion":[[3,1],[0,4]]})"
                "\n");
        f.close();
        std::string error;
        const MetricsLog log = readMetricsFile(path.toStdString(), &error);
        QVERIFY2(error.empty(), error.c_str());
        QCOMPARE(int(log.eval.size()), 2);
        QCOMPARE(log.eval[0].step, int64_t(8));
        QVERIFY(log.eval[0].confusion.empty());
        QCOMPARE(log.eval[1].confusion, (std::vector<std::vector<int64_t>>{{3, 1}, {0, 4}}));
    }

    // fuzz_evalexamples: an optional key of another type ("true_label": 1, "step": "8") made
    // json::value() throw type_error, and a "step" beyond int64 (read as a double) was
    // converted to int64_t (UBSan): the window's top-losses view aborted. Now a wb::Error
    // naming file:line and the key.
    void evalExampleKeyOfAnotherTypeIsAnError()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("eval_examples.jsonl")).toStdString();
        const std::string good = R"({"index":0,"true_label_id":0,"predicted_label_id":0,"probabilities":[1],"loss":0})";
        const std::pair<const char *, const char *> cases[] = {
            {R"({"index":0,"true_label_id":1,"predicted_label_id":0,"probabilities":[0.5,0.5],"loss":0.69,"true_label":1})",
             "\"true_label\""},
            {R"({"index":0,"step":"8","true_label_id":1,"predicted_label_id":0,"probabilities":[],"loss":0.69})",
             "\"step\""},
            {R"({"index":0,"step":99999999999999999999999999999999999999999,"true_label_id":0,"predicted_label_id":0,"probabilities":[],"loss":0})",
             "\"step\""},
            {R"({"index":0,"true_label_id":0,"predicted_label_id":0,"probabilities":[],"loss":0,"text":["a"]})", "\"text\""},
        };
        for (const auto &[line, key] : cases) {
            QFile f(QString::fromStdString(path));
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write((good + "\n" + line + "\n").c_str());
            f.close();
            try {
                (void)readEvalExamples(path);
                QFAIL(line);
            } catch (const Error &e) {
                QCOMPARE(QString::fromStdString(e.field()), QString::fromStdString(path + ":2"));
                QVERIFY2(std::string(e.what()).find(key) != std::string::npos, e.what());
            }
        }
    }

    // fuzz_bestrecord: "metric" or "evaluations_since_best" of another type made json::value()
    // throw type_error out of readBestRecord, documented as never throwing (the window's
    // checkpoint list and --predict_checkpoint_path=best call it). Now: no best record.
    void bestRecordKeyOfAnotherTypeIsNoRecord()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("best")));
        const std::string modelDir = dir.path().toStdString();
        const auto write = [&](const char *text) {
            QFile f(QString::fromStdString(bestRecordPath(modelDir)));
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(text);
        };
        write(R"({"metric":"eval_loss","value":0.3,"step":8,"checkpoint":"best/ckpt-8","evaluations_since_best":2})");
        const auto ok = readBestRecord(modelDir);
        QVERIFY(ok.has_value());
        QCOMPARE(ok->evaluations_since_best, int64_t(2));
        QCOMPARE(ok->last_evaluated_step, int64_t(8));
        for (const char *bad : {R"({"metric":["eval_accuracy"],"value":0.9,"step":8,"checkpoint":"best/ckpt-8"})",
                                R"({"metric":"eval_loss","value":0.3,"step":8,"checkpoint":"c","evaluations_since_best":"2"})",
                                R"({"metric":"eval_loss","value":0.3,"step":8,"checkpoint":"c","last_evaluated_step":1.5})"}) {
            write(bad);
            QVERIFY2(!readBestRecord(modelDir).has_value(), bad);
        }
    }
};

QTEST_GUILESS_MAIN(tst_FuzzRegressions)
#include "tst_fuzzregressions.moc"
