// SPDX-License-Identifier: Apache-2.0
#include "core/infer/textclassifier.h"

#include "core/formats/thresholds.h"

#include "core/config/bertconfig.h"
#include "core/config/inputmetadata.h"
#include "core/config/labelnames.h"
#include "core/config/optionwords.h"
#include "core/prepare/preparereport.h"
#include "core/tokenize/fulltokenizer.h"
#include "core/prepare/preparefeatures.h"
#include "core/tokenize/tokenizercasing.h"
#include "core/model/classifierinference.h"
#include "core/model/initcheckpoint.h"
#include "core/infer/attributiontorch.h"
#include "core/formats/bestmodel.h"
#include "core/engine/checkpointio.h"
#include "core/formats/checkpointstate.h"
#include "core/export/onnxexport.h"
#include "core/formats/runidentity.h"
#include "core/util/error.h"
#include "core/util/asciitext.h"
#include "core/util/trainingallocator.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

namespace fs = std::filesystem;

namespace wb {

namespace {

// Tokens counted past max_seq_length to say how long a cut text was (as prepare does).
constexpr size_t kTokenCountFactor = 4;

} // namespace

/// The files a classifier reads, as its source names them (step 1 of loading).
struct ClassifierFiles
{
    std::string cfgPath, metaPath, vocab;
    /// Where the casing may be recorded, in order: the flag, then what the model was trained
    /// with (tokenizer_config.json of an export; the checkpoint, run_config.json of a run),
    /// then (added later) the data's meta data and prepare_report.json.
    std::vector<RecordedCasing> casings;
    int64_t maxLen = 0;
    /// An export folder without input_meta_data.json (e.g. config.json + onnx/model.onnx + the
    /// tokenizer files): the meta data comes from config.json and tokenizer_config.json.
    bool metaFromConfig = false;
    /// Where a multi-label model's thresholds are recorded: the export folder's config.json,
    /// else the run's metrics.jsonl (runDir).
    std::string exportDir, runDir;
};

struct TextClassifier::Private
{
    BertConfig cfg;
    InputMetaData meta;
    std::vector<std::string> labels;
    std::vector<std::string> warnings;
    std::vector<std::string> notes;
    std::unique_ptr<FullTokenizer> tokenizer;
    nn::BertForSequenceClassification model{nullptr};
    std::string weights;
    std::string weightsLabel;
    int64_t maxSeqLength = 0;
    int32_t cls = 0, sep = 0, unk = 0, pad = 0;
    bool doLowerCase = true;
    std::string casingSource;
    double trainingMeanTokens = std::numeric_limits<double>::quiet_NaN();
    DecisionThresholds thresholds; ///< multi-label only
    /// The model's eval forward pass on buffers of its own (made on the first pass it covers).
    std::unique_ptr<nn::ClassifierInference> inference;

    void resolveExportFolder(const ClassifierSource &src, const std::string &folder, ClassifierFiles &f);
    void resolveRunCheckpoint(const ClassifierSource &src, ClassifierFiles &f);
    void loadConfigAndMetaData(const ClassifierSource &src, const ClassifierFiles &f);
    void loadLabelNames(const ClassifierFiles &f);
    void loadTokenizer(const ClassifierSource &src, ClassifierFiles &f);
    void loadWeights();
    void loadThresholds(const ClassifierFiles &f);
};

namespace {

/// Fills the empty ones of `cfgPath`, `metaPath`, `vocab` and `lower` with what the run
/// recorded in model_dir/run_config.json (fillFromRecordedRun: the same rule as predict,
/// export and lr_find on a run), so that `classify --model_dir=DIR` works for a run trained
/// here, from any directory. Throws wb::Error naming the flag when the run did not record
/// the config or the meta data, or the recorded file is gone.
void takeRunFilesFromRunConfig(const std::string &modelDir, std::string &cfgPath, std::string &metaPath,
                               std::string &vocab, std::optional<bool> &lower, std::vector<std::string> &warnings)
{
    TrainingOptions o;
    o.model_dir = modelDir;
    o.bert_config_file = cfgPath;
    o.input_meta_data_path = metaPath;
    o.vocab_file = vocab;
    o.do_lower_case = lower ? (*lower ? "true" : "false") : "";
    for (auto &note : fillFromRecordedRun(o))
        warnings.push_back(std::move(note));
    Diagnostics diag;
    const bool recorded = readRunConfig(modelDir, diag).has_value();
    for (const auto &[path, flag] : {std::pair{&o.bert_config_file, "bert_config_file"},
                                     std::pair{&o.input_meta_data_path, "input_meta_data_path"}})
        if (path->empty())
            throw Error(flag, "required with " + optionName("model_dir") + ": " + runConfigPath(modelDir)
                                  + (recorded ? " does not name it" : " is missing or unreadable"),
                        "pass the run's " + optionName(flag));
    cfgPath = o.bert_config_file;
    metaPath = o.input_meta_data_path;
    vocab = o.vocab_file;
    if (!lower && !o.do_lower_case.empty())
        lower = o.do_lower_case == "true";
}

/// True for a folder `export` wrote (config.json with model.safetensors or onnx/model.onnx)
/// that is no training run (no run_config.json): `--model_dir` may name one too.
bool isExportFolder(const fs::path &dir)
{
    std::error_code ec;
    return fs::is_regular_file(dir / "config.json", ec) && !fs::exists(dir / "run_config.json", ec)
           && (fs::is_regular_file(dir / "model.safetensors", ec) || fs::is_regular_file(dir / "onnx" / "model.onnx", ec));
}

/// The meta data of an export folder without input_meta_data.json, from Hugging Face's
/// config.json (problem_type, id2label, num_labels) and max_seq_length (tokenizer_config.json's).
InputMetaData metaDataFromHuggingFaceConfig(const std::string &configPath, int64_t maxLen)
{
    std::ifstream in(configPath);
    const auto j = nlohmann::json::parse(in, nullptr, false);
    if (!j.is_object())
        throw Error(configPath, "cannot read the export's config.json", "pass the export folder whole");
    InputMetaData meta;
    meta.processor_type = "export";
    meta.problem_type = j.value("problem_type", std::string());
    if (meta.problem_type != "multi_label_classification" && meta.problem_type != "single_label_classification")
        meta.problem_type.clear();
    if (j.value("problem_type", std::string()) == "regression") {
        meta.task_type = "bert_regression";
        meta.label_type = "float";
        meta.num_labels = 1;
    } else if (j.contains("id2label") && j["id2label"].is_object() && !j["id2label"].empty()) {
        meta.num_labels = int64_t(j["id2label"].size());
    } else if (j.contains("num_labels") && j["num_labels"].is_number_integer()) {
        meta.num_labels = j["num_labels"].get<int64_t>();
    } else {
        throw Error(configPath, "has neither id2label nor num_labels, and the folder no input_meta_data.json",
                    "pass the export folder whole, or " + optionName("input_meta_data_path"));
    }
    meta.max_seq_length = maxLen;
    return meta;
}

} // namespace

void TextClassifier::Private::resolveExportFolder(const ClassifierSource &src, const std::string &folder,
                                                  ClassifierFiles &f)
{
    const fs::path dir = folder;
    if (!fs::is_directory(dir))
        throw Error(folder, "not a folder", "pass the folder the export wrote (" + optionName("model_export_path") + ")");
    f.exportDir = folder;
    if (f.cfgPath.empty())
        f.cfgPath = (dir / (fs::exists(dir / "bert_config.json") ? "bert_config.json" : "config.json")).string();
    if (f.metaPath.empty()) {
        f.metaPath = (dir / "input_meta_data.json").string();
        f.metaFromConfig = !fs::exists(f.metaPath) && fs::exists(dir / "config.json");
    }
    if (f.vocab.empty())
        f.vocab = (dir / "vocab.txt").string();
    std::ifstream tin(dir / "tokenizer_config.json");
    const auto tok = nlohmann::json::parse(tin, nullptr, false);
    if (tok.is_object()) {
        if (tok.contains("do_lower_case") && tok["do_lower_case"].is_boolean())
            f.casings.push_back({(dir / "tokenizer_config.json").string(), tok["do_lower_case"].get<bool>()});
        if (f.maxLen <= 0 && tok.contains("max_seq_length") && tok["max_seq_length"].is_number_integer())
            f.maxLen = tok["max_seq_length"].get<int64_t>();
    }
    // The safetensors weights first; else the ONNX graph's (an export reduced to onnx/, config and tokenizer).
    const fs::path safetensors = dir / "model.safetensors", onnx = dir / "onnx" / "model.onnx";
    if (!src.checkpoint_path.empty())
        weights = src.checkpoint_path;
    else
        weights = (fs::exists(safetensors) || !fs::exists(onnx) ? safetensors : onnx).string();
}

void TextClassifier::Private::resolveRunCheckpoint(const ClassifierSource &src, ClassifierFiles &f)
{
    f.runDir = src.model_dir;
    if (src.checkpoint_path.empty()) {
        // A run that kept a best model is read at its best (as predict, export and the Evaluation tab).
        const RunCheckpointChoice choice = chooseRunCheckpoint(src.model_dir);
        weights = choice.path;
        weightsLabel = choice.label();
        if (choice.best)
            notes.push_back("using the best checkpoint of the run (" + choice.label() + "): " + choice.path
                               + "; " + passOption("predict_checkpoint_path", "latest") + " for the last one");
    } else {
        weights = resolveCheckpointAlias(src.checkpoint_path, src.model_dir);
    }
    if (weights.empty())
        throw Error("model_dir", "no checkpoint found in '" + src.model_dir + "'",
                    "train first, or pass " + optionName("predict_checkpoint_path"));
    // The run's own --do_lower_case (recorded as given) comes right after the flag; then
    // what the checkpoint and run_config.json say the run read its text with.
    std::optional<bool> runFlagLower;
    takeRunFilesFromRunConfig(src.model_dir, f.cfgPath, f.metaPath, f.vocab, runFlagLower, notes);
    if (!src.do_lower_case && runFlagLower)
        f.casings.push_back({runConfigPath(src.model_dir) + " (the run's " + optionName("do_lower_case") + ")", runFlagLower});
    if (isTrainingCheckpointPath(weights))
        f.casings.push_back({weights, readCheckpointHeader(weights).do_lower_case});
    f.casings.push_back({runConfigPath(src.model_dir), recordedRunCasing(src.model_dir)});
}

void TextClassifier::Private::loadConfigAndMetaData(const ClassifierSource &src, const ClassifierFiles &f)
{
    cfg = loadRunModelConfig(f.cfgPath);
    meta = f.metaFromConfig ? metaDataFromHuggingFaceConfig(f.cfgPath, f.maxLen > 0 ? f.maxLen : cfg.max_position_embeddings)
                            : loadRunMetaData(f.metaPath);
    if (src.max_seq_length < 0)
        throw Error("max_seq_length", "max_seq_length is " + std::to_string(src.max_seq_length)
                                          + "; it must be 0 (the meta data's) or a length of at least 2");
    maxSeqLength = f.maxLen > 0 ? f.maxLen : meta.max_seq_length;
    if (maxSeqLength < 2 || maxSeqLength > cfg.max_position_embeddings)
        throw Error("max_seq_length", "must be in [2, max_position_embeddings = "
                                          + std::to_string(cfg.max_position_embeddings) + "], got "
                                          + std::to_string(maxSeqLength));
}

void TextClassifier::Private::loadLabelNames(const ClassifierFiles &f)
{
    if (meta.isRegression())
        return;
    LabelNames names = readLabelNames(f.metaPath, meta.num_labels, cfg.labelNames());
    labels = names.names;
    if (!names.warning.empty())
        warnings.push_back(names.warning);
}

void TextClassifier::Private::loadThresholds(const ClassifierFiles &f)
{
    if (!meta.isMultiLabel())
        return;
    if (!f.exportDir.empty()) {
        std::ifstream in(fs::path(f.exportDir) / "config.json");
        thresholds = configThresholds(nlohmann::json::parse(in, nullptr, false), meta.num_labels);
    } else {
        thresholds = runThresholds(f.runDir, weights, meta.num_labels);
    }
    if (thresholds.fallback)
        warnings.push_back("multi-label thresholds: none recorded for " + weights + ", every label is decided at 0.5");
    else
        notes.push_back("multi-label thresholds " + thresholds.source);
}

void TextClassifier::Private::loadTokenizer(const ClassifierSource &src, ClassifierFiles &f)
{
    const PreparedTokenizer prepared = readPreparedTokenizer(f.metaFromConfig ? std::string() : f.metaPath);
    if (f.vocab.empty() || !fs::exists(f.vocab))
        if (!prepared.vocab_file.empty() && src.vocab_file.empty())
            f.vocab = prepared.vocab_file;
    if (f.vocab.empty())
        throw Error("vocab_file", "no vocabulary",
                    "pass " + optionName("vocab_file") + " (the vocab.txt the data was prepared with)");
    f.casings.push_back({f.metaPath, meta.do_lower_case});
    f.casings.push_back({prepareReportPath(f.metaPath), prepared.do_lower_case});
    const TokenizerCasing casing = resolveCasing(f.casings, f.vocab);
    if (!casing.warning.empty())
        warnings.push_back(optionName("do_lower_case") + ": " + casing.warning);
    doLowerCase = casing.do_lower_case.value_or(true);
    casingSource = casing.source;
    tokenizer = std::make_unique<FullTokenizer>(f.vocab, doLowerCase);
    if (tokenizer->vocab().size() != cfg.vocab_size)
        throw Error(f.vocab, "has " + std::to_string(tokenizer->vocab().size()) + " tokens but the model's vocab_size is "
                                 + std::to_string(cfg.vocab_size),
                    "pass the vocab.txt the model was trained with");
    cls = tokenizer->vocab().id("[CLS]");
    sep = tokenizer->vocab().id("[SEP]");
    unk = tokenizer->vocab().id("[UNK]");
    // The attribution baseline's token; BERT vocabularies have it as id 0.
    pad = std::max(0, tokenizer->vocab().find("[PAD]"));
}

void TextClassifier::Private::loadWeights()
{
    // The initial weights are replaced by the loaded ones and inference draws nothing: a
    // throwaway stream of its own, so that loading never touches another job's random state.
    model = nn::BertForSequenceClassification(cfg, meta.num_labels, nn::makeGenerator(0));
    if (endsWith(weights, ".onnx")) {
        loadOnnxWeights(weights, *model); // checks that the graph is our export's, every weight with its shape
    } else if (endsWith(weights, ".safetensors") || fs::is_directory(weights)) {
        // Every tensor must be there; the check below says so in a classifier's words.
        const CheckpointMatch m = loadInitCheckpoint(model, weights, /*allowPartialInit=*/true);
        if (!m.missing.empty() || m.classifierMissing)
            throw Error(weights, "the weights lack " + std::to_string(m.missing.size())
                                     + " tensors of the model (e.g. "
                                     + (m.missing.empty() ? std::string("classifier.weight") : m.missing.front())
                                     + "): not a fine-tuned classifier",
                        "pass an export folder or a training checkpoint");
    } else {
        loadCheckpoint(weights, model, nullptr, false);
    }
    model->eval();
}

TextClassifier::TextClassifier(const ClassifierSource &src) : d(std::make_unique<Private>())
{
    // Each forward pass allocates the same large activations (BERT-Mini at batch 32: 16 MiB a
    // product): reused from pass to pass, not mapped afresh and page-faulted in each time, which
    // cost 2/3 of a batch's time (docs/benchmarks.md, "Inference"; core/util/trainingallocator.h).
    keepFreedMemoryForTraining();
    if (src.num_threads > 0)
        torch::set_num_threads(int(src.num_threads));
    ClassifierFiles f;
    f.cfgPath = src.bert_config_file;
    f.metaPath = src.input_meta_data_path;
    f.vocab = src.vocab_file;
    f.casings = {{optionName("do_lower_case"), src.do_lower_case}};
    f.maxLen = src.max_seq_length;
    if (!src.model_export_path.empty())
        d->resolveExportFolder(src, src.model_export_path, f);
    else if (src.model_dir.empty())
        throw Error("model_export_path", "no model given",
                    "pass " + optionName("model_export_path") + ", or " + optionName("model_dir") + " with its files");
    else if (isExportFolder(src.model_dir)) // --model_dir naming an export folder
        d->resolveExportFolder(src, src.model_dir, f);
    else
        d->resolveRunCheckpoint(src, f);
    d->loadConfigAndMetaData(src, f);
    try { // what the training texts were like, for notes on a text unlike them (shortTextNote)
        if (const auto report = readPrepareReport(f.metaPath); report && report->mean_tokens > 0)
            d->trainingMeanTokens = report->mean_tokens;
    } catch (...) {
        // a report that cannot be read only costs the note
    }
    d->loadLabelNames(f);
    d->loadTokenizer(src, f);
    d->loadWeights();
    d->loadThresholds(f);
}

TextClassifier::~TextClassifier() = default;

const std::vector<std::string> &TextClassifier::labelNames() const { return d->labels; }
int64_t TextClassifier::maxSeqLength() const { return d->maxSeqLength; }
bool TextClassifier::isRegression() const { return d->meta.isRegression(); }
bool TextClassifier::isMultiLabel() const { return d->meta.isMultiLabel(); }
const std::vector<double> &TextClassifier::thresholds() const { return d->thresholds.values; }
const std::string &TextClassifier::thresholdsSource() const { return d->thresholds.source; }
const std::string &TextClassifier::weightsPath() const { return d->weights; }
const std::string &TextClassifier::weightsLabel() const { return d->weightsLabel; }
const std::vector<std::string> &TextClassifier::warnings() const { return d->warnings; }

const std::vector<std::string> &TextClassifier::notes() const { return d->notes; }
bool TextClassifier::doLowerCase() const { return d->doLowerCase; }
const std::string &TextClassifier::casingSource() const { return d->casingSource; }
double TextClassifier::trainingMeanTokens() const { return d->trainingMeanTokens; }

std::string shortTextNote(const Classification &text, const Classification &empty, double trainingMeanTokens)
{
    constexpr double kShortShare = 0.2, kLongTexts = 20;
    if (!(trainingMeanTokens >= kLongTexts) || empty.probabilities.size() < 2
        || empty.probabilities.size() != text.probabilities.size())
        return {};
    int64_t pieces = 0;
    for (const std::string &t : text.tokenized.tokens)
        pieces += t != "[CLS]" && t != "[SEP]" ? 1 : 0;
    if (double(pieces) >= kShortShare * trainingMeanTokens)
        return {};
    char mean[32], share[32];
    std::snprintf(mean, sizeof mean, "%.0f", trainingMeanTokens);
    std::snprintf(share, sizeof share, "%.1f", 100.0 * empty.probabilities[size_t(empty.predicted_label_id)]);
    return "This text has " + std::to_string(pieces) + (pieces == 1 ? " wordpiece" : " wordpieces")
           + "; the texts the model was trained on have " + mean
           + " on average (prepare_report.json). A model trained on long texts often answers short ones badly: "
             "with no text at all it says "
           + empty.predicted_label + " " + share + " %.";
}

TokenizedText TextClassifier::tokenize(const std::string &a, const std::string &b) const
{
    ExampleFeatures f;
    buildExampleFeatures(*d->tokenizer, a, b, !b.empty(), d->maxSeqLength, d->cls, d->sep,
                         size_t(kTokenCountFactor * size_t(d->maxSeqLength)), f);
    TokenizedText t;
    t.truncated = f.truncated;
    t.tokens_needed = f.tokens_needed;
    for (size_t k = 0; k < f.input_ids.size() && f.input_mask[k] != 0; ++k) {
        const int64_t id = f.input_ids[k];
        t.input_ids.push_back(id);
        t.segment_ids.push_back(f.segment_ids[k]);
        t.tokens.push_back(d->tokenizer->vocab().token(int32_t(id)));
        t.unknown.push_back(id == d->unk);
    }
    return t;
}

Classification TextClassifier::classify(const std::string &a, const std::string &b) const
{
    return classifyAll({{a, b}}, 1).front();
}

std::vector<Classification> TextClassifier::classifyAll(const std::vector<std::pair<std::string, std::string>> &pairs,
                                                        int64_t batchSize) const
{
    std::vector<Classification> out(pairs.size());
    for (size_t k = 0; k < pairs.size(); ++k) {
        out[k].text = pairs[k].first;
        out[k].text_b = pairs[k].second;
        out[k].tokenized = tokenize(pairs[k].first, pairs[k].second);
    }
    // Texts of similar length batched together, each batch padded to its longest text only (the
    // attention mask hides padding, so the length changes nothing but the work; issue 49).
    std::vector<size_t> order(pairs.size());
    for (size_t k = 0; k < order.size(); ++k)
        order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&out](size_t a, size_t b) {
        return out[a].tokenized.input_ids.size() < out[b].tokenized.input_ids.size();
    });
    const int64_t numLabels = d->meta.num_labels;
    batchSize = std::max<int64_t>(1, batchSize);
    for (size_t from = 0; from < order.size(); from += size_t(batchSize)) {
        const size_t n = std::min(order.size() - from, size_t(batchSize));
        size_t L = 1;
        for (size_t k = 0; k < n; ++k)
            L = std::max(L, out[order[from + k]].tokenized.input_ids.size());
        std::vector<int64_t> ids(n * L, 0), mask(n * L, 0), segs(n * L, 0);
        for (size_t k = 0; k < n; ++k) {
            const TokenizedText &t = out[order[from + k]].tokenized;
            for (size_t i = 0; i < t.input_ids.size(); ++i) {
                ids[k * L + i] = t.input_ids[i];
                mask[k * L + i] = 1;
                segs[k * L + i] = t.segment_ids[i];
            }
        }
        const std::vector<float> values = probabilitiesOf(ids, mask, segs, int64_t(n));
        const float *p = values.data();
        for (size_t k = 0; k < n; ++k) {
            Classification &c = out[order[from + k]];
            c.probabilities.assign(p + int64_t(k) * numLabels, p + int64_t(k + 1) * numLabels);
            if (!d->meta.isRegression()) {
                c.predicted_label_id = int64_t(std::max_element(c.probabilities.begin(), c.probabilities.end())
                                               - c.probabilities.begin());
                c.predicted_label = labelName(c.predicted_label_id);
            }
            if (d->meta.isMultiLabel()) {
                c.multi_label = true;
                c.thresholds = d->thresholds.values;
                c.predicted_label_ids = labelsAtThresholds(c.probabilities, d->thresholds.values);
                for (int64_t id : c.predicted_label_ids)
                    c.predicted_labels.push_back(labelName(id));
            }
        }
    }
    return out;
}

std::vector<float> TextClassifier::probabilitiesOf(const std::vector<int64_t> &input_ids,
                                                   const std::vector<int64_t> &attention_mask,
                                                   const std::vector<int64_t> &token_type_ids, int64_t batch,
                                                   std::vector<float> *pooled, std::vector<float> *logitsOut) const
{
    if (batch < 1 || input_ids.size() % size_t(batch) != 0 || attention_mask.size() != input_ids.size()
        || token_type_ids.size() != input_ids.size())
        throw Error("input_ids", "a batch of " + std::to_string(batch) + " needs input_ids, attention_mask and "
                                     "token_type_ids of batch × sequence values each, got "
                                     + std::to_string(input_ids.size()) + ", " + std::to_string(attention_mask.size())
                                     + " and " + std::to_string(token_type_ids.size()));
    torch::NoGradGuard guard;
    const int64_t seq = int64_t(input_ids.size()) / batch;
    torch::Tensor logits;
    if (nn::ClassifierInference::applies(d->model)) {
        // The same logits, bit for bit, without an operator per step (nn::ClassifierInference).
        if (!d->inference)
            d->inference = std::make_unique<nn::ClassifierInference>(d->model);
        torch::Tensor cls;
        logits = d->inference->forward(input_ids.data(), attention_mask.data(), token_type_ids.data(), batch, seq,
                                       pooled ? &cls : nullptr);
        if (pooled)
            pooled->assign(cls.data_ptr<float>(), cls.data_ptr<float>() + cls.numel());
    } else {
        const auto opts = torch::TensorOptions().dtype(torch::kInt64);
        // from_blob only reads: forward never writes its inputs.
        auto tIds = torch::from_blob(const_cast<int64_t *>(input_ids.data()), {batch, seq}, opts);
        auto tMask = torch::from_blob(const_cast<int64_t *>(attention_mask.data()), {batch, seq}, opts);
        auto tSegs = torch::from_blob(const_cast<int64_t *>(token_type_ids.data()), {batch, seq}, opts);
        if (pooled) { // forward() step by step, keeping the pooled vector (the model is in eval mode: no dropout)
            auto &m = d->model;
            const auto hidden = m->encoder->forward(m->embeddings->forward(tIds, tSegs), tMask);
            const auto cls = torch::tanh(m->pooler->forward(hidden.select(1, 0)));
            logits = m->classifier->forward(cls).to(torch::kFloat);
            const auto rows = cls.to(torch::kFloat).contiguous();
            pooled->assign(rows.data_ptr<float>(), rows.data_ptr<float>() + rows.numel());
        } else {
            logits = d->model->forward(tIds, tMask, tSegs);
        }
    }
    if (logitsOut) {
        const auto z = logits.to(torch::kFloat).contiguous();
        logitsOut->assign(z.data_ptr<float>(), z.data_ptr<float>() + z.numel());
    }
    const torch::Tensor values = (d->meta.isRegression()   ? logits
                                  : d->meta.isMultiLabel() ? torch::sigmoid(logits)
                                                           : torch::softmax(logits, -1))
                                     .contiguous();
    return std::vector<float>(values.data_ptr<float>(), values.data_ptr<float>() + values.numel());
}

std::string TextClassifier::labelName(int64_t id) const
{
    if (d->meta.isRegression())
        return "value";
    return id >= 0 && id < int64_t(d->labels.size()) ? d->labels[size_t(id)] : "label " + std::to_string(id);
}

int64_t TextClassifier::numLabels() const { return d->meta.num_labels; }

Explanation TextClassifier::explain(const std::string &a, const std::string &b, const ExplainOptions &options,
                                    Classification *classification) const
{
    Classification c = classify(a, b);
    Explanation e;
    e.method = options.method;
    e.steps = options.method == AttributionMethod::IntegratedGradients ? options.ig_steps : 1;
    e.tokens = c.tokenized.tokens;
    const auto opts = torch::TensorOptions().dtype(torch::kInt64);
    std::vector<int64_t> ids = c.tokenized.input_ids, segs = c.tokenized.segment_ids;
    const torch::Tensor tIds = torch::from_blob(ids.data(), {int64_t(ids.size())}, opts);
    const torch::Tensor tSegs = torch::from_blob(segs.data(), {int64_t(segs.size())}, opts);
    ExplainOptions o = options;
    if (o.target_label_id < 0 && !d->meta.isRegression())
        o.target_label_id = c.predicted_label_id; // the class classify() shows, also on a near tie
    const TokenAttributions t = computeTokenAttributions(*d->model, tIds, tSegs, o, d->pad, d->cls, d->sep);
    e.attributions = t.attributions;
    e.logits = t.logits;
    e.baseline_logits = t.baseline_logits;
    e.target_label_id = t.target_label_id;
    e.target_label = labelName(t.target_label_id);
    e.target_is_predicted = d->meta.isRegression() || t.target_label_id == c.predicted_label_id;
    e.completeness = t.completeness;
    if (d->meta.isMultiLabel()) {
        // Each label is its own sigmoid: the target's log-odds are explained, and "predicted"
        // means in the label set at the label's threshold (not the softmax argmax).
        e.multi_label = true;
        const size_t target = size_t(t.target_label_id);
        const double threshold = target < d->thresholds.values.size() ? d->thresholds.values[target] : 0.5;
        judgeBaselineMultiLabel(e.completeness, t.logits[target], t.baseline_logits[target], threshold);
        e.target_is_predicted = std::find(c.predicted_label_ids.begin(), c.predicted_label_ids.end(),
                                          t.target_label_id) != c.predicted_label_ids.end();
    }
    e.words = mergeWordpieces(e.tokens, e.attributions);
    if (classification)
        *classification = std::move(c);
    return e;
}

} // namespace wb
