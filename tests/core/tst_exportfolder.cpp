// SPDX-License-Identifier: Apache-2.0
// The export folder (issue 26): ExportStaging writes it whole or not at all and refuses to mix
// it with other files; a regression model's export has no labels.txt of "label 0".
#include "core/config/bertconfig.h"
#include "core/config/inputmetadata.h"
#include "core/config/optionwords.h"
#include "core/config/trainingoptions.h"
#include "core/export/export.h"
#include "core/formats/exportfolder.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

using namespace wb;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> entries(const std::string &dir)
{
    std::vector<std::string> names;
    for (const auto &e : fs::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

class tst_ExportFolder : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string root() const { return m_dir.path().toStdString(); }

private Q_SLOTS:
    void writtenWholeOrNotAtAll()
    {
        const std::string parent = root() + "/whole";
        const std::string target = parent + "/out";
        {
            ExportStaging s(target, false);
            QCOMPARE(fs::path(s.path()).parent_path(), fs::path(parent));
            QVERIFY(fs::path(s.path()).filename().string().rfind(".out.partial-", 0) == 0);
            std::ofstream(s.path() + "/config.json") << "{}\n";
            QVERIFY(!fs::exists(target)); // nothing at the target before commit()
            s.commit();
        }
        QCOMPARE(entries(parent), std::vector<std::string>{"out"});
        QCOMPARE(entries(target), std::vector<std::string>{"config.json"});

        // Destroyed without commit (an exception, a full disk): the staging folder goes, the target stays.
        const std::string other = parent + "/never";
        try {
            ExportStaging s(other, false);
            std::ofstream(s.path() + "/model.safetensors") << "half";
            throw Error("model.safetensors", "write failed: File too large");
        } catch (const Error &) {
        }
        QCOMPARE(entries(parent), std::vector<std::string>{"out"});
    }

    void foreignFilesAreNeverMixedOrReplaced()
    {
        const std::string file = root() + "/a-file";
        std::ofstream(file) << "x";
        QCOMPARE(exportTargetProblem(file, true), std::string("it is a file, not a folder"));
        const std::string mine = root() + "/mine";
        fs::create_directories(mine);
        QCOMPARE(exportTargetProblem(mine, false), std::string()); // empty: fine
        std::ofstream(mine + "/notes.txt") << "keep";
        QCOMPARE(exportTargetProblem(mine, false), std::string("the folder is not empty"));
        QVERIFY(exportTargetProblem(mine, true).find("holds no earlier export") != std::string::npos);
        QVERIFY_THROWS_EXCEPTION(Error, ExportStaging(mine, true));
        QCOMPARE(entries(mine), std::vector<std::string>{"notes.txt"});
        QCOMPARE(entries(root()), (std::vector<std::string>{"a-file", "mine", "whole"})); // no staging folder left

        // An earlier export is replaced whole with --overwrite_output_dir.
        const std::string earlier = root() + "/earlier";
        fs::create_directories(earlier);
        std::ofstream(earlier + "/bert_config.json") << "{}";
        std::ofstream(earlier + "/stray.txt") << "old";
        QCOMPARE(exportTargetProblem(earlier, true), std::string());
        {
            ExportStaging s(earlier, true);
            std::ofstream(s.path() + "/model.safetensors") << "new";
            s.commit();
        }
        QCOMPARE(entries(earlier), std::vector<std::string>{"model.safetensors"});
        for (const auto &name : entries(root()))
            QVERIFY2(name.find(".replaced-") == std::string::npos && name.find(".partial-") == std::string::npos,
                     name.c_str());

        Diagnostics diag;
        checkExportTarget(mine, false, diag);
        QCOMPARE(diag.errorCount(), 1);
        QCOMPARE(diag.items().front().field, std::string("model_export_path"));
        QCOMPARE(diag.items().front().message, "cannot export into " + mine + ": the folder is not empty");
    }

    void regressionExportHasNoLabelsFile()
    {
        Diagnostics diag;
        const BertConfig cfg = BertConfig::fromJson(
            nlohmann::json{{"vocab_size", 16}, {"hidden_size", 8}, {"num_hidden_layers", 1}, {"num_attention_heads", 2},
                           {"intermediate_size", 16}, {"max_position_embeddings", 16}, {"type_vocab_size", 2}},
            "bert_config.json", diag);
        QVERIFY(!diag.hasErrors());
        InputMetaData meta;
        meta.num_labels = 1;
        meta.label_type = "float";
        meta.task_type = "bert_regression";
        meta.max_seq_length = 8;
        meta.do_lower_case = true;
        const std::string dir = root() + "/regression";
        fs::create_directories(dir);
        std::ofstream vocab(dir + "-vocab.txt");
        for (const char *t : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b", "c", "d", "e", "f", "g", "h", "i",
                              "j", "k"})
            vocab << t << "\n";
        vocab.close();
        TrainingOptions spec;
        spec.vocab_file = dir + "-vocab.txt";
        spec.input_meta_data_path = root() + "/no-such/input_meta_data.json";
        nn::BertForSequenceClassification model(cfg, 1, nn::makeGenerator(1));
        std::vector<std::string> warnings;
        const auto written = exportModelFiles(dir, model, cfg, meta, spec,
                                              [&](const std::string &w) { warnings.push_back(w); });
        QCOMPARE(written, (std::vector<std::string>{"model.safetensors", "config.json", "bert_config.json",
                                                     "input_meta_data.json", "vocab.txt", "tokenizer.json",
                                                     "tokenizer_config.json", "special_tokens_map.json",
                                                     "onnx/model.onnx"}));
        QVERIFY(!fs::exists(dir + "/labels.txt"));
        const auto config = nlohmann::json::parse(readAll(dir + "/config.json"));
        QCOMPARE(config["problem_type"].get<std::string>(), std::string("regression"));
        QCOMPARE(config["num_labels"].get<int>(), 1);
        QVERIFY(!config.contains("id2label"));
        const auto tok = nlohmann::json::parse(readAll(dir + "/tokenizer.json"));
        QCOMPARE(tok["model"]["vocab"]["k"].get<int>(), 15);
        QCOMPARE(tok["post_processor"]["special_tokens"]["[SEP]"]["ids"][0].get<int>(), 3);
    }

    /// predictions.jsonl: a prediction the model did not give (no output) is null, never 0
    /// (issue 41); a non-finite one too; a real 0 stays 0.
    void absentPredictionIsNull()
    {
        const std::string dir = root() + "/predictions";
        fs::create_directories(dir);
        const std::string path = writeLabelledPredictions(
            dir, {{}, {std::numeric_limits<float>::quiet_NaN()}, {0.0f}, {2.5f}}, {}, {}, {1.0, 2.0, 3.0, 4.0}, true);
        std::istringstream lines(readAll(path));
        std::vector<nlohmann::json> rows;
        for (std::string line; std::getline(lines, line);)
            rows.push_back(nlohmann::json::parse(line));
        QCOMPARE(rows.size(), size_t(4));
        QVERIFY2(rows[0]["prediction"].is_null(), rows[0].dump().c_str());
        QVERIFY2(rows[1]["prediction"].is_null(), rows[1].dump().c_str());
        QCOMPARE(rows[2]["prediction"].get<double>(), 0.0);
        QCOMPARE(rows[3]["prediction"].get<double>(), 2.5);
        QCOMPARE(rows[0]["label"].get<double>(), 1.0);
    }

    /// The hints name the options as the front-end that shows them sets them: flags on the
    /// command line, the fields' labels in the window (optionwords.h); an option without a
    /// field keeps its flag in both.
    void hintsNameTheOptionInTheFrontEndsWords()
    {
        const auto stagingHint = [] {
            try {
                ExportStaging s("", false);
            } catch (const Error &e) {
                return e.hint();
            }
            return std::string("(no error)");
        };
        const std::string busy = root() + "/busy";
        fs::create_directories(busy);
        std::ofstream(busy + "/notes.txt") << "keep";
        const auto targetHint = [&busy] {
            Diagnostics diag;
            checkExportTarget(busy, false, diag);
            return diag.items().empty() ? std::string("(no finding)") : diag.items().front().hint;
        };
        const auto vocabHint = [this] {
            try {
                readVocabularyForExport(root() + "/no-vocab.txt");
            } catch (const Error &e) {
                return e.hint();
            }
            return std::string("(no error)");
        };
        QCOMPARE(stagingHint(), std::string("pass --model_export_path=<directory>"));
        QCOMPARE(targetHint(), std::string("choose a new or empty folder for --model_export_path, or pass "
                                           "--overwrite_output_dir to replace an earlier export there"));
        QCOMPARE(vocabHint(), std::string("check --vocab_file"));
        setOptionWording(OptionWording::Window);
        const std::string staging = stagingHint(), target = targetHint(), vocab = vocabHint();
        setOptionWording(OptionWording::CommandLine);
        QCOMPARE(staging, std::string("fill in \u201cExport directory\u201d"));
        QCOMPARE(target, std::string("choose a new or empty folder for \u201cExport directory\u201d, or tick "
                                     "\u201cReplace an earlier export\u201d to replace an earlier export there"));
        QCOMPARE(vocab, std::string("check \u201cVocabulary\u201d"));
    }
};

QTEST_GUILESS_MAIN(tst_ExportFolder)
#include "tst_exportfolder.moc"
