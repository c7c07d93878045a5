// SPDX-License-Identifier: Apache-2.0
// Issue 47 (label to learn): one cycle (core/learn/labelcycle.h: prepare the labels, train a tiny
// BERT, rescore the pool) learns two obvious classes and gives every pool text's probabilities and
// [CLS] vector; the simulated annotator (core/learn/simulatedannotator.h, `label_simulate`) labels
// with the hidden gold labels in batches, saves them in a labels file and writes its curve.
#include "app/cli/commands.h"
#include "core/events/stoptoken.h"
#include "core/label/labelsession.h"
#include "core/label/labelstore.h"
#include "core/learn/labelcycle.h"
#include "core/learn/simulatedannotator.h"
#include "core/util/error.h"
#include "support/tinyrun.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

using namespace wb;

namespace {

// A text of class 0 draws its words from w10…w29, of class 1 from w60…w79 (the tiny vocab).
GoldText makeText(std::mt19937 &rng, int label)
{
    std::uniform_int_distribution<int> word(0, 19), length(4, 12);
    std::string text;
    for (int k = length(rng); k > 0; --k)
        text += (text.empty() ? "w" : " w") + std::to_string((label == 0 ? 10 : 60) + word(rng));
    return {text, label == 0 ? "low" : "high"};
}

std::vector<GoldText> makeTexts(int n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::vector<GoldText> out;
    for (int i = 0; i < n; ++i)
        out.push_back(makeText(rng, i % 3 == 0 ? 1 : 0)); // a third "high"
    return out;
}

} // namespace

class tst_LabelCycle : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_root;
    LabelCycleSettings m_settings;

private Q_SLOTS:
    void initTestCase()
    {
        m_root = m_dir.path().toStdString();
        wbtest::writeTinyVocab(m_root + "/vocab.txt");
        std::ofstream(m_root + "/bert_config.json")
            << "{\"vocab_size\": 100, \"hidden_size\": 32, \"num_hidden_layers\": 2, \"num_attention_heads\": 2, "
               "\"intermediate_size\": 64, \"hidden_act\": \"gelu\", \"hidden_dropout_prob\": 0.1, "
               "\"attention_probs_dropout_prob\": 0.1, \"max_position_embeddings\": 64, \"type_vocab_size\": 2, "
               "\"initializer_range\": 0.02}";
        m_settings.bert_config_file = m_root + "/bert_config.json";
        m_settings.vocab_file = m_root + "/vocab.txt";
        m_settings.max_seq_length = 16;
        m_settings.label_names = {"low", "high"};
        m_settings.learning_rate = 3e-3;
        m_settings.min_steps = 150;
        m_settings.num_threads = 1;
    }

    void oneCycleLearnsAndRescores()
    {
        const auto pool = makeTexts(60, 1), eval = makeTexts(30, 2);
        std::vector<std::string> texts;
        for (const GoldText &g : pool)
            texts.push_back(g.text);
        LabelCycle cycle(m_settings, texts);
        QCOMPARE(cycle.poolSize(), int64_t(60));
        std::vector<CycleText> train, evalTexts;
        for (int i = 0; i < 20; ++i)
            train.push_back({pool[size_t(i)].text, pool[size_t(i)].label});
        for (const GoldText &g : eval)
            evalTexts.push_back({g.text, g.label});
        StopToken stop;
        std::vector<std::string> stages;
        const CycleResult r = cycle.run(m_root + "/cycle", train, evalTexts, stop,
                                        [&](const std::string &stage, double) {
                                            if (stages.empty() || stages.back() != stage)
                                                stages.push_back(stage);
                                        });
        QCOMPARE(stages, (std::vector<std::string>{"preparing", "training", "scoring"}));
        QCOMPARE(r.train_texts, int64_t(20));
        QCOMPARE(r.eval_texts, int64_t(30));
        QVERIFY2(r.eval_accuracy >= 0.9, std::to_string(r.eval_accuracy).c_str());
        QVERIFY2(r.bag_of_words_accuracy >= 0.9, std::to_string(r.bag_of_words_accuracy).c_str());
        QCOMPARE(r.scores.n, int64_t(60));
        QCOMPARE(r.scores.num_labels, int64_t(2));
        QCOMPARE(r.scores.dim, int64_t(32));
        QCOMPARE(r.scores.probabilities.size(), size_t(120));
        QCOMPARE(r.scores.embeddings.size(), size_t(60 * 32));
        int right = 0;
        for (size_t i = 0; i < 60; ++i) {
            const float *p = r.scores.probabilities.data() + 2 * i;
            QVERIFY(std::abs(p[0] + p[1] - 1.0f) < 1e-5f);
            QCOMPARE(r.predicted[i], int64_t(p[1] > p[0] ? 1 : 0));
            right += m_settings.label_names[size_t(r.predicted[i])] == pool[i].label ? 1 : 0;
        }
        QVERIFY2(right >= 54, std::to_string(right).c_str()); // the pool is classified as the eval set is
        // The labels went through prepare as a CSV: 20 train records, 30 eval records.
        QVERIFY(std::filesystem::exists(m_root + "/cycle/prepared/train.tf_record"));
        QVERIFY(std::filesystem::exists(m_root + "/cycle/run/training_summary.json"));
    }

    void oneLabelIsNotEnough()
    {
        LabelCycle cycle(m_settings, {"w10 w11"});
        StopToken stop;
        try {
            cycle.run(m_root + "/one", {{"w10 w11", "low"}, {"w12", "low"}}, {}, stop);
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(std::string(e.what()),
                     std::string("a model needs texts of at least two labels; the labels so far are all 'low'"));
        }
        LabelCycleSettings bad = m_settings;
        bad.label_names = {"low"};
        try {
            LabelCycle c(bad, {});
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(e.field(), std::string("label_names"));
        }
    }

    void learningRateByTheStart()
    {
        LabelCycleSettings s = m_settings;
        s.learning_rate = 0; // automatic: 1e-3 from random weights
        s.min_steps = 2;
        s.min_epochs = 1;
        LabelCycle cycle(s, {});
        StopToken stop;
        cycle.run(m_root + "/auto", {{"w10 w11", "low"}, {"w60 w61", "high"}}, {}, stop);
        std::ifstream in(m_root + "/auto/run/run_config.json");
        const std::string config((std::istreambuf_iterator<char>(in)), {});
        QVERIFY2(config.find("\"learning_rate\": 0.001") != std::string::npos, config.c_str());
    }

    void simulatedAnnotatorLabelsInBatches()
    {
        const auto pool = makeTexts(50, 3), eval = makeTexts(20, 4);
        SimulationSettings s;
        s.cycle = m_settings;
        s.batch_size = 10;
        s.max_labels = 30;
        s.work_dir = m_root + "/sim";
        StopToken stop;
        const auto curve = simulateAnnotator(s, pool, eval, stop);
        // A model after every batch once both labels are there (the first batch holds both here).
        QCOMPARE(curve.size(), size_t(3));
        QCOMPARE(curve[0].labels, int64_t(10));
        QCOMPARE(curve[2].labels, int64_t(30));
        QCOMPARE(curve[2].eval_source, std::string("gold"));
        QCOMPARE(curve[2].eval_examples, int64_t(20));
        QVERIFY(curve[2].accuracy >= 0.9);
        QCOMPARE(readCurve(labelSessionCurvePath(s.work_dir)).size(), size_t(3));
        // Every label is the text's gold label, saved in the labels file; after the first model
        // the model's suggestion is recorded too.
        const auto labels = readLabelsCsv(labelSessionLabelsPath(s.work_dir)).labels;
        QCOMPARE(labels.size(), size_t(30));
        for (const PoolLabel &l : labels)
            QCOMPARE(l.label, pool[size_t(l.line - 1)].label);
        QVERIFY(labels[0].suggested_label.empty());
        QVERIFY(!labels[10].suggested_label.empty());
    }

    void terminalLabellingSavesEveryAnswer()
    {
        const std::string dir = m_root + "/terminal";
        {
            std::ofstream pool(m_root + "/texts.txt");
            for (const GoldText &g : makeTexts(40, 9))
                pool << g.text << "\n";
        }
        const std::vector<std::string> args{"--label_dir=" + dir, "--pool=" + m_root + "/texts.txt",
                                            "--label_list=low,high", "--bert_config_file=" + m_settings.bert_config_file,
                                            "--vocab_file=" + m_settings.vocab_file, "--batch_size=5",
                                            "--max_seq_length=16", "--num_threads=1"};
        // 7 labels, a skip, a bad key, an undo, 2 more labels, quit.
        std::istringstream in("1\n2\n1\n2\n1\ns\n2\n1\nx\nu\n2\n1\nq\n");
        std::ostringstream out, err;
        QVERIFY2(cli::cmdLabelWithInput(args, in, out, err) == cli::kExitOk, err.str().c_str());
        const auto labels = readLabelsCsv(dir + "/labels.csv").labels;
        const std::vector<std::string> expected{"low", "high", "low", "high", "low", "high", "high", "low"};
        QCOMPARE(labels.size(), expected.size());
        for (size_t k = 0; k < labels.size(); ++k)
            QCOMPARE(labels[k].label, expected[k]);
        QVERIFY2(out.str().find("'x' is not a key") != std::string::npos, out.str().c_str());
        QVERIFY2(out.str().find("undone: low") != std::string::npos, out.str().c_str());
        QVERIFY2(out.str().find("retraining on ") != std::string::npos, out.str().c_str());
        QVERIFY(!labels[6].suggested_label.empty()); // given after the first model
        QVERIFY(readCurve(dir + "/curve.jsonl").size() >= 1);
        // Again: the session goes on where it was, from label_session.json alone.
        std::istringstream quit("q\n");
        std::ostringstream out2, err2;
        QCOMPARE(cli::cmdLabelWithInput({"--label_dir=" + dir, "--num_threads=1"}, quit, out2, err2), int(cli::kExitOk));
        QVERIFY2(out2.str().find("40 texts, 8 labelled so far") != std::string::npos, out2.str().c_str());
        std::ostringstream out3, err3;
        QCOMPARE(cli::cmdLabelWithInput({"--label_dir=" + m_root + "/none"}, quit, out3, err3), int(cli::kExitInvalid));
        QVERIFY2(err3.str().find("this is a new session") != std::string::npos, err3.str().c_str());
    }

    void cliRandomOrderAndErrors()
    {
        auto writeCsv = [&](const std::string &name, const std::vector<GoldText> &texts) {
            std::ofstream out(m_root + "/" + name);
            out << "text,label\n";
            for (const GoldText &g : texts)
                out << g.text << "," << g.label << "\n";
        };
        writeCsv("pool.csv", makeTexts(40, 5));
        writeCsv("eval.csv", makeTexts(20, 6));
        const std::vector<std::string> common{
            "--pool_file=" + m_root + "/pool.csv", "--eval_file=" + m_root + "/eval.csv",
            "--bert_config_file=" + m_settings.bert_config_file, "--vocab_file=" + m_settings.vocab_file,
            "--max_seq_length=16", "--learning_rate=2e-3", "--num_threads=1", "--output_dir=" + m_root + "/clisim"};
        std::ostringstream out, err;
        std::vector<std::string> args{"--strategy=random", "--max_labels=20", "--measure_every=20", "--seeds=7,8"};
        args.insert(args.end(), common.begin(), common.end());
        QCOMPARE(cli::cmdLabelSimulate(args, out, err), int(cli::kExitOk));
        for (const char *seed : {"7", "8"}) {
            const auto curve = readCurve(m_root + "/clisim/random-seed" + seed + "/curve.jsonl");
            QCOMPARE(curve.size(), size_t(1)); // measured only at 20 labels
            QCOMPARE(curve[0].labels, int64_t(20));
            QCOMPARE(curve[0].strategy, std::string("random"));
        }
        QVERIFY2(out.str().find("pool 40 texts, eval 20 texts, order random") != std::string::npos, out.str().c_str());
        std::ostringstream out2, err2;
        args = {"--measure_every=15"};
        args.insert(args.end(), common.begin(), common.end());
        QCOMPARE(cli::cmdLabelSimulate(args, out2, err2), int(cli::kExitInvalid));
        QVERIFY2(err2.str().find("measure_every") != std::string::npos, err2.str().c_str());
        QVERIFY2(err2.str().find("must be a multiple of batch_size (10)") != std::string::npos, err2.str().c_str());
    }
};

QTEST_GUILESS_MAIN(tst_LabelCycle)
#include "tst_labelcycle.moc"
