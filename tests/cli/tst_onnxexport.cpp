// SPDX-License-Identifier: Apache-2.0
// The export's onnx/model.onnx (issue 26). ONNX Runtime (npm `onnxruntime-node`, CPU) runs it
// and gives the logits of our model, and the probabilities `classify` prints, within 1e-4 on
// SpamAssassin mails of several lengths in batches of several sizes (dynamic batch and
// sequence axes); two architectures (gelu, and gelu_new with a factorised embedding). The
// folder is a transformers.js model folder: its text-classification pipeline (npm
// `@huggingface/transformers`, local files only) gives our labels and probabilities and those
// `classify` prints, one text a call and for a list of texts of different lengths (padded with
// tokenizer_config.json's pad_token, issue 41). The web demo classifies served and opened from
// disk (file://, issue 41) in headless Chromium. --onnx_dtype none leaves the file out; an unknown number format is refused.
#include "clirun.h"
#include "core/config/bertconfig.h"
#include "core/config/inputmetadata.h"
#include "core/config/trainingoptions.h"
#include "core/prepare/exampledata.h"
#include "core/tokenize/fulltokenizer.h"
#include "core/prepare/preparefeatures.h"
#include "core/tokenize/vocab.h"
#include "core/model/bertmodel.h"
#include "core/export/demopage.h"
#include "core/export/export.h"
#include "core/export/onnxexport.h"
#include "core/formats/onnxruntimeweb.h"
#include "core/util/error.h"
#include "support/npmmodules.h"
#include "support/noderun.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

using namespace wb;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> &kPackages = wbtest::kInteropPackages;

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// The text as JSON carries it: invalid UTF-8 bytes become U+FFFD.
std::string asValidUtf8(const std::string &bytes)
{
    return nlohmann::json::parse(nlohmann::json(bytes).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
        .get<std::string>();
}

std::vector<double> softmax(const std::vector<double> &z)
{
    const double m = *std::max_element(z.begin(), z.end());
    std::vector<double> p;
    double sum = 0;
    for (double v : z)
        sum += std::exp(v - m);
    for (double v : z)
        p.push_back(std::exp(v - m) / sum);
    return p;
}

using wbtest::runNode;

const std::vector<std::string> kLabels{"ham", "spam", "other"};

} // namespace

class tst_OnnxExport : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::string m_vocab;
    std::vector<std::string> m_mails;
    std::string m_modules;
    QString m_skip;

    std::string root() const { return m_tmp.path().toStdString(); }

    /// A random BERT (2 layers, hidden 32, the bert-base-uncased vocabulary, 3 labels,
    /// initializer_range 0.3 so that the logits differ from text to text) exported to `dir`.
    nn::BertForSequenceClassification exportRandomModel(const std::string &dir, const std::string &act,
                                                        std::optional<int64_t> embeddingSize,
                                                        const std::string &dtype = "fp32",
                                                        const std::string &onnxRuntimeWebDir = "")
    {
        Diagnostics diag;
        nlohmann::json c{{"vocab_size", 30522},     {"hidden_size", 32},           {"num_hidden_layers", 2},
                         {"num_attention_heads", 4}, {"intermediate_size", 64},     {"max_position_embeddings", 128},
                         {"type_vocab_size", 2},     {"initializer_range", 0.3},    {"hidden_act", act}};
        if (embeddingSize)
            c["embedding_size"] = *embeddingSize;
        const BertConfig cfg = BertConfig::fromJson(c, "bert_config.json", diag);
        if (diag.hasErrors())
            throw Error("bert_config.json", "test config rejected");
        InputMetaData meta;
        meta.num_labels = int64_t(kLabels.size());
        meta.max_seq_length = 128;
        meta.do_lower_case = true;
        meta.extra["labels"] = kLabels;
        TrainingOptions spec;
        spec.vocab_file = m_vocab;
        spec.input_meta_data_path = root() + "/no-such/input_meta_data.json";
        spec.onnx_dtype = dtype;
        spec.demo = !onnxRuntimeWebDir.empty(); // export --demo --onnxruntime_web_dir=…
        spec.onnxruntime_web_dir = onnxRuntimeWebDir;
        nn::BertForSequenceClassification model(cfg, meta.num_labels, nn::makeGenerator(7));
        model->eval();
        fs::create_directories(dir);
        exportModelFiles(dir, model, cfg, meta, spec);
        return model;
    }

    /// Our features of each of m_mails (uncased, 128 tokens at most).
    std::vector<ExampleFeatures> mailFeatures() const
    {
        const FullTokenizer tok(m_vocab, true);
        const Vocab vocab = Vocab::load(m_vocab);
        std::vector<ExampleFeatures> features;
        for (const auto &m : m_mails) {
            ExampleFeatures f;
            buildExampleFeatures(tok, m, {}, false, 128, vocab.id("[CLS]"), vocab.id("[SEP]"), 16, f);
            features.push_back(f);
        }
        return features;
    }

    /// The batches as ort_logits.cjs reads them, our model's logits of each, and each batch's
    /// sequence length.
    struct Batches
    {
        nlohmann::json json = nlohmann::json::array();
        std::vector<torch::Tensor> ours;
        std::vector<int64_t> seqLens;
    };

    /// Batches of `sizes` texts (the features in turn, from the start again when used up), each
    /// padded to its longest text only (the sequence axis varies from batch to batch: a few
    /// tokens to 128), and what `model` gives for each.
    static Batches batchesWithOurLogits(nn::BertForSequenceClassification &model,
                                        const std::vector<ExampleFeatures> &features, const std::vector<size_t> &sizes)
    {
        Batches out;
        size_t at = 0;
        for (size_t size : sizes) {
            std::vector<const ExampleFeatures *> rows;
            for (size_t i = 0; i < size; ++i)
                rows.push_back(&features[(at + i) % features.size()]);
            at += size;
            int64_t seq = 1;
            for (const auto *f : rows)
                seq = std::max<int64_t>(seq, std::count(f->input_mask.begin(), f->input_mask.end(), 1));
            out.seqLens.push_back(seq);
            nlohmann::json b;
            torch::Tensor ids = torch::zeros({int64_t(size), seq}, torch::kLong), mask = torch::zeros_like(ids),
                          types = torch::zeros_like(ids);
            for (const char *k : {"input_ids", "attention_mask", "token_type_ids"})
                b[k] = nlohmann::json::array();
            for (size_t r = 0; r < size; ++r) {
                const auto cut = [seq](const std::vector<int64_t> &v) {
                    return std::vector<int64_t>(v.begin(), v.begin() + seq);
                };
                b["input_ids"].push_back(cut(rows[r]->input_ids));
                b["attention_mask"].push_back(cut(rows[r]->input_mask));
                b["token_type_ids"].push_back(cut(rows[r]->segment_ids));
                for (int64_t j = 0; j < seq; ++j) {
                    ids[int64_t(r)][j] = rows[r]->input_ids[size_t(j)];
                    mask[int64_t(r)][j] = rows[r]->input_mask[size_t(j)];
                    types[int64_t(r)][j] = rows[r]->segment_ids[size_t(j)];
                }
            }
            out.json.push_back(b);
            torch::NoGradGuard g;
            out.ours.push_back(model->forward(ids, mask, types));
        }
        return out;
    }

    /// ONNX Runtime's output `theirs` of each batch: its names, type and shape, and logits within
    /// 1e-4 of `ours` that differ from text to text. Fills `ortRows` with ONNX Runtime's logits of
    /// each of the `texts` texts.
    static void checkOrtLogitsAreOurs(const nlohmann::json &theirs, const std::vector<size_t> &sizes,
                                      const std::vector<torch::Tensor> &ours, size_t texts,
                                      std::map<size_t, std::vector<double>> &ortRows)
    {
        double worst = 0, spread = 0;
        size_t row = 0;
        for (size_t bi = 0; bi < sizes.size(); ++bi) {
            const auto &t = theirs[bi];
            QCOMPARE(t["inputs"].get<std::vector<std::string>>(),
                     (std::vector<std::string>{"input_ids", "attention_mask", "token_type_ids"}));
            QCOMPARE(t["outputs"].get<std::vector<std::string>>(), std::vector<std::string>{"logits"});
            QCOMPARE(t["type"].get<std::string>(), std::string("float32"));
            QCOMPARE(t["dims"].get<std::vector<int64_t>>(), (std::vector<int64_t>{int64_t(sizes[bi]), 3}));
            const auto logits = t["logits"].get<std::vector<double>>();
            const torch::Tensor mine = ours[bi].contiguous();
            QCOMPARE(logits.size(), size_t(mine.numel()));
            for (size_t k = 0; k < logits.size(); ++k) {
                const double v = double(mine.data_ptr<float>()[k]);
                worst = std::max(worst, std::abs(v - logits[k]));
                spread = std::max(spread, std::abs(v - double(ours[0].data_ptr<float>()[k % 3])));
            }
            for (size_t r = 0; r < sizes[bi]; ++r, ++row)
                ortRows[row % texts] = {logits[r * 3], logits[r * 3 + 1], logits[r * 3 + 2]};
        }
        QVERIFY2(worst <= 1e-4, qPrintable(QStringLiteral("largest logit difference %1").arg(worst)));
        QVERIFY2(spread > 1e-2, "the logits barely differ between texts: the comparison would prove little");
    }

    /// `classify` on the export folder `dir` prints the softmax of ONNX Runtime's logits
    /// `ortRows` of each of m_mails (1e-4).
    void checkClassifyPrintsTheSoftmaxOf(const std::map<size_t, std::vector<double>> &ortRows, const std::string &dir)
    {
        const std::string textsPath = dir + "-texts.jsonl";
        {
            std::ofstream out(textsPath, std::ios::binary);
            for (const auto &m : m_mails)
                out << nlohmann::json{{"text", m}}.dump() << "\n";
        }
        std::string out, err;
        QCOMPARE(wbtest::runCli({"classify", "--model_export_path=" + dir, "--input_file=" + textsPath,
                                 "--output_format=jsonl"},
                                out, err),
                 0);
        std::istringstream lines(out);
        std::string line;
        for (size_t i = 0; i < m_mails.size(); ++i) {
            QVERIFY2(std::getline(lines, line), out.c_str());
            const auto j = nlohmann::json::parse(line);
            const auto &row = ortRows.at(i);
            const auto p = softmax(row);
            for (size_t k = 0; k < 3; ++k)
                QVERIFY2(std::abs(j["probabilities"][kLabels[k]].get<double>() - p[k]) <= 1e-4, line.c_str());
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        const std::string data = WB_SHARED_DATA_DIR;
        m_vocab = data + "/vocab/bert-base-uncased-vocab.txt";
        if (!fs::exists(m_vocab) || !fs::is_directory(data + "/spamassassin-mini/ham")) {
            m_skip = QStringLiteral("the shared SpamAssassin mails are not here (WB_SHARED_DATA_DIR)");
            return;
        }
        for (const char *label : {"ham", "spam"}) {
            std::vector<fs::path> files;
            for (const auto &e : fs::directory_iterator(data + "/spamassassin-mini/" + label))
                files.push_back(e.path());
            std::sort(files.begin(), files.end());
            for (size_t i = 0; i < files.size() && i < 12; ++i)
                m_mails.push_back(asValidUtf8(readAll(files[i].string())));
        }
        // Short texts first (the first batch holds one: a sequence of a few tokens), then the mails.
        m_mails.insert(m_mails.begin(), {"Free money!!! Click now", "Meeting moved to 3pm, see you there.", "ok"});
        if (QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty()) {
            m_skip = QStringLiteral("node is not installed (scripts/install-deps.sh installs nodejs)");
            return;
        }
        m_modules = wbtest::npmTestModules("npm-onnx", kPackages, m_skip);
    }

    void onnxRuntimeGivesOurLogits_data()
    {
        QTest::addColumn<QString>("act");
        QTest::addColumn<int>("embeddingSize");
        QTest::newRow("gelu") << QStringLiteral("gelu") << 0;
        QTest::newRow("gelu_new, embedding_size 16") << QStringLiteral("gelu_new") << 16;
    }

    void onnxRuntimeGivesOurLogits()
    {
        if (m_modules.empty())
            QSKIP(qPrintable(m_skip));
        QFETCH(QString, act);
        QFETCH(int, embeddingSize);
        const std::string dir = root() + "/ort-" + act.toStdString() + std::to_string(embeddingSize);
        auto model = exportRandomModel(dir, act.toStdString(),
                                       embeddingSize ? std::optional<int64_t>(embeddingSize) : std::nullopt);
        QVERIFY(fs::exists(dir + "/onnx/model.onnx"));

        const std::vector<ExampleFeatures> features = mailFeatures();
        const std::vector<size_t> sizes{1, 3, 8, 5, 2, 8};
        const Batches batches = batchesWithOurLogits(model, features, sizes);
        QVERIFY(*std::min_element(batches.seqLens.begin(), batches.seqLens.end()) < 16);
        QCOMPARE(*std::max_element(batches.seqLens.begin(), batches.seqLens.end()), int64_t(128));
        const std::string batchesPath = dir + "-batches.json", outPath = dir + "-ort.json";
        std::ofstream(batchesPath) << batches.json.dump();
        QString output;
        QVERIFY2(runNode(QStringLiteral(WB_TEST_DATA_DIR "/../support/ort_logits.cjs"),
                         {QString::fromStdString(m_modules), QString::fromStdString(dir + "/onnx/model.onnx"),
                          QString::fromStdString(batchesPath), QString::fromStdString(outPath)},
                         output),
                 qPrintable(output));
        const auto theirs = nlohmann::json::parse(readAll(outPath));
        QCOMPARE(theirs.size(), sizes.size());
        std::map<size_t, std::vector<double>> ortRows; // by text, for classify below
        checkOrtLogitsAreOurs(theirs, sizes, batches.ours, features.size(), ortRows);
        if (QTest::currentTestFailed())
            return;
        checkClassifyPrintsTheSoftmaxOf(ortRows, dir);
    }

    void transformersJsPipelineGivesOurProbabilities_data()
    {
        QTest::addColumn<bool>("batch");
        QTest::newRow("one text a call") << false;
        // A list of texts of different lengths (issue 41: "Cannot convert undefined to a
        // BigInt" when tokenizer_config.json had no pad_token to pad the batch with).
        QTest::newRow("one list of texts") << true;
    }

    void transformersJsPipelineGivesOurProbabilities()
    {
        if (m_modules.empty())
            QSKIP(qPrintable(m_skip));
        QFETCH(bool, batch);
        const std::string dir = root() + (batch ? "/tfjs-batch" : "/tfjs-model");
        auto model = exportRandomModel(dir, "gelu", std::nullopt);
        for (const char *f : {"config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                              "onnx/model.onnx"})
            QVERIFY2(fs::exists(dir + "/" + f), f);
        // Texts that fit into max_seq_length: transformers.js 4.3.1 truncates a longer text after
        // adding the special tokens, so its last token is a wordpiece instead of [SEP]
        // (docs/file-formats.md, the known difference); the mails' first 300 bytes fit.
        const FullTokenizer tok(m_vocab, true);
        const Vocab vocab = Vocab::load(m_vocab);
        std::vector<std::string> texts;
        std::set<int64_t> lengths;
        for (const auto &m : m_mails) {
            const std::string t = asValidUtf8(m.substr(0, 300));
            ExampleFeatures f;
            buildExampleFeatures(tok, t, {}, false, 128, vocab.id("[CLS]"), vocab.id("[SEP]"), 16, f);
            if (!f.truncated) {
                texts.push_back(t);
                lengths.insert(std::count(f.input_mask.begin(), f.input_mask.end(), 1));
            }
        }
        QVERIFY(texts.size() >= 10);
        QVERIFY(lengths.size() >= 5 && *lengths.begin() < 10 && *lengths.rbegin() > 40); // padding matters
        const std::string textsPath = dir + "-texts.jsonl", outPath = dir + "-tfjs.jsonl";
        {
            std::ofstream out(textsPath, std::ios::binary);
            for (const auto &t : texts)
                out << nlohmann::json{{"text", t}}.dump() << "\n";
        }
        QString output;
        QStringList args{QString::fromStdString(m_modules), QString::fromStdString(dir),
                         QString::fromStdString(textsPath), QString::fromStdString(outPath)};
        if (batch)
            args << QStringLiteral("batch");
        QVERIFY2(runNode(QStringLiteral(WB_TEST_DATA_DIR "/../support/transformersjs_classify.mjs"), args, output),
                 qPrintable(output));
        // The product's own classify on the same texts.
        std::string cout, cerr;
        QCOMPARE(wbtest::runCli({"classify", "--model_export_path=" + dir, "--input_file=" + textsPath,
                                 "--output_format=jsonl"},
                                cout, cerr),
                 0);
        std::istringstream classified(cout);
        std::istringstream lines(readAll(outPath));
        std::string line, ours;
        for (const auto &m : texts) {
            QVERIFY(std::getline(lines, line));
            QVERIFY(std::getline(classified, ours));
            const auto mine = nlohmann::json::parse(ours);
            ExampleFeatures f;
            buildExampleFeatures(tok, m, {}, false, 128, vocab.id("[CLS]"), vocab.id("[SEP]"), 16, f);
            const auto t = [](const std::vector<int64_t> &v) { return torch::tensor(v, torch::kLong).unsqueeze(0); };
            torch::NoGradGuard g;
            const torch::Tensor logits = model->forward(t(f.input_ids), t(f.input_mask), t(f.segment_ids));
            const auto p = softmax({double(logits[0][0].item<float>()), double(logits[0][1].item<float>()),
                                    double(logits[0][2].item<float>())});
            const auto j = nlohmann::json::parse(line);
            QCOMPARE(j.size(), size_t(3));
            for (const auto &e : j) {
                const auto k = std::find(kLabels.begin(), kLabels.end(), e["label"].get<std::string>()) - kLabels.begin();
                QVERIFY2(size_t(k) < kLabels.size(), line.c_str());
                QVERIFY2(std::abs(e["score"].get<double>() - p[size_t(k)]) <= 1e-4, line.c_str());
                QVERIFY2(std::abs(e["score"].get<double>() - mine["probabilities"][kLabels[size_t(k)]].get<double>())
                             <= 1e-4,
                         (line + "\n" + ours).c_str());
            }
            // Best first, as the pipeline sorts them: our predicted label.
            const auto best = std::max_element(p.begin(), p.end()) - p.begin();
            QCOMPARE(j[0]["label"].get<std::string>(), kLabels[size_t(best)]);
            QCOMPARE(j[0]["label"], mine["predicted_label"]);
        }
        QVERIFY(!std::getline(lines, line));
    }

    void demoPageClassifiesInHeadlessChromium_data()
    {
        QTest::addColumn<bool>("fromDisk");
        QTest::newRow("served") << false;
        // Opened from disk (issue 41: fetch() is refused on file://, "Failed to fetch").
        QTest::newRow("file://") << true;
    }

    void demoPageClassifiesInHeadlessChromium()
    {
        if (m_modules.empty())
            QSKIP(qPrintable(m_skip));
        QFETCH(bool, fromDisk);
        QString chromium = QStandardPaths::findExecutable(QStringLiteral("chromium"));
        if (chromium.isEmpty())
            QSKIP("chromium is not installed (scripts/install-deps.sh installs Debian's chromium)");
        const std::string dir = root() + (fromDisk ? "/demo-disk" : "/demo-model");
        // export --demo with the installed onnxruntime-web package (the release the export pins:
        // @huggingface/transformers depends on it) as --onnxruntime_web_dir: the export copies
        // its three browser files into demo/ort/.
        const std::string package = m_modules + "/onnxruntime-web";
        QCOMPARE(nlohmann::json::parse(readAll(package + "/package.json"))["version"].get<std::string>(),
                 onnxRuntimeWebPin().version);
        auto model = exportRandomModel(dir, "gelu", std::nullopt, "fp32", package);
        QVERIFY(fs::exists(dir + "/demo/index.html"));
        for (const auto &f : onnxRuntimeWebFiles())
            QVERIFY2(readAll(dir + "/demo/ort/" + f) == readAll(package + "/dist/" + f), f.c_str());
        // The model in one part (4 MB); from disk, written again in parts of ~1 MB, so that the
        // page puts parts together.
        QCOMPARE(fs::exists(dir + "/demo/model/model-000.js"), true);
        QCOMPARE(fs::exists(dir + "/demo/model/model-001.js"), false);
        size_t parts = 1;
        if (fromDisk) {
            for (const auto &e : fs::directory_iterator(dir + "/demo/model"))
                fs::remove(e.path());
            const auto names = writeDemoData(dir, kLabels, true, 128, 1000000);
            parts = names.size() - 2;
            QVERIFY2(parts >= 3, std::to_string(parts).c_str());
        }
        const std::vector<std::string> texts{"Free money!!! Click now to WIN a prize, naïve café", asValidUtf8(m_mails[3].substr(0, 1500))};
        const std::string textsPath = dir + "-texts.json", outPath = dir + "-page.json";
        std::ofstream(textsPath) << nlohmann::json(texts).dump();
        QString output;
        QStringList args{chromium, QString::fromStdString(dir), QString::fromStdString(textsPath),
                         QString::fromStdString(outPath)};
        if (fromDisk)
            args << QStringLiteral("file");
        QVERIFY2(runNode(QStringLiteral(WB_TEST_DATA_DIR "/../support/demo_page.cjs"), args, output), qPrintable(output));
        const auto pages = nlohmann::json::parse(readAll(outPath));
        QCOMPARE(pages.size(), texts.size());
        // Served, the page asked for the demo folder's scripts only, each found; from disk, for nothing.
        std::set<std::string> allowed{"/demo/index.html", "/demo/ort/ort.wasm.min.js", "/demo/ort/ort-wasm-simd-threaded.js",
                                      "/demo/model/export.js", "/demo/model/model-000.js"};
        if (fromDisk)
            allowed.clear();
        std::set<std::string> asked;
        for (const auto &r : nlohmann::json::parse(readAll(outPath + ".requests.json"))) {
            const std::string line = r.get<std::string>();
            if (line == "404 /favicon.ico") // the browser's own request
                continue;
            QVERIFY2(line.rfind("200 ", 0) == 0 && allowed.count(line.substr(4)), line.c_str());
            asked.insert(line.substr(4));
        }
        QCOMPARE(asked, allowed);
        const FullTokenizer tok(m_vocab, true);
        const Vocab vocab = Vocab::load(m_vocab);
        for (size_t i = 0; i < texts.size(); ++i) {
            const auto &page = pages[i];
            QVERIFY2(!page.contains("error"), page.dump().c_str());
            ExampleFeatures f;
            buildExampleFeatures(tok, texts[i], {}, false, 128, vocab.id("[CLS]"), vocab.id("[SEP]"), 16, f);
            const auto n = std::count(f.input_mask.begin(), f.input_mask.end(), 1);
            const std::vector<int64_t> ids(f.input_ids.begin(), f.input_ids.begin() + n);
            QCOMPARE(page["input_ids"].get<std::vector<int64_t>>(), ids);
            QCOMPARE(page["wordpieces"].size(), size_t(n));
            QCOMPARE(page["labels"].get<std::vector<std::string>>(), kLabels);
            const auto t = [](const std::vector<int64_t> &v) { return torch::tensor(v, torch::kLong).unsqueeze(0); };
            torch::NoGradGuard g;
            const torch::Tensor logits = model->forward(t(f.input_ids), t(f.input_mask), t(f.segment_ids));
            const auto p = softmax({double(logits[0][0].item<float>()), double(logits[0][1].item<float>()),
                                    double(logits[0][2].item<float>())});
            const auto theirs = page["probabilities"].get<std::vector<double>>();
            QCOMPARE(theirs.size(), size_t(3));
            for (size_t k = 0; k < 3; ++k)
                QVERIFY2(std::abs(theirs[k] - p[k]) <= 1e-4, page.dump().c_str());
        }
        QCOMPARE(pages[0]["wordpieces"][1].get<std::string>(), std::string("free"));
    }

    /// classify's jsonl lines for the mails on `args`' model; fails the test on a non-zero exit.
    std::vector<nlohmann::json> classifyMails(const std::vector<std::string> &args, const std::string &textsPath)
    {
        std::vector<std::string> all{"classify", "--input_file=" + textsPath, "--output_format=jsonl"};
        all.insert(all.end(), args.begin(), args.end());
        std::string out, err;
        const int code = wbtest::runCli(all, out, err);
        if (code != 0)
            qWarning("%s", err.c_str());
        std::vector<nlohmann::json> lines;
        std::istringstream in(out);
        for (std::string line; std::getline(in, line);)
            lines.push_back(nlohmann::json::parse(line));
        return code == 0 ? lines : std::vector<nlohmann::json>{};
    }

    void classifyRunsAnOnnxOnlyFolder()
    {
        if (m_mails.empty())
            QSKIP(qPrintable(m_skip));
        // An export reduced to what ONNX Runtime and transformers.js read: config.json,
        // onnx/model.onnx and the tokenizer files (no model.safetensors, bert_config.json,
        // input_meta_data.json nor labels.txt).
        const std::string full = root() + "/onnx-only-source", only = root() + "/onnx-only";
        exportRandomModel(full, "gelu", std::nullopt);
        fs::create_directories(only + "/onnx");
        for (const char *f : {"config.json", "onnx/model.onnx", "vocab.txt", "tokenizer.json", "tokenizer_config.json"})
            fs::copy_file(full + "/" + f, only + "/" + f);
        const std::string textsPath = root() + "/onnx-only-texts.jsonl";
        {
            std::ofstream out(textsPath, std::ios::binary);
            for (const auto &m : m_mails)
                out << nlohmann::json{{"text", m}}.dump() << "\n";
        }
        const auto theirs = classifyMails({"--model_export_path=" + full}, textsPath);
        const auto mine = classifyMails({"--model_export_path=" + only}, textsPath);
        const auto asModelDir = classifyMails({"--model_dir=" + only}, textsPath); // an export folder as --model_dir
        QCOMPARE(theirs.size(), m_mails.size());
        QCOMPARE(mine.size(), m_mails.size());
        QCOMPARE(asModelDir.size(), m_mails.size());
        double worst = 0, spread = 0;
        for (size_t i = 0; i < m_mails.size(); ++i) {
            QCOMPARE(mine[i]["predicted_label"], theirs[i]["predicted_label"]);
            QCOMPARE(mine[i]["truncated"], theirs[i]["truncated"]); // max_seq_length from tokenizer_config.json
            QCOMPARE(asModelDir[i]["probabilities"], mine[i]["probabilities"]);
            for (const auto &l : kLabels) {
                const double a = mine[i]["probabilities"][l].get<double>(), b = theirs[i]["probabilities"][l].get<double>();
                worst = std::max(worst, std::abs(a - b));
                spread = std::max(spread, std::abs(b - theirs[0]["probabilities"][l].get<double>()));
            }
        }
        QVERIFY2(worst <= 1e-6, qPrintable(QStringLiteral("largest probability difference %1").arg(worst)));
        QVERIFY2(spread > 1e-3, "the probabilities barely differ between texts: the comparison would prove little");
        QVERIFY(std::any_of(mine.begin(), mine.end(), [](const auto &j) { return j["truncated"].template get<bool>(); }));

        // A config.json of another architecture: the initialiser whose shape differs is named.
        auto config = nlohmann::json::parse(readAll(only + "/config.json"));
        config["intermediate_size"] = 48;
        std::ofstream(only + "/config.json") << config.dump(2);
        std::string out, err;
        QCOMPARE(wbtest::runCli({"classify", "--model_export_path=" + only, "--text=hello"}, out, err), 2);
        QVERIFY2(err.find("error: " + only + "/onnx/model.onnx: initializer bert.encoder.layer.0.intermediate.dense.weight: "
                          "is [32, 64], the model config.json describes needs float32 [32, 48]")
                     != std::string::npos,
                 err.c_str());
        fs::copy_file(full + "/config.json", only + "/config.json", fs::copy_options::overwrite_existing);
        // An ONNX graph another tool wrote (its producer_name): refused, not read by guesswork.
        std::string bytes = readAll(only + "/onnx/model.onnx");
        const size_t at = bytes.find("bert-workbench");
        QVERIFY(at != std::string::npos);
        bytes.replace(at, 14, "other-exporter");
        std::ofstream(only + "/onnx/model.onnx", std::ios::binary | std::ios::trunc) << bytes;
        QCOMPARE(wbtest::runCli({"classify", "--model_export_path=" + only, "--text=hello"}, out, err), 2);
        QVERIFY2(err.find("onnx/model.onnx: written by 'other-exporter' ") != std::string::npos, err.c_str());
        QVERIFY2(err.find("not by bert-workbench's export") != std::string::npos, err.c_str());
    }

    void onnxDtypeNoneLeavesTheFileOutAndUnknownIsRefused()
    {
        if (!fs::exists(m_vocab))
            QSKIP("the shared vocabulary is not here (WB_SHARED_DATA_DIR)");
        const std::string none = root() + "/none";
        exportRandomModel(none, "gelu", std::nullopt, "none");
        QVERIFY(fs::exists(none + "/model.safetensors"));
        QVERIFY(!fs::exists(none + "/onnx"));
        try {
            exportRandomModel(root() + "/int4", "gelu", std::nullopt, "int4");
            QFAIL("int4 was accepted");
        } catch (const Error &e) {
            QVERIFY2(std::string(e.what()).find("unsupported ONNX number format 'int4'") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(tst_OnnxExport)
#include "tst_onnxexport.moc"
