// SPDX-License-Identifier: Apache-2.0
// End-to-end issue 14 on a tiny run: eval_examples.jsonl, classify == predict, the export
// read back through the Hugging Face folder path, best checkpoint + early stopping, lr_find.
#include "cli/clirun.h"
#include "core/data/examplecodec.h"
#include "core/tokenize/fulltokenizer.h"
#include "core/prepare/preparefeatures.h"
#include "core/data/tfrecordwriter.h"
#include "core/model/initcheckpoint.h"
#include "core/formats/bestmodel.h"
#include "core/formats/evalexamples.h"
#include "core/formats/runend.h"
#include "core/engine/checkpointio.h"
#include "core/formats/checkpointstate.h"
#include "core/formats/evalexamples.h"
#include "core/infer/textclassifier.h"
#include "core/launch/trainer.h"
#include "support/recordingobserver.h"
#include "support/tinyrun.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace wb;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> vocabTokens()
{
    std::vector<std::string> t{"[PAD]", "[UNK]", "[CLS]", "[SEP]"};
    for (int k = 4; k < 100; ++k)
        t.push_back("w" + std::to_string(k));
    return t;
}

std::string readText(const std::string &path)
{
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> split(const std::string &line, char sep)
{
    std::vector<std::string> out;
    std::string cur;
    std::istringstream in(line);
    while (std::getline(in, cur, sep))
        out.push_back(cur);
    return out;
}

std::vector<std::string> lines(const std::string &text)
{
    std::vector<std::string> out = split(text, '\n');
    while (!out.empty() && out.back().empty())
        out.pop_back();
    return out;
}

/// `texts` tokenized as prepare does (uncased, 16 tokens), written to `path` as predict's
/// records (label 0).
void writePredictRecords(const std::string &path, const std::vector<std::string> &texts)
{
    FullTokenizer tok(Vocab::fromTokens(vocabTokens()), true);
    TFRecordWriter w(path);
    for (const auto &t : texts) {
        ExampleFeatures f;
        buildExampleFeatures(tok, t, "", false, 16, 2, 3, 64, f);
        ClassifierRecord r;
        r.input_ids = f.input_ids;
        r.input_mask = f.input_mask;
        r.segment_ids = f.segment_ids;
        r.label_id = 0;
        w.write(encodeClassifierRecord(r));
    }
    w.commit();
}

} // namespace

class tst_TeachRun : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void evalExamplesWritten();
    void classifyEqualsPredict();
    void exportLoadsAsHuggingFaceFolder();
    void earlyStoppingKeepsBest();
    void lrFindOnTinyRun();

private:
    void checkClassifyOfTheExportEqualsPredict(const std::string &exportPath, const std::vector<std::string> &texts,
                                               const std::vector<std::string> &predicted);
    void checkClassifyOfTheBestCheckpoint(const std::string &text);
    static void checkTheTokenizerView(const std::string &exportPath, const std::string &longText);
    void checkClassifyOfAFileWithoutATextColumn(const std::string &exportPath);

    QTemporaryDir m_dir;
    std::string m_root, m_vocab;
    TrainingOptions m_opts;
    RunFinished m_trained;
};

void tst_TeachRun::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_root = m_dir.path().toStdString() + "/run";
    m_opts = wbtest::writeTinyRun(m_root);
    m_vocab = m_root + "/vocab.txt";
    {
        std::ofstream v(m_vocab);
        for (const auto &t : vocabTokens())
            v << t << "\n";
    }
    std::ofstream(m_root + "/labels.txt") << "ham\nspam\n";
    m_opts.vocab_file = m_vocab;
    m_opts.best_checkpoint_metric = "eval_accuracy";
    wbtest::RecordingObserver obs;
    StopToken stop;
    Trainer trainer;
    m_trained = trainer.run(m_opts, obs, stop);
    QVERIFY2(m_trained.status == RunStatus::Completed, m_trained.message.c_str());
    QCOMPARE(m_trained.last_step, int64_t(16));
    QVERIFY(m_trained.best_step == 8 || m_trained.best_step == 16);
    QCOMPARE(m_trained.stopped_early_at_step, int64_t(0));
}

void tst_TeachRun::evalExamplesWritten()
{
    const auto ex = readEvalExamples(evalExamplesPath(m_opts.model_dir));
    QCOMPARE(ex.size(), size_t(16));
    int64_t correct = 0;
    for (size_t i = 0; i < ex.size(); ++i) {
        const auto &e = ex[i];
        QCOMPARE(e.index, int64_t(i));
        QCOMPARE(e.step, int64_t(16));
        QCOMPARE(e.true_label_id, int64_t(i % 2)); // writeTinyRun: label k % 2
        QCOMPARE(e.true_label, std::string(i % 2 ? "spam" : "ham"));
        QCOMPARE(e.probabilities.size(), size_t(2));
        QVERIFY(std::abs(e.probabilities[0] + e.probabilities[1] - 1.0) < 1e-5);
        QCOMPARE(e.predicted_label_id, int64_t(e.probabilities[1] > e.probabilities[0] ? 1 : 0));
        QVERIFY(std::abs(e.loss + std::log(e.probabilities[size_t(e.true_label_id)])) < 1e-4);
        QVERIFY2(!e.text.empty() && e.text.find("[PAD]") == std::string::npos, e.text.c_str());
        correct += e.correct();
    }
    // The accuracy of the rows is the last evaluation's eval_accuracy.
    const auto metrics = lines(readText(m_opts.model_dir + "/metrics.jsonl"));
    double lastAccuracy = -1;
    for (const auto &l : metrics) {
        const auto j = nlohmann::json::parse(l);
        if (j["kind"] == "eval")
            lastAccuracy = j["eval_accuracy"].get<double>();
    }
    QCOMPARE(double(correct) / 16.0, lastAccuracy);
}

void tst_TeachRun::classifyEqualsPredict()
{
    // Texts tokenized as prepare does, written as predict's records.
    const std::vector<std::string> texts{"w5 w9 w13 w21", "w60 w70 w88", "w7 w77", "W8 w12 w30 w44 w49 w2", "w99",
                                         "w51 w52 w53 w54 w55 w56 w57 w58 w59 w61 w62 w63 w64 w65 w66 w67 w68"};
    const std::string predictPath = m_root + "/predict.tf_record";
    writePredictRecords(predictPath, texts);
    TrainingOptions p = m_opts;
    p.mode = "predict";
    p.eval_data_path = predictPath;
    wbtest::RecordingObserver obs;
    StopToken stop;
    Trainer trainer;
    const RunFinished pr = trainer.run(p, obs, stop);
    QVERIFY2(pr.status == RunStatus::Completed, pr.message.c_str());
    const auto predicted = lines(readText(m_opts.model_dir + "/test_results.tsv"));
    QCOMPARE(predicted.size(), texts.size());
    QVERIFY(predicted[0].find("ham") == std::string::npos); // probabilities only, no header

    TrainingOptions e = m_opts;
    e.mode = "export_only";
    e.model_export_path = m_root + "/export";
    const RunFinished er = trainer.run(e, obs, stop);
    QVERIFY2(er.status == RunStatus::Completed, er.message.c_str());

    checkClassifyOfTheExportEqualsPredict(e.model_export_path, texts, predicted);
    if (QTest::currentTestFailed())
        return;
    checkClassifyOfTheBestCheckpoint(texts[0]);
    if (QTest::currentTestFailed())
        return;
    checkTheTokenizerView(e.model_export_path, texts.back());
    if (QTest::currentTestFailed())
        return;
    checkClassifyOfAFileWithoutATextColumn(e.model_export_path);
}

/// `classify` of the export `exportPath` prints a header and, for each of `texts`, the
/// probabilities of `predicted` (predict's test_results.tsv rows, 1e-6) and the likelier label.
void tst_TeachRun::checkClassifyOfTheExportEqualsPredict(const std::string &exportPath,
                                                         const std::vector<std::string> &texts,
                                                         const std::vector<std::string> &predicted)
{
    std::vector<std::string> args{"classify", "--model_export_path=" + exportPath};
    for (const auto &t : texts)
        args.push_back("--text=" + t);
    std::string out, err;
    QCOMPARE(wbtest::runCli(args, out, err), 0);
    const auto rows = lines(out);
    QCOMPARE(rows.size(), texts.size() + 1);
    QCOMPARE(rows[0], std::string("text\tpredicted_label\tham\tspam"));
    qInfo("classify: %s", rows[1].c_str());
    for (size_t k = 0; k < texts.size(); ++k) {
        const auto cells = split(rows[k + 1], '\t');
        QCOMPARE(cells.size(), size_t(4));
        QCOMPARE(cells[0], texts[k]);
        const auto expected = split(predicted[k], '\t');
        QCOMPARE(expected.size(), size_t(2));
        for (size_t c = 0; c < 2; ++c)
            QVERIFY2(std::abs(std::stod(cells[2 + c]) - std::stod(expected[c])) < 1e-6,
                     (rows[k + 1] + " vs " + predicted[k]).c_str());
        const bool spam = std::stod(cells[3]) > std::stod(cells[2]);
        QCOMPARE(cells[1], std::string(spam ? "spam" : "ham"));
    }
}

/// The same from model_dir's best checkpoint, JSON lines, for `text`; without
/// --bert_config_file and --input_meta_data_path the paths run_config.json recorded are used.
void tst_TeachRun::checkClassifyOfTheBestCheckpoint(const std::string &text)
{
    std::string out, err;
    const std::vector<std::string> args{"classify",
                                        "--model_dir=" + m_opts.model_dir,
                                        "--bert_config_file=" + m_opts.bert_config_file,
                                        "--input_meta_data_path=" + m_opts.input_meta_data_path,
                                        "--vocab_file=" + m_vocab,
                                        "--predict_checkpoint_path=best",
                                        "--output_format=jsonl",
                                        "--text=" + text};
    QCOMPARE(wbtest::runCli(args, out, err), 0);
    const auto j = nlohmann::json::parse(lines(out).at(0));
    QCOMPARE(j["text"].get<std::string>(), text);
    QVERIFY(j["probabilities"].contains("ham") && j["probabilities"].contains("spam"));
    // Without --bert_config_file and --input_meta_data_path: the paths run_config.json
    // recorded are used (said on stderr), with the same result.
    std::string outRun, errRun;
    QCOMPARE(wbtest::runCli({"classify", "--model_dir=" + m_opts.model_dir, "--vocab_file=" + m_vocab,
                             "--predict_checkpoint_path=best", "--output_format=jsonl", "--text=" + text},
                            outRun, errRun),
             0);
    QCOMPARE(outRun, out);
    QVERIFY2(errRun.find("--bert_config_file not given: using the run's " + m_opts.bert_config_file) != std::string::npos,
             errRun.c_str());
    QVERIFY2(errRun.find("--input_meta_data_path not given: using the run's " + m_opts.input_meta_data_path)
                 != std::string::npos,
             errRun.c_str());
}

/// The tokenizer view the window shows, of the export `exportPath`: `longText` cut to 16 tokens.
void tst_TeachRun::checkTheTokenizerView(const std::string &exportPath, const std::string &longText)
{
    const TextClassifier c([&] {
        ClassifierSource s;
        s.model_export_path = exportPath;
        return s;
    }());
    const TokenizedText t = c.tokenize(longText);
    QCOMPARE(t.tokens.front(), std::string("[CLS]"));
    QCOMPARE(t.tokens.back(), std::string("[SEP]"));
    QCOMPARE(int64_t(t.tokens.size()), int64_t(16));
    QVERIFY(t.truncated);
    QCOMPARE(t.tokens_needed, int64_t(19));
    const TokenizedText u = c.tokenize("w5 zzz");
    QCOMPARE(u.tokens, (std::vector<std::string>{"[CLS]", "w5", "[UNK]", "[SEP]"}));
    QCOMPARE(u.unknown, (std::vector<bool>{false, false, true, false}));
}

/// A file without a known text column names the columns it found; --text_column picks one.
void tst_TeachRun::checkClassifyOfAFileWithoutATextColumn(const std::string &exportPath)
{
    std::string out, err;
    std::ofstream(m_root + "/in.tsv") << "id\tbody\n1\tw5\n";
    QCOMPARE(wbtest::runCli({"classify", "--model_export_path=" + exportPath, "--input_file=" + m_root + "/in.tsv"},
                            out, err),
             2);
    QVERIFY2(err.find("'id', 'body'") != std::string::npos, err.c_str());
    QCOMPARE(wbtest::runCli({"classify", "--model_export_path=" + exportPath,
                             "--input_file=" + m_root + "/in.tsv", "--text_column=body"},
                            out, err),
             0);
    QCOMPARE(lines(out).size(), size_t(2));
}

void tst_TeachRun::exportLoadsAsHuggingFaceFolder()
{
    const std::string dir = m_root + "/export";
    QVERIFY(fs::exists(dir + "/model.safetensors")); // classifyEqualsPredict exported
    QCOMPARE(readText(dir + "/labels.txt"), std::string("ham\nspam\n"));
    QCOMPARE(readText(dir + "/vocab.txt"), readText(m_vocab));
    const auto tok = nlohmann::json::parse(readText(dir + "/tokenizer_config.json"));
    QCOMPARE(tok["do_lower_case"].get<bool>(), true);
    QCOMPARE(tok["max_seq_length"].get<int64_t>(), int64_t(16));
    QCOMPARE(tok["tokenizer_class"].get<std::string>(), std::string("BertTokenizer"));

    const auto hf = nlohmann::json::parse(readText(dir + "/config.json"));
    QCOMPARE(hf["model_type"].get<std::string>(), std::string("bert"));
    QCOMPARE(hf["architectures"][0].get<std::string>(), std::string("BertForSequenceClassification"));
    QCOMPARE(hf["id2label"]["1"].get<std::string>(), std::string("spam"));
    QCOMPARE(hf["label2id"]["ham"].get<int64_t>(), int64_t(0));
    QCOMPARE(hf["layer_norm_eps"].get<double>(), 1e-12);

    // Read back through our Hugging Face folder path.
    const CheckpointSource src = locateCheckpoint(dir);
    QCOMPARE(src.format, CheckpointFormat::Safetensors);
    QCOMPARE(fs::path(src.path).filename().string(), std::string("model.safetensors"));
    QVERIFY(!src.config_json.empty());
    Diagnostics diag;
    const BertConfig cfg = BertConfig::fromJson(hf, src.config_json, diag);
    QVERIFY2(!diag.hasErrors(), diag.format().c_str());
    QCOMPARE(cfg.labelNames(), (std::vector<std::string>{"ham", "spam"}));
    QCOMPARE(cfg.hidden_size, int64_t(32));
    QCOMPARE(cfg.num_hidden_layers, int64_t(2));

    nn::BertForSequenceClassification fromExport(cfg, 2, nn::makeGenerator(1)), fromCkpt(cfg, 2, nn::makeGenerator(2));
    const CheckpointMatch m = loadInitCheckpoint(fromExport, dir);
    QVERIFY(m.missing.empty());
    QVERIFY(!m.classifierMissing);
    QCOMPARE(m.loaded.size(), namedParameters(fromExport).size());
    bool sawWord = false, sawClassifier = false;
    for (const auto &[file, model] : m.loaded) {
        sawWord |= file == "bert.embeddings.word_embeddings.weight";
        sawClassifier |= file == "classifier.weight";
    }
    QVERIFY(sawWord && sawClassifier);
    loadCheckpoint(latestCheckpoint(m_opts.model_dir), fromCkpt, nullptr, false);
    const auto a = namedParameters(fromExport), b = namedParameters(fromCkpt);
    for (size_t k = 0; k < a.size(); ++k)
        QVERIFY2(torch::equal(a[k].second, b[k].second), a[k].first.c_str());
}

void tst_TeachRun::earlyStoppingKeepsBest()
{
    wbtest::TinyRun p;
    p.num_train_epochs = 12;
    TrainingOptions o = wbtest::writeTinyRun(m_dir.path().toStdString() + "/early", p);
    o.best_checkpoint_metric = "eval_accuracy";
    o.early_stopping_patience = 2;
    o.keep_checkpoint_max = 1;
    wbtest::RecordingObserver obs;
    StopToken stop;
    Trainer trainer;
    const RunFinished r = trainer.run(o, obs, stop);
    QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
    std::vector<double> accuracies;
    for (const auto &e : obs.evals)
        accuracies.push_back(e.eval_accuracy);
    // What the pure decision says about the accuracies this run saw, from the start.
    const EarlyStopDecision d = earlyStoppingDecision(accuracies, true, 2);
    QVERIFY2(d.stop_index >= 0, "the run did not plateau within 12 epochs");
    QCOMPARE(int64_t(accuracies.size()), d.stop_index + 1); // stopped right at that evaluation
    const int64_t stopStep = (d.stop_index + 1) * 8, bestStep = (d.best_index + 1) * 8;
    std::string seen;
    for (double a : accuracies)
        seen += std::to_string(a) + " ";
    qInfo("eval_accuracy per evaluation: %s-> %s", seen.c_str(), r.message.c_str());
    QCOMPARE(r.stopped_early_at_step, stopStep);
    QCOMPARE(r.best_step, bestStep);
    QCOMPARE(r.last_step, stopStep);
    QCOMPARE(r.message, "stopped early at step " + std::to_string(stopStep) + "; best at step " + std::to_string(bestStep));
    QVERIFY(obs.finished.size() == 1 && obs.finished[0].stopped_early_at_step == stopStep);

    const std::string best = o.model_dir + "/best/" + checkpointName(bestStep);
    QVERIFY(fs::exists(best));
    QCOMPARE(r.best_checkpoint, best);
    // Issue 44 item 7: the best evaluation's examples beside it, for Top losses.
    QCOMPARE(keptEvalExamplesPath(o.model_dir), bestEvalExamplesPath(o.model_dir));
    QCOMPARE(readEvalExamples(bestEvalExamplesPath(o.model_dir)).at(0).step, bestStep);
    QVERIFY(!fs::exists(o.model_dir + "/" + checkpointName(bestStep))); // keep_checkpoint_max=1 removed the original
    const auto rec = readBestRecord(o.model_dir);
    QVERIFY(rec);
    QCOMPARE(rec->step, bestStep);
    QCOMPARE(rec->metric, std::string("eval_accuracy"));
    QCOMPARE(rec->value, accuracies[size_t(d.best_index)]);
    const auto summary = nlohmann::json::parse(readText(o.model_dir + "/training_summary.json"));
    QCOMPARE(summary["stopped_early_at_step"].get<int64_t>(), stopStep);
    QCOMPARE(summary["best_step"].get<int64_t>(), bestStep);

    // predict --predict_checkpoint_path=best uses it.
    TrainingOptions pr = o;
    pr.mode = "predict";
    pr.predict_checkpoint_path = "best";
    const RunFinished pf = trainer.run(pr, obs, stop);
    QVERIFY2(pf.status == RunStatus::Completed, pf.message.c_str());
    QCOMPARE(pf.last_checkpoint, best);

    // Training again does not train past the early stop.
    const RunFinished again = trainer.run(o, obs, stop);
    QVERIFY2(again.status == RunStatus::Completed, again.message.c_str());
    QCOMPARE(again.last_step, stopStep);
    QVERIFY2(again.message.find("already complete") != std::string::npos, again.message.c_str());
    QCOMPARE(latestCheckpoint(o.model_dir), o.model_dir + "/" + checkpointName(stopStep));
}

void tst_TeachRun::lrFindOnTinyRun()
{
    TrainingOptions o = m_opts;
    o.model_dir = m_dir.path().toStdString() + "/lrfind";
    o.best_checkpoint_metric.clear();
    o.vocab_file.clear();
    o.eval_data_path.clear(); // the range test never evaluates: no evaluation data needed
    std::vector<std::string> args{"lr_find"};
    for (const auto &f : toCommandLineFlags(o))
        args.push_back(f);
    args.push_back("--lr_find_steps=40");
    std::string out, err;
    QCOMPARE(wbtest::runCli(args, out, err), 0);
    // The dialog's sentences (lrFindSummary), no longer "suggested learning_rate: …" of its own.
    QVERIFY2(out.find("Suggested learning rate: ") != std::string::npos, out.c_str());
    // Only lr_find.json in model_dir.
    std::vector<std::string> files;
    for (const auto &e : fs::directory_iterator(o.model_dir))
        files.push_back(e.path().filename().string());
    QCOMPARE(files, std::vector<std::string>{"lr_find.json"});
    const auto j = nlohmann::json::parse(readText(o.model_dir + "/lr_find.json"));
    const auto lrs = j["learning_rates"].get<std::vector<double>>();
    QVERIFY(lrs.size() >= 2 && lrs.size() <= 40);
    QCOMPARE(j["steps"].size(), lrs.size());
    QCOMPARE(j["losses"].size(), lrs.size());
    QCOMPARE(j["smoothed"].size(), lrs.size());
    QCOMPARE(lrs.front(), 1e-7);
    for (size_t k = 1; k < lrs.size(); ++k)
        QVERIFY(lrs[k] > lrs[k - 1] && lrs[k] <= 1.0 + 1e-12);
    const double s = j["suggestion"].get<double>();
    qInfo("lr_find: %zu steps, last lr %g, suggestion %g, diverged %d", lrs.size(), lrs.back(), s,
          int(j["diverged"].get<bool>()));
    QVERIFY2(s >= lrs.front() && s <= lrs.back(), std::to_string(s).c_str());
    QVERIFY(std::find(lrs.begin(), lrs.end(), s) != lrs.end());
    if (!j["diverged"].get<bool>())
        QCOMPARE(lrs.size(), size_t(40));
}

QTEST_APPLESS_MAIN(tst_TeachRun)
#include "tst_teachrun.moc"
