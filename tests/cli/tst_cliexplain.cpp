// SPDX-License-Identifier: Apache-2.0
// Issue 25: `classify --explain` writes per wordpiece attributions (JSON lines and TSV) equal
// to TextClassifier::explain's, one per wordpiece, adding up to the logit difference.
#include "clirun.h"
#include "support/multilabelwordsrun.h"
#include "support/spamwordsrun.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>

using namespace wb;

class tst_CliExplain : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    TrainingOptions m_opts;
    std::unique_ptr<TextClassifier> m_ref;

    std::vector<std::string> args(std::vector<std::string> more) const
    {
        std::vector<std::string> a{"classify", "--model_dir=" + m_opts.model_dir, "--vocab_file=" + m_opts.vocab_file};
        a.insert(a.end(), more.begin(), more.end());
        return a;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        std::string error;
        m_opts = wbtest::trainSpamWordsRun(m_dir.path().toStdString() + "/run", error);
        QVERIFY2(error.empty(), error.c_str());
        m_ref = std::make_unique<TextClassifier>(wbtest::spamWordsSource(m_opts));
    }

    void jsonLinesPerToken()
    {
        const std::string text = "free prize: claim cash now, call to win a bonus voucher, see you";
        std::string out, err;
        QCOMPARE(wbtest::runCli(args({"--text=" + text, "--text=thanks for dinner mum", "--explain", "--ig_steps=64",
                                      "--output_format=jsonl"}),
                                out, err),
                 0);
        std::istringstream lines(out);
        std::string line;
        std::getline(lines, line);
        const auto j = nlohmann::json::parse(line);
        const TokenizedText t = m_ref->tokenize(text);
        QCOMPARE(j["tokens"].get<std::vector<std::string>>(), t.tokens); // one value per wordpiece
        const auto a = j["attributions"].get<std::vector<double>>();
        QCOMPARE(a.size(), t.tokens.size());
        QCOMPARE(j["method"].get<std::string>(), std::string("integrated_gradients"));
        QCOMPARE(j["ig_steps"].get<int>(), 64);
        QCOMPARE(j["predicted_label"].get<std::string>(), std::string("spam"));
        QCOMPARE(j["target"].get<std::string>(), std::string("spam")); // the predicted class
        QCOMPARE(j["target_id"].get<int>(), 1);
        // The same numbers as the core's explain (printed with 9 significant digits).
        ExplainOptions o;
        o.ig_steps = 64;
        const Explanation e = m_ref->explain(text, {}, o);
        double sum = 0;
        for (size_t k = 0; k < a.size(); ++k) {
            QVERIFY2(std::abs(a[k] - e.attributions[k]) <= 1e-7 * std::max(1.0, std::abs(e.attributions[k])),
                     qPrintable(QString::number(a[k])));
            sum += a[k];
        }
        const auto &c = j["completeness"];
        QVERIFY(std::abs(sum - c["attribution_sum"].get<double>()) < 1e-6);
        const double diff = c["logit_difference"].get<double>();
        QVERIFY(std::abs(diff - (c["logit_input"].get<double>() - c["logit_baseline"].get<double>())) < 1e-6);
        QVERIFY2(std::abs(diff) > 0.005, qPrintable(QString::number(diff))); // not a vanishing difference (0.0143 here)
        QVERIFY2(std::abs(sum - diff) < 0.05 * std::abs(diff), qPrintable(QStringLiteral("%1 vs %2").arg(sum).arg(diff)));
        QCOMPARE(c["steps_too_small"].get<bool>(), false);
        // The logit of the input is the model's: softmax of the logits gives classify's probabilities.
        QVERIFY(std::abs(c["logit_input"].get<double>() - e.logits[1]) < 1e-5);
        // Words: the wordpieces merged; a spam word is among the words for spam.
        double best = -1e9;
        std::string bestWord;
        for (const auto &w : j["words"]) {
            if (w["attribution"].get<double>() > best)
                best = w["attribution"].get<double>(), bestWord = w["word"].get<std::string>();
        }
        QVERIFY2(bestWord == "free" || bestWord == "prize" || bestWord == "claim" || bestWord == "cash" || bestWord == "now",
                 bestWord.c_str());
        QVERIFY(std::getline(lines, line)); // one object per text
        QCOMPARE(nlohmann::json::parse(line)["predicted_label"].get<std::string>(), std::string("ham"));
        QVERIFY(!std::getline(lines, line));
    }

    void tsvRowPerWordpiece()
    {
        const std::string text = "win cash now";
        std::string out, err;
        QCOMPARE(wbtest::runCli(args({"--text=" + text, "--explain", "--explain_class=ham",
                                      "--explain_method=gradient_x_input"}),
                                out, err),
                 0);
        std::istringstream lines(out);
        std::string line;
        std::getline(lines, line);
        QCOMPARE(line, std::string("text_index\ttoken_index\ttoken\tattribution\ttarget\tpredicted_label\tlogit_difference\tcompleteness_gap"));
        ExplainOptions o;
        o.method = AttributionMethod::GradientXInput;
        o.target_label_id = 0;
        const Explanation e = m_ref->explain(text, {}, o);
        size_t rows = 0;
        while (std::getline(lines, line)) {
            std::vector<std::string> cells;
            std::istringstream c(line);
            for (std::string cell; std::getline(c, cell, '\t');)
                cells.push_back(cell);
            QCOMPARE(cells.size(), size_t(8));
            QCOMPARE(cells[0], std::string("0"));
            QCOMPARE(cells[1], std::to_string(rows));
            QCOMPARE(cells[2], e.tokens[rows]);
            QVERIFY(std::abs(std::stod(cells[3]) - e.attributions[rows]) <= 1e-7 * std::max(1.0, std::abs(e.attributions[rows])));
            QCOMPARE(cells[4], std::string("ham"));
            QCOMPARE(cells[5], std::string("spam"));
            ++rows;
        }
        QCOMPARE(rows, m_ref->tokenize(text).tokens.size()); // [CLS] win cash now [SEP]
        QCOMPARE(rows, size_t(5));
    }

    void tooFewStepsAreSaid()
    {
        std::string out, err;
        QCOMPARE(wbtest::runCli(args({"--text=free prize claim cash now win", "--explain", "--ig_steps=1",
                                      "--output_format=jsonl"}),
                                out, err),
                 0);
        const auto j = nlohmann::json::parse(out.substr(0, out.find('\n')));
        const bool flagged = j["completeness"]["steps_too_small"].get<bool>();
        QCOMPARE(flagged, j["completeness"]["relative_gap"].get<double>() > 0.05
                              && j["completeness"]["gap"].get<double>() > 1e-3);
        QCOMPARE(err.find("steps are too few; raise the steps (--ig_steps)") != std::string::npos, flagged);
    }

    void badOptionsAreNamed()
    {
        std::string out, err;
        QCOMPARE(wbtest::runCli(args({"--text=free", "--explain", "--ig_steps=0"}), out, err), 2);
        QVERIFY2(err.find("ig_steps is 0; it must be between 1 and 1024") != std::string::npos, err.c_str());
        QCOMPARE(wbtest::runCli(args({"--text=free", "--explain", "--explain_class=eggs"}), out, err), 2);
        QVERIFY2(err.find("explain_class: 'eggs' is neither a label name nor a label index below 2") != std::string::npos,
                 err.c_str());
        QVERIFY2(err.find("pass one of: ham, spam") != std::string::npos, err.c_str());
        QCOMPARE(out, std::string());
        QVERIFY(wbtest::runCli(args({"--text=free", "--explain", "--explain_method=shap"}), out, err) != 0);
        QVERIFY2(err.find("explain_method") != std::string::npos, err.c_str());
    }

    /// Issue 45: a multi-label model is explained for the label --explain_class names (default
    /// the most probable one), each label's own log-odds, with its sigmoid and threshold.
    void multiLabelExplainsTheLabelNamed()
    {
        QTemporaryDir dir;
        std::string error;
        const TrainingOptions o = wbtest::trainMultiLabelWordsRun(dir.path().toStdString() + "/run", error);
        QVERIFY2(error.empty(), error.c_str());
        const TextClassifier ref(wbtest::multiLabelWordsSource(o));
        const std::string text = "invoice w5 urgent asap w7 payment";
        const std::vector<std::string> base{"classify", "--model_dir=" + o.model_dir, "--vocab_file=" + o.vocab_file,
                                            "--text=" + text, "--explain", "--output_format=jsonl"};
        const Classification c = ref.classify(text);
        for (const std::string label : {"", "billing", "urgent", "2"}) {
            std::vector<std::string> a = base;
            if (!label.empty())
                a.push_back("--explain_class=" + label);
            std::string out, err;
            QCOMPARE(wbtest::runCli(a, out, err), 0);
            const auto j = nlohmann::json::parse(out.substr(0, out.find('\n')));
            const int64_t id = label.empty() ? int64_t(std::max_element(c.probabilities.begin(), c.probabilities.end())
                                                       - c.probabilities.begin())
                                             : label == "2" ? 2 : resolveLabelChoice(label, ref.labelNames(), 3);
            QCOMPARE(j["target_id"].get<int64_t>(), id);
            QCOMPARE(j["target"].get<std::string>(), ref.labelName(id));
            QCOMPARE(j["multi_label"].get<bool>(), true);
            const double p = c.probabilities[size_t(id)];
            QCOMPARE(j["target_in_predicted_set"].get<bool>(), p >= ref.thresholds()[size_t(id)]);
            QCOMPARE(j["completeness"]["threshold"].get<double>(), ref.thresholds()[size_t(id)]);
            QVERIFY(std::abs(j["completeness"]["probability_input"].get<double>() - p) < 1e-5);
            QCOMPARE(j["predicted_labels"].get<std::vector<std::string>>(), c.predicted_labels);
            ExplainOptions eo;
            eo.target_label_id = id;
            const Explanation e = ref.explain(text, {}, eo);
            const auto got = j["attributions"].get<std::vector<double>>();
            QCOMPARE(got.size(), e.attributions.size());
            for (size_t k = 0; k < got.size(); ++k)
                QVERIFY(std::abs(got[k] - e.attributions[k]) < 1e-6);
        }
    }
};

QTEST_GUILESS_MAIN(tst_CliExplain)
#include "tst_cliexplain.moc"
