// SPDX-License-Identifier: Apache-2.0
// Fill-in-the-blank with a pretraining run (issue 24): FillMaskPredictor's probabilities are
// the softmax of the model's own MLM logits at the [MASK]s, the same from the model_dir and
// from its export; top-1 of a briefly pretrained model is the right token; a text without
// [MASK] and a classifier are clear errors; `fill_mask` prints the predictor's numbers.
#include "app/cli/commands.h"
#include "cli/clirun.h"
#include "core/config/bertconfig.h"
#include "core/model/pretrainingheads.h"
#include "core/engine/checkpointio.h"
#include "core/formats/checkpointstate.h"
#include "core/infer/fillmask.h"
#include "core/util/error.h"
#include "support/pretrainingrecords.h"
#include "support/tinyrun.h"

#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace wb;
namespace fs = std::filesystem;

class tst_FillMask : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    TrainingOptions m_cls; ///< a classification run of the same model config
    std::string m_meta, m_vocab, m_pt;
    std::string path(const std::string &name) const { return (fs::path(m_dir.path().toStdString()) / name).string(); }

    FillMaskSource runSource() const
    {
        FillMaskSource s;
        s.model_dir = m_pt;
        return s;
    }

    /// softmax(mlmLogitsAllPositions) of the run's latest checkpoint at `positions` of `ids`,
    /// computed here from the model itself.
    std::vector<std::vector<double>> referenceSoftmax(const std::vector<int64_t> &ids, const std::vector<int64_t> &positions) const
    {
        Diagnostics diag;
        const BertConfig cfg = *BertConfig::load(m_cls.bert_config_file, diag);
        nn::BertForPreTraining model(cfg, false, nn::makeGenerator(123));
        const CheckpointModel view{*model, model->config(), 0, model->generator()};
        loadModelCheckpoint(latestCheckpoint(m_pt), view, nullptr, false);
        model->eval();
        torch::NoGradGuard guard;
        const int64_t n = int64_t(ids.size());
        auto tIds = torch::tensor(ids, torch::kInt64).view({1, n});
        auto ones = torch::ones({1, n}, torch::kInt64), zeros = torch::zeros({1, n}, torch::kInt64);
        const torch::Tensor logits = model->mlmLogitsAllPositions(tIds, ones, zeros)[0]; // [S, V]
        std::vector<std::vector<double>> out;
        for (int64_t p : positions) {
            const torch::Tensor row = logits[p].to(torch::kFloat64);
            const torch::Tensor e = (row - row.max()).exp();
            const torch::Tensor sm = e / e.sum();
            out.emplace_back(sm.data_ptr<double>(), sm.data_ptr<double>() + sm.numel());
        }
        return out;
    }

private Q_SLOTS:
    void initTestCase()
    {
        wbtest::TinyRun p; // BERT L=2, H=32, vocab 100
        p.dropout_prob = 0.0;
        m_cls = wbtest::writeTinyRun(path("cls"), p);
        m_meta = path("pretraining_meta.json");
        std::ofstream(m_meta) << "{\"task_type\": \"bert_pretraining\", \"max_seq_length\": 16, \"max_predictions_per_seq\": 5, "
                                 "\"train_data_size\": 64, \"eval_data_size\": 16, \"use_next_sentence_label\": false, "
                                 "\"masking\": \"static\", \"masked_lm_prob\": 0.15, \"whole_word_masking\": false, "
                                 "\"vocab_size\": 100, \"do_lower_case\": true}";
        wbtest::writeMaskedLmRecords(path("train.tf_record"), 64, 16, 5, 100, 1);
        wbtest::writeMaskedLmRecords(path("eval.tf_record"), 16, 16, 5, 100, 2);
        m_vocab = path("vocab.txt");
        {
            std::ofstream v(m_vocab);
            for (int k = 0; k < 100; ++k)
                v << (k == 0 ? "[PAD]" : k == 1 ? "[UNK]" : k == 2 ? "[CLS]" : k == 3 ? "[SEP]" : k == 4 ? "[MASK]" : "w" + std::to_string(k)) << "\n";
        }
        m_pt = path("pt");
        std::string out, err;
        // The records' sequences are "w6 w7 … w19" (and two other families): a token follows
        // from its position and its neighbours, so a short run learns them.
        const int code = wbtest::runCli({"pretrain", "--distribution_strategy=one_device", "--bert_config_file=" + m_cls.bert_config_file,
                                         "--input_meta_data_path=" + m_meta, "--train_data_path=" + path("train.tf_record"),
                                         "--eval_data_path=" + path("eval.tf_record"), "--model_dir=" + m_pt,
                                         "--vocab_file=" + m_vocab, "--train_batch_size=8", "--eval_batch_size=8",
                                         "--num_train_epochs=20", "--learning_rate=3e-3", "--num_threads=1"},
                                        out, err);
        QVERIFY2(code == int(cli::kExitOk), (out + err).c_str());
    }

    void probabilitiesAreTheModelsSoftmax()
    {
        const FillMaskPredictor predictor(runSource());
        QCOMPARE(predictor.vocabSize(), int64_t(100));
        QCOMPARE(predictor.maxSeqLength(), int64_t(16));
        const std::string text = "w6 w7 [MASK] w9 w10 [mask] w12";
        const FillMaskResult r = predictor.predict(text, 10);
        const std::vector<std::string> tokens{"[CLS]", "w6", "w7", "[MASK]", "w9", "w10", "[MASK]", "w12", "[SEP]"};
        QCOMPARE(r.tokens, tokens);
        QCOMPARE(r.input_ids, (std::vector<int64_t>{2, 6, 7, 4, 9, 10, 4, 12, 3}));
        QCOMPARE(r.masks.size(), size_t(2));
        QCOMPARE(r.masks[0].position, int64_t(3));
        QCOMPARE(r.masks[1].position, int64_t(6));
        QVERIFY(!r.truncated);
        const auto reference = referenceSoftmax(r.input_ids, {3, 6});
        const auto all = predictor.maskProbabilities(text);
        QCOMPARE(all.size(), size_t(2));
        for (size_t m = 0; m < 2; ++m) {
            QCOMPARE(all[m].size(), size_t(100));
            double sum = 0;
            for (size_t v = 0; v < 100; ++v) {
                sum += all[m][v];
                QVERIFY2(std::abs(all[m][v] - reference[m][v]) < 1e-6,
                         qPrintable(QStringLiteral("mask %1 token %2: %3 vs %4").arg(m).arg(v).arg(all[m][v]).arg(reference[m][v])));
            }
            QVERIFY(std::abs(sum - 1.0) < 1e-9);
            QCOMPARE(r.masks[m].top.size(), size_t(10));
            double topSum = 0;
            for (size_t k = 0; k < 10; ++k) {
                const MaskCandidate &c = r.masks[m].top[k];
                QCOMPARE(c.probability, all[m][size_t(c.token_id)]);
                const char *special[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
                QCOMPARE(c.token, c.token_id < 5 ? std::string(special[c.token_id]) : "w" + std::to_string(c.token_id));
                if (k > 0)
                    QVERIFY(c.probability <= r.masks[m].top[k - 1].probability);
                topSum += c.probability;
            }
            QVERIFY(topSum <= 1.0 + 1e-12);
            // Nothing outside the top 10 is more probable than its last.
            for (size_t v = 0; v < 100; ++v) {
                bool inTop = false;
                for (const auto &c : r.masks[m].top)
                    inTop = inTop || c.token_id == int64_t(v);
                if (!inTop)
                    QVERIFY(all[m][v] <= r.masks[m].top.back().probability);
            }
        }
    }

    void briefPretrainingFillsTheRightToken()
    {
        const FillMaskPredictor predictor(runSource());
        // A whole sequence of the first family, as the run saw them, with w11 hidden.
        const FillMaskResult r = predictor.predict("w6 w7 w8 w9 w10 [MASK] w12 w13 w14 w15 w16 w17 w18 w19", 3);
        QCOMPARE(r.masks.size(), size_t(1));
        QString top;
        for (const MaskCandidate &c : r.masks[0].top)
            top += QStringLiteral("%1 %2; ").arg(QString::fromStdString(c.token)).arg(c.probability);
        QVERIFY2(r.masks[0].top.front().token == "w11", qPrintable(top));
        QVERIFY2(r.masks[0].top.front().probability > 0.3, qPrintable(QString::number(r.masks[0].top.front().probability)));
    }

    void exportGivesTheSameNumbers()
    {
        std::string out, err;
        QVERIFY2(wbtest::runCli({"export", "--distribution_strategy=one_device", "--bert_config_file=" + m_cls.bert_config_file,
                                 "--input_meta_data_path=" + m_meta, "--model_dir=" + m_pt,
                                 "--model_export_path=" + path("pt_export"), "--vocab_file=" + m_vocab},
                                out, err) == int(cli::kExitOk),
                 err.c_str());
        FillMaskSource s;
        s.model_export_path = path("pt_export");
        const FillMaskPredictor fromExport(s);
        const FillMaskPredictor fromRun(runSource());
        const std::string text = "w20 [MASK] w22";
        const auto a = fromExport.maskProbabilities(text), b = fromRun.maskProbabilities(text);
        QCOMPARE(a.size(), size_t(1));
        for (size_t v = 0; v < 100; ++v)
            QVERIFY(std::abs(a[0][v] - b[0][v]) < 1e-6);
    }

    void textWithoutMaskIsAnError()
    {
        const FillMaskPredictor predictor(runSource());
        QVERIFY(!hasMaskToken("the meeting is on monday"));
        QVERIFY(hasMaskToken("the meeting is on [Mask]"));
        try {
            predictor.predict("w6 w7 w8", 10);
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(e.field(), std::string("text"));
            QVERIFY2(std::string(e.what()).find("no [MASK]") != std::string::npos, e.what());
        }
        try {
            predictor.predict("w6 [MASK]", 0);
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(e.field(), std::string("top_k"));
        }
        // Every [MASK] beyond max_seq_length (16: [CLS] + 14 tokens + [SEP]).
        std::string longText;
        for (int k = 0; k < 20; ++k)
            longText += "w" + std::to_string(10 + k) + " ";
        try {
            predictor.predict(longText + "[MASK]", 10);
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(e.field(), std::string("text"));
            QVERIFY2(std::string(e.what()).find("beyond max_seq_length = 16") != std::string::npos, e.what());
        }
        const FillMaskResult cut = predictor.predict("w6 [MASK] " + longText + "[MASK]", 1);
        QVERIFY(cut.truncated);
        QCOMPARE(cut.masks.size(), size_t(1));
        QCOMPARE(cut.tokens.size(), size_t(16));
    }

    void classifierIsRefused()
    {
        FillMaskSource s = runSource();
        s.input_meta_data_path = m_cls.input_meta_data_path;
        try {
            const FillMaskPredictor p(s);
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(e.field(), m_cls.input_meta_data_path);
            QVERIFY2(std::string(e.what()).find("not bert_pretraining") != std::string::npos, e.what());
        }
    }

    void cliPrintsThePredictorsNumbers()
    {
        std::string out, err;
        QCOMPARE(wbtest::runCli({"fill_mask", "--model_dir=" + m_pt, "--text=w6 [MASK] w8", "--top_k=3"}, out, err),
                 int(cli::kExitOk));
        const FillMaskPredictor predictor(runSource());
        const FillMaskResult r = predictor.predict("w6 [MASK] w8", 3);
        std::istringstream lines(out);
        std::string line;
        std::getline(lines, line);
        QCOMPARE(line, std::string("text\tmask\trank\ttoken\ttoken_id\tprobability"));
        for (size_t k = 0; k < 3; ++k) {
            QVERIFY(std::getline(lines, line));
            char p[32];
            std::snprintf(p, sizeof p, "%.9g", r.masks[0].top[k].probability);
            QCOMPARE(line, "w6 [MASK] w8\t1\t" + std::to_string(k + 1) + "\t" + r.masks[0].top[k].token + "\t"
                               + std::to_string(r.masks[0].top[k].token_id) + "\t" + p);
        }
        QVERIFY(!std::getline(lines, line));

        QCOMPARE(wbtest::runCli({"fill_mask", "--model_dir=" + m_pt, "--text=w6 [MASK] w8", "--top_k=2", "--output_format=jsonl"}, out, err),
                 int(cli::kExitOk));
        const auto j = nlohmann::json::parse(out);
        QCOMPARE(j.at("masks").size(), size_t(1));
        QCOMPARE(j.at("masks")[0].at("position").get<int64_t>(), int64_t(2));
        QCOMPARE(j.at("masks")[0].at("top")[0].at("token").get<std::string>(), r.masks[0].top[0].token);

        QCOMPARE(wbtest::runCli({"fill_mask", "--model_dir=" + m_pt, "--text=no blank"}, out, err), int(cli::kExitInvalid));
        QVERIFY2(err.find("error: text: 'no blank' has no [MASK]") != std::string::npos, err.c_str());
        QCOMPARE(wbtest::runCli({"fill_mask", "--model_dir=" + path("nothing"), "--text=[MASK]"}, out, err), int(cli::kExitInvalid));
        QVERIFY2(err.find("no checkpoint found") != std::string::npos, err.c_str());
    }
};

QTEST_GUILESS_MAIN(tst_FillMask)
#include "tst_fillmask.moc"
