// SPDX-License-Identifier: Apache-2.0
// `export` shares a model (issue 26): a model_dir alone is enough (the run fills the rest, its
// best checkpoint first); the folder is written whole or not at all (a staging folder renamed
// when complete; a full disk leaves nothing), a non-empty folder is refused unless
// --overwrite_output_dir; stdout lists what was written and warnings go to stderr; the model
// card (README.md) carries the run's front matter and evaluation; tokenizer.json is beside vocab.txt.
#include "app/cli/commands.h"
#include "clirun.h"
#include "core/config/jsonfile.h"
#include "core/prepare/preparereport.h"
#include "support/tinyrun.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace wb;
namespace fs = std::filesystem;

namespace {

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> linesOf(const std::string &text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

/// The names in `dir` (files and folders), sorted.
std::vector<std::string> entries(const std::string &dir)
{
    std::vector<std::string> names;
    for (const auto &e : fs::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string num(const nlohmann::json &v)
{
    return nlohmann::json(v.get<double>()).dump();
}

} // namespace

class tst_CliExport : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_project, m_modelDir, m_exports;

    std::string root() const { return m_dir.path().toStdString(); }

    int exportTo(const std::string &out, std::string &stdoutText, std::string &stderrText,
                 const std::vector<std::string> &more = {})
    {
        std::vector<std::string> args{"export", "--model_dir=" + m_modelDir, "--model_export_path=" + out};
        args.insert(args.end(), more.begin(), more.end());
        return wbtest::runCli(args, stdoutText, stderrText);
    }

    /// The evaluations in the run's metrics.jsonl: the step of the best checkpoint (best.json)
    /// and the evaluation at that step, and the step of the last evaluation.
    struct Evaluations
    {
        int bestStep = 0, lastStep = 0;
        nlohmann::json atBest;
    };

    Evaluations evaluationsOfTheRun() const
    {
        Evaluations e;
        e.bestStep = nlohmann::json::parse(readAll(m_modelDir + "/best/best.json"))["step"].get<int>();
        for (const auto &line : linesOf(readAll(m_modelDir + "/metrics.jsonl")))
            if (!line.empty()) {
                const auto j = nlohmann::json::parse(line);
                if (j.value("kind", "") == "eval") {
                    e.lastStep = j["step"].get<int>();
                    if (e.lastStep == e.bestStep)
                        e.atBest = j;
                }
            }
        return e;
    }

    /// The card's front matter for the export "card" of the run, with the metrics of `evaluation`.
    static std::string frontMatterOfTheCard(nlohmann::json evaluation)
    {
        return "---\n"
               "license: other\n"
               "license_name: unknown\n"
               "pipeline_tag: text-classification\n"
               "library_name: transformers\n"
               "tags:\n- bert\n- text-classification\n- bert-workbench\n"
               "model-index:\n"
               "- name: \"card\"\n"
               "  results:\n"
               "  - task:\n"
               "      type: text-classification\n"
               "      name: Text Classification\n"
               "    dataset:\n"
               "      type: \"FOLDERS\"\n"
               "      name: \"evaluation set (16 examples)\"\n"
               "      split: validation\n"
               "    metrics:\n"
               "    - type: accuracy\n      value: " + num(evaluation["eval_accuracy"]) + "\n      name: eval_accuracy\n"
               "    - type: f1\n      value: " + num(evaluation["eval_f1"]) + "\n      name: eval_f1\n"
               "    - type: matthews_correlation\n      value: " + num(evaluation["eval_mcc"]) + "\n      name: eval_mcc\n"
               "    - type: f1\n      value: " + num(evaluation["eval_macro_f1"]) + "\n      name: eval_macro_f1\n"
               "    - type: loss\n      value: " + num(evaluation["eval_loss"]) + "\n      name: eval_loss\n"
               "---\n";
    }

    /// The confusion matrix of the run's eval_examples.jsonl (true → predicted) as the card
    /// writes it.
    std::string confusionMatrixOfEvalExamples() const
    {
        int64_t c[2][2] = {{0, 0}, {0, 0}};
        for (const auto &line : linesOf(readAll(m_modelDir + "/eval_examples.jsonl")))
            if (!line.empty()) {
                const auto e = nlohmann::json::parse(line);
                ++c[e["true_label_id"].get<int>()][e["predicted_label_id"].get<int>()];
            }
        return "| true \\ predicted | ham | spam |\n|---|---:|---:|\n| ham | " + std::to_string(c[0][0]) + " | "
             + std::to_string(c[0][1]) + " |\n| spam | " + std::to_string(c[1][0]) + " | " + std::to_string(c[1][1])
             + " |\n";
    }

    /// The card's baselines (majority class, bag of words), hyperparameters and usage sections.
    static void checkCardHasBaselinesHyperparametersAndUsage(const std::string &card)
    {
        QVERIFY2(card.find("- Majority class: always answering \"ham\" (the most frequent training label) is right on 9 of "
                           "16 evaluation examples, accuracy 0.5625\n")
                     != std::string::npos,
                 card.c_str());
        QVERIFY2(card.find("- Bag of words (prepare_report.json): accuracy 0.8125, macro-F1 0.8000\n") != std::string::npos,
                 card.c_str());
        QVERIFY2(card.find("- Hyperparameters: learning_rate 0.001, train_batch_size 8, num_train_epochs 2") != std::string::npos,
                 card.c_str());
        QVERIFY(card.find("## Intended use and limitations\n") != std::string::npos);
        QVERIFY(card.find("AutoModelForSequenceClassification.from_pretrained(") != std::string::npos);
        QVERIFY(card.find("bert-workbench-cli classify --model_export_path=") != std::string::npos);
    }

    /// A run that started from a catalogue model: its licence, language and base_model.
    void checkCardOfARunFromACatalogueModel()
    {
        std::string out, err;
        auto runConfig = nlohmann::ordered_json::parse(readAll(m_modelDir + "/run_config.json"));
        const std::string saved = runConfig.dump(2);
        runConfig["informational"]["pretrained_model"] = "google/bert_uncased_L-2_H-128_A-2";
        writeFileAtomic(m_modelDir + "/run_config.json", runConfig.dump(2) + "\n");
        QCOMPARE(exportTo(m_exports + "/card-pretrained", out, err), 0);
        writeFileAtomic(m_modelDir + "/run_config.json", saved + "\n");
        const std::string pretrained = readAll(m_exports + "/card-pretrained/README.md");
        QVERIFY2(pretrained.rfind("---\nlicense: apache-2.0\nlanguage:\n- en\nbase_model: google/bert_uncased_L-2_H-128_A-2\n"
                                  "pipeline_tag: text-classification\n",
                                  0)
                     == 0,
                 pretrained.c_str());
        QVERIFY(pretrained.find("- Start: the pretrained model google/bert_uncased_L-2_H-128_A-2\n") != std::string::npos);
    }

    /// The default export has onnx/model.onnx: the card says how to run it; no demo without
    /// --demo. Without the ONNX file the card does not mention it.
    void checkCardSaysHowToRunTheOnnxModel(const std::string &card)
    {
        std::string out, err;
        QVERIFY2(card.find("session = ort.InferenceSession(\"path/to/card/onnx/model.onnx\")") != std::string::npos,
                 card.c_str());
        QVERIFY(card.find("const classify = await pipeline('text-classification', 'card');") != std::string::npos);
        QVERIFY(card.find("demo/index.html") == std::string::npos);
        QVERIFY(card.find("labels.txt, onnx/model.onnx.\n") != std::string::npos);
        QVERIFY(card.find("onnx/model.onnx is float32 (--onnx_dtype fp32).\n") != std::string::npos);
        // --onnx_dtype int8 (issue 48): the card, the log and onnx/quantization.json say so.
        QCOMPARE(exportTo(m_exports + "/card-int8", out, err, {"--onnx_dtype=int8"}), 0);
        const std::string int8 = readAll(m_exports + "/card-int8/README.md");
        QVERIFY2(int8.find("onnx/model.onnx is int8 (--onnx_dtype int8): the encoder's dense weights and the word "
                           "embeddings as int8")
                     != std::string::npos,
                 int8.c_str());
        const auto report = nlohmann::json::parse(readAll(m_exports + "/card-int8/onnx/quantization.json"));
        char sentence[200];
        std::snprintf(sentence, sizeof sentence, "onnx/model.onnx int8: %.2f MB, %.1f %% of the float32 weights",
                      report["file_bytes"].get<double>() / 1e6, 100 * report["size_ratio"].get<double>());
        QVERIFY2(int8.find(sentence) != std::string::npos, sentence);
        QVERIFY2((out + err).find(sentence) != std::string::npos, (out + err).c_str());
        QCOMPARE(exportTo(m_exports + "/card-no-onnx", out, err, {"--onnx_dtype=none"}), 0);
        const std::string noOnnx = readAll(m_exports + "/card-no-onnx/README.md");
        QVERIFY(noOnnx.find("InferenceSession") == std::string::npos);
        QVERIFY(noOnnx.find("labels.txt.\n") != std::string::npos);
    }

private Q_SLOTS:
    void initTestCase()
    {
        // BERT L=1, H=32, vocab 100; labels ham/spam; 2 epochs of 4 steps, a best checkpoint kept.
        m_project = root() + "/project";
        m_exports = root() + "/exports";
        fs::create_directories(m_exports);
        wbtest::TinyRun p;
        p.train_size = 32;
        p.eval_size = 16;
        p.max_seq_length = 8;
        p.num_hidden_layers = 1;
        p.mislabel_every = 3;
        const TrainingOptions o = wbtest::writeTinyRun(m_project, p);
        std::ofstream(m_project + "/labels.txt") << "ham\nspam\n";
        wbtest::writeTinyVocab(m_project + "/vocab.txt");
        // What prepare would have reported (label counts), with a bag-of-words baseline.
        PrepareReport report;
        report.processor_type = "FOLDERS";
        report.vocab_file = m_project + "/vocab.txt";
        report.do_lower_case = true;
        report.max_seq_length = 8;
        report.labels = {"ham", "spam"};
        report.train_examples = 32;
        report.eval_examples = 16;
        report.train_label_counts = {{"ham", 17}, {"spam", 15}};
        report.eval_label_counts = {{"ham", 9}, {"spam", 7}};
        auto reportJson = nlohmann::ordered_json::parse(prepareReportJson(report));
        reportJson["bag_of_words_baseline"] = {{"eval_accuracy", 0.8125}, {"eval_macro_f1", 0.8}};
        writeFileAtomic(prepareReportPath(o.input_meta_data_path), reportJson.dump(2) + "\n");
        m_modelDir = o.model_dir;
        std::string out, err;
        const int code = wbtest::runCli({"train", "--distribution_strategy=one_device",
                                         "--bert_config_file=" + o.bert_config_file,
                                         "--input_meta_data_path=" + o.input_meta_data_path,
                                         "--train_data_path=" + o.train_data_path, "--eval_data_path=" + o.eval_data_path,
                                         "--vocab_file=" + m_project + "/vocab.txt", "--model_dir=" + m_modelDir,
                                         "--train_batch_size=8", "--eval_batch_size=8", "--learning_rate=1e-3",
                                         "--num_train_epochs=2", "--best_checkpoint_metric=eval_accuracy"},
                                        out, err);
        QVERIFY2(code == 0, (out + err).c_str());
        QVERIFY(fs::exists(m_modelDir + "/best/best.json"));
    }

    void modelDirAloneIsEnough()
    {
        // Before: "distribution_strategy: Distribution strategy has not been specified", and
        // --bert_config_file / --input_meta_data_path were needed.
        const std::string target = m_exports + "/alone";
        std::string out, err;
        QCOMPARE(exportTo(target, out, err), 0);
        QVERIFY2(err.find("note: --bert_config_file not given: using the run's " + m_project + "/bert_config.json")
                     != std::string::npos,
                 err.c_str());
        QVERIFY2(err.find("note: --distribution_strategy not given: one_device") != std::string::npos, err.c_str());
        const auto best = nlohmann::json::parse(readAll(m_modelDir + "/best/best.json"));
        const std::string bestCkpt = m_modelDir + "/" + best["checkpoint"].get<std::string>();
        QVERIFY2(out.find("Using the best checkpoint of the run (best, step " + std::to_string(best["step"].get<int>()))
                     != std::string::npos,
                 out.c_str());
        // What it wrote, one line per file with its size, on stdout.
        const auto lines = linesOf(out);
        const auto at = std::find(lines.begin(), lines.end(), "Exported " + bestCkpt + " to " + target + ":");
        QVERIFY2(at != lines.end(), out.c_str());
        std::vector<std::string> listed;
        for (auto it = at + 1; it != lines.end() && it->rfind("  ", 0) == 0; ++it)
            listed.push_back(it->substr(2, it->find("  (", 2) - 2));
        const std::vector<std::string> expected{"model.safetensors",     "config.json",
                                                "bert_config.json",      "input_meta_data.json",
                                                "labels.txt",            "vocab.txt",
                                                "tokenizer.json",        "tokenizer_config.json",
                                                "special_tokens_map.json", "onnx/model.onnx",
                                                "README.md"};
        QCOMPARE(listed, expected);
        QCOMPARE(entries(target), (std::vector<std::string>{"README.md", "bert_config.json", "config.json",
                                                             "input_meta_data.json", "labels.txt", "model.safetensors",
                                                             "onnx", "special_tokens_map.json", "tokenizer.json",
                                                             "tokenizer_config.json", "vocab.txt"}));
        // No staging folder is left beside it.
        QCOMPARE(entries(m_exports), std::vector<std::string>{"alone"});
        QVERIFY2(out.find("warning") == std::string::npos, out.c_str());
        // tokenizer.json: the run's vocabulary and casing.
        const auto tok = nlohmann::json::parse(readAll(target + "/tokenizer.json"));
        QCOMPARE(tok["model"]["vocab"]["w42"].get<int>(), 42);
        QCOMPARE(tok["normalizer"]["lowercase"].get<bool>(), true);
        QCOMPARE(tok["truncation"]["max_length"].get<int>(), 8);
        checkHuggingFaceFiles(target);
    }

    /// The export's Hugging Face files, key by key what transformers' save_pretrained writes for
    /// BertTokenizerFast and BertForSequenceClassification (issue 41: without pad_token,
    /// transformers.js cannot pad a batch of texts). The tiny vocab: [PAD] 0, [UNK] 1, [CLS] 2,
    /// [SEP] 3, [MASK] 4.
    void checkHuggingFaceFiles(const std::string &target)
    {
        const auto tokConfig = nlohmann::ordered_json::parse(readAll(target + "/tokenizer_config.json"));
        std::vector<std::string> keys;
        for (const auto &[k, v] : tokConfig.items())
            keys.push_back(k);
        // save_pretrained's keys (sorted, as it writes them), and the workbench's max_seq_length.
        QCOMPARE(keys, (std::vector<std::string>{"added_tokens_decoder", "clean_up_tokenization_spaces", "cls_token",
                                                 "do_basic_tokenize", "do_lower_case", "mask_token", "max_seq_length",
                                                 "model_max_length", "never_split", "pad_token", "sep_token",
                                                 "strip_accents", "tokenize_chinese_chars", "tokenizer_class",
                                                 "unk_token"}));
        QCOMPARE(tokConfig["tokenizer_class"], nlohmann::ordered_json("BertTokenizer"));
        QCOMPARE(tokConfig["pad_token"], nlohmann::ordered_json("[PAD]"));
        QCOMPARE(tokConfig["unk_token"], nlohmann::ordered_json("[UNK]"));
        QCOMPARE(tokConfig["cls_token"], nlohmann::ordered_json("[CLS]"));
        QCOMPARE(tokConfig["sep_token"], nlohmann::ordered_json("[SEP]"));
        QCOMPARE(tokConfig["mask_token"], nlohmann::ordered_json("[MASK]"));
        QCOMPARE(tokConfig["do_lower_case"], nlohmann::ordered_json(true));
        QCOMPARE(tokConfig["tokenize_chinese_chars"], nlohmann::ordered_json(true));
        QVERIFY(tokConfig["strip_accents"].is_null());
        QVERIFY(tokConfig["never_split"].is_null());
        QCOMPARE(tokConfig["do_basic_tokenize"], nlohmann::ordered_json(true));
        QCOMPARE(tokConfig["clean_up_tokenization_spaces"], nlohmann::ordered_json(true));
        QCOMPARE(tokConfig["model_max_length"], nlohmann::ordered_json(8));
        QCOMPARE(tokConfig["max_seq_length"], nlohmann::ordered_json(8));
        const auto added = tokConfig["added_tokens_decoder"];
        QCOMPARE(added.size(), size_t(5));
        const char *special[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
        for (int id = 0; id < 5; ++id) {
            const auto &e = added.at(std::to_string(id));
            QCOMPARE(e, (nlohmann::ordered_json{{"content", special[id]}, {"lstrip", false}, {"normalized", false},
                                                {"rstrip", false}, {"single_word", false}, {"special", true}}));
        }
        QCOMPARE(nlohmann::ordered_json::parse(readAll(target + "/special_tokens_map.json")),
                 (nlohmann::ordered_json{{"cls_token", "[CLS]"}, {"mask_token", "[MASK]"}, {"pad_token", "[PAD]"},
                                         {"sep_token", "[SEP]"}, {"unk_token", "[UNK]"}}));
        // config.json: every BertConfig key (configuration_bert.py), the head's, and save_pretrained's own.
        const auto config = nlohmann::json::parse(readAll(target + "/config.json"));
        for (const char *k : {"architectures", "model_type", "vocab_size", "hidden_size", "num_hidden_layers",
                              "num_attention_heads", "intermediate_size", "hidden_act", "hidden_dropout_prob",
                              "attention_probs_dropout_prob", "max_position_embeddings", "type_vocab_size",
                              "initializer_range", "layer_norm_eps", "pad_token_id", "position_embedding_type",
                              "use_cache", "classifier_dropout", "id2label", "label2id", "problem_type",
                              "torch_dtype", "transformers_version"})
            QVERIFY2(config.contains(k), k);
        QCOMPARE(config["architectures"], nlohmann::json::array({"BertForSequenceClassification"}));
        QCOMPARE(config["id2label"], (nlohmann::json{{"0", "ham"}, {"1", "spam"}}));
        QCOMPARE(config["label2id"], (nlohmann::json{{"ham", 0}, {"spam", 1}}));
        QCOMPARE(config["problem_type"], nlohmann::json("single_label_classification"));
        QCOMPARE(config["use_cache"], nlohmann::json(true));
        QCOMPARE(config["pad_token_id"], nlohmann::json(0));
        QVERIFY(config["classifier_dropout"].is_null());
        QCOMPARE(config["torch_dtype"], nlohmann::json("float32"));
        QVERIFY(config["transformers_version"].is_string());
    }

    void nonEmptyFolderIsRefusedUnlessAsked()
    {
        const std::string target = m_exports + "/taken";
        fs::create_directories(target);
        std::ofstream(target + "/notes.txt") << "mine\n";
        std::string out, err;
        QCOMPARE(exportTo(target, out, err), 2);
        QVERIFY2(err.find("error: model_export_path: cannot export into " + target + ": the folder is not empty") != std::string::npos,
                 err.c_str());
        QVERIFY2(err.find("--overwrite_output_dir") != std::string::npos, err.c_str());
        // Asked to overwrite, a folder that holds no export is still not replaced.
        QCOMPARE(exportTo(target, out, err, {"--overwrite_output_dir"}), 2);
        QVERIFY2(err.find("holds no earlier export") != std::string::npos, err.c_str());
        QCOMPARE(entries(target), std::vector<std::string>{"notes.txt"});

        // An earlier export is replaced whole: its stray file goes with it.
        const std::string again = m_exports + "/again";
        QCOMPARE(exportTo(again, out, err), 0);
        std::ofstream(again + "/stray.txt") << "old\n";
        QCOMPARE(exportTo(again, out, err), 2);
        QCOMPARE(exportTo(again, out, err, {"--overwrite_output_dir"}), 0);
        QVERIFY(!fs::exists(again + "/stray.txt"));
        QVERIFY(fs::exists(again + "/model.safetensors"));
        // An empty folder is fine without asking.
        fs::create_directories(m_exports + "/empty");
        QCOMPARE(exportTo(m_exports + "/empty", out, err), 0);
        QVERIFY(fs::exists(m_exports + "/empty/README.md"));
        for (const auto &name : entries(m_exports))
            QVERIFY2(name.find(".partial-") == std::string::npos && name.find(".replaced-") == std::string::npos,
                     name.c_str());
    }

    void demoCopiesOnnxRuntimeWebAndTheCardSaysItWorksAsIs()
    {
        // --onnxruntime_web_dir: the three files from a local folder (an unpacked package: dist/), no network.
        const std::string package = root() + "/ort-package";
        fs::create_directories(package + "/dist");
        for (const char *f : {"ort.wasm.min.js", "ort-wasm-simd-threaded.wasm", "ort-wasm-simd-threaded.mjs"})
            std::ofstream(package + "/dist/" + f) << "the bytes of " << f;
        const std::string target = m_exports + "/demo";
        std::string out, err;
        QCOMPARE(exportTo(target, out, err, {"--demo", "--onnxruntime_web_dir=" + package}), 0);
        for (const char *f : {"ort.wasm.min.js", "ort-wasm-simd-threaded.wasm", "ort-wasm-simd-threaded.mjs"}) {
            QCOMPARE(readAll(target + "/demo/ort/" + f), std::string("the bytes of ") + f);
            QVERIFY2(out.find(std::string("\n  demo/ort/") + f + "  (") != std::string::npos, out.c_str());
        }
        QVERIFY(fs::exists(target + "/demo/index.html"));
        QVERIFY2(err.find("note: the web demo runs on onnxruntime-web from " + package + "/dist\n") != std::string::npos,
                 err.c_str());
        const std::string card = readAll(target + "/README.md");
        QVERIFY2(card.find("demo/index.html is a page that classifies as you type, entirely in the browser and offline: "
                           "it runs onnx/model.onnx with the onnxruntime-web files in demo/ort/. It works as it is: open "
                           "it from disk (file://), or serve this folder")
                     != std::string::npos,
                 card.c_str());
        // The scripts the page reads instead of fetch(): the runtime, the model in base64, the rest.
        for (const char *f : {"demo/ort/ort-wasm-simd-threaded.js", "demo/model/model-000.js", "demo/model/export.js"})
            QVERIFY2(out.find(std::string("\n  ") + f + "  (") != std::string::npos, f);
        QVERIFY(readAll(target + "/demo/ort/ort-wasm-simd-threaded.js").find("\"mjs\": \"the bytes of ort-wasm-simd-threaded.mjs\"")
                != std::string::npos);
        QVERIFY(card.find("labels.txt, onnx/model.onnx, demo/index.html.\n") != std::string::npos);

        // A folder that lacks a file: exit 2 before anything is written, the file named.
        fs::remove(package + "/dist/ort-wasm-simd-threaded.mjs");
        const std::string missing = m_exports + "/demo-missing";
        QCOMPARE(exportTo(missing, out, err, {"--demo", "--onnxruntime_web_dir=" + package}), 2);
        QVERIFY2(err.find("error: onnxruntime_web_dir: no ort-wasm-simd-threaded.mjs in " + package + "/dist") != std::string::npos,
                 err.c_str());
        QVERIFY(!fs::exists(missing));
        // The demo needs the ONNX file.
        QCOMPARE(exportTo(missing, out, err, {"--demo", "--onnx_dtype=none"}), 2);
        QVERIFY2(err.find("error: demo: the web demo runs onnx/model.onnx, which --onnx_dtype none leaves out") != std::string::npos,
                 err.c_str());
        QVERIFY(!fs::exists(missing));
    }

    void demoWithoutNetworkIsRefusedAndWritesNothing()
    {
        // The npm registry unreachable and an empty cache: exit 2, the URL and the fix named,
        // no export folder, no staging folder.
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
        socklen_t len = sizeof a;
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
        const std::string registry = "http://127.0.0.1:" + std::to_string(ntohs(a.sin_port));
        ::close(fd);
        const QByteArray oldRegistry = qgetenv("npm_config_registry"), oldCache = qgetenv("XDG_CACHE_HOME");
        qputenv("npm_config_registry", QByteArray::fromStdString(registry));
        qputenv("XDG_CACHE_HOME", QByteArray::fromStdString(root() + "/empty-cache"));
        const std::string target = m_exports + "/demo-offline";
        std::string out, err;
        const int code = exportTo(target, out, err, {"--demo"});
        qputenv("npm_config_registry", oldRegistry);
        if (oldCache.isEmpty())
            qunsetenv("XDG_CACHE_HOME");
        else
            qputenv("XDG_CACHE_HOME", oldCache);
        QCOMPARE(code, 2);
        QVERIFY2(err.find("error: " + registry + "/onnxruntime-web/") != std::string::npos, err.c_str());
        QVERIFY2(err.find("--onnxruntime_web_dir") != std::string::npos, err.c_str());
        QVERIFY(!fs::exists(target));
        for (const auto &name : entries(m_exports))
            QVERIFY2(name.find(".partial-") == std::string::npos, name.c_str());
    }

    void fullDiskLeavesNothing()
    {
        // A file size limit of 16 KiB: model.safetensors (≈ 70 kB) cannot be written.
        const std::string parent = root() + "/full";
        fs::create_directories(parent);
        const std::string target = parent + "/out";
        const QString cli = QStringLiteral(WB_BINARY_DIR "/app/cli/bert-workbench-cli");
        const QString command =
            QStringLiteral("(trap '' XFSZ; ulimit -f 16; exec \"$0\" export --model_dir=\"$1\" --model_export_path=\"$2\")");
        QProcess p;
        p.start(QStringLiteral("/bin/bash"), {QStringLiteral("-c"), command, cli, QString::fromStdString(m_modelDir),
                                              QString::fromStdString(target)});
        QVERIFY(p.waitForFinished(120000));
        const std::string err = p.readAllStandardError().toStdString();
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 1, err.c_str());
        QVERIFY2(err.find("model.safetensors") != std::string::npos, err.c_str());
        QVERIFY2(err.find("write failed") != std::string::npos, err.c_str());
        QVERIFY(!fs::exists(target));
        QCOMPARE(entries(parent), std::vector<std::string>{}); // no staging folder either
    }

    void modelCardHasTheRunsFrontMatterAndEvaluation()
    {
        const std::string target = m_exports + "/card";
        std::string out, err;
        QCOMPARE(exportTo(target, out, err), 0);
        // The evaluation of the exported checkpoint (the best one) in metrics.jsonl.
        Evaluations evals = evaluationsOfTheRun();
        const int bestStep = evals.bestStep, lastStep = evals.lastStep;
        QVERIFY(!evals.atBest.is_null());
        const std::string card = readAll(target + "/README.md");
        const std::string front = frontMatterOfTheCard(evals.atBest);
        QCOMPARE(card.substr(0, front.size()), front);
        // Sections written from the run.
        QVERIFY2(card.find("| 0 | ham | 17 | 9 |\n| 1 | spam | 15 | 7 |\n") != std::string::npos, card.c_str());
        QVERIFY2(card.find("The evaluation of the exported checkpoint, at step " + std::to_string(bestStep)
                           + ", on 16 evaluation examples")
                     != std::string::npos,
                 card.c_str());
        char accuracy[32];
        std::snprintf(accuracy, sizeof accuracy, "| eval_accuracy | %.4f |", evals.atBest["eval_accuracy"].get<double>());
        QVERIFY2(card.find(accuracy) != std::string::npos, card.c_str());
        // The confusion matrix of that evaluation (eval_examples.jsonl: true → predicted), when
        // the file holds it (the last evaluation's).
        const std::string matrix = confusionMatrixOfEvalExamples();
        if (bestStep == lastStep)
            QVERIFY2(card.find(matrix) != std::string::npos, card.c_str());
        else
            QVERIFY2(card.find("(No confusion matrix: eval_examples.jsonl holds the evaluation at step "
                               + std::to_string(lastStep) + ", not this one.)")
                         != std::string::npos,
                     card.c_str());
        // With the latest checkpoint the card has the last evaluation and its confusion matrix.
        QCOMPARE(exportTo(m_exports + "/card-latest", out, err, {"--predict_checkpoint_path=latest"}), 0);
        const std::string latest = readAll(m_exports + "/card-latest/README.md");
        QVERIFY2(latest.find(matrix) != std::string::npos, latest.c_str());
        QVERIFY2(latest.find("The evaluation of the exported checkpoint, at step " + std::to_string(lastStep)) != std::string::npos,
                 latest.c_str());
        checkCardHasBaselinesHyperparametersAndUsage(card);
        if (QTest::currentTestFailed())
            return;
        checkCardOfARunFromACatalogueModel();
        if (QTest::currentTestFailed())
            return;
        checkCardSaysHowToRunTheOnnxModel(card);
    }

    /// The coach's warnings of the run (metrics.jsonl "note" lines) are a section of the card:
    /// each warning once, with its step; info notes are left out.
    void modelCardListsTheCoachsWarnings()
    {
        const std::string metricsPath = m_modelDir + "/metrics.jsonl";
        const std::string saved = readAll(metricsPath);
        std::string out, err;
        QCOMPARE(exportTo(m_exports + "/card-quiet", out, err), 0);
        const bool hadWarnings = saved.find("\"severity\":\"warning\"") != std::string::npos;
        QCOMPARE(readAll(m_exports + "/card-quiet/README.md").find("## What the coach noticed") != std::string::npos,
                 hadWarnings);
        const std::string notes =
            R"({"kind":"note","id":"schedule_short","step":0,"severity":"warning","text":"Only 4 steps: too few to learn."})"
            "\n"
            R"({"kind":"note","id":"plateau","step":3,"severity":"info","text":"Not learning yet."})"
            "\n"
            R"({"kind":"note","id":"overfitting","step":6,"severity":"warning","text":"eval loss has risen since step 4."})"
            "\n"
            R"({"kind":"note","id":"overfitting","step":6,"severity":"warning","text":"eval loss has risen since step 4."})"
            "\n";
        writeFileAtomic(metricsPath, (hadWarnings ? std::string() : saved) + notes);
        QCOMPARE(exportTo(m_exports + "/card-coach", out, err), 0);
        writeFileAtomic(metricsPath, saved);
        const std::string card = readAll(m_exports + "/card-coach/README.md");
        const std::string section = "## What the coach noticed during training\n\n"
                                    "- Before training: Only 4 steps: too few to learn.\n"
                                    "- Step 6: eval loss has risen since step 4.\n\n"
                                    "## Intended use and limitations\n";
        QVERIFY2(card.find(section) != std::string::npos, card.c_str());
        QVERIFY(card.find("Not learning yet.") == std::string::npos);
    }
};

QTEST_GUILESS_MAIN(tst_CliExport)
#include "tst_cliexport.moc"
