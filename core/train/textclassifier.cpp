// SPDX-License-Identifier: Apache-2.0
#include "core/train/textclassifier.h"

#include "core/config/bertconfig.h"
#include "core/config/inputmetadata.h"
#include "core/config/labelnames.h"
#include "core/data/preparereport.h"
#include "core/data/fulltokenizer.h"
#include "core/data/preparefeatures.h"
#include "core/data/tokenizercasing.h"
#include "core/model/initcheckpoint.h"
#include "core/train/attributiontorch.h"
#include "core/train/bestmodel.h"
#include "core/train/checkpointio.h"
#include "core/train/checkpointstate.h"
#include "core/train/runidentity.h"
#include "core/util/error.h"

#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace wb {

namespace {

// Tokens counted past max_seq_length to say how long a cut text was (as prepare does).
constexpr size_t kTokenCountFactor = 4;

bool endsWith(const std::string &s, const std::string &suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

struct TextClassifier::Private
{
    BertConfig cfg;
    InputMetaData meta;
    std::vector<std::string> labels;
    std::vector<std::string> warnings;
    std::unique_ptr<FullTokenizer> tokenizer;
    nn::BertForSequenceClassification model{nullptr};
    std::string weights;
    std::string weightsLabel;
    int64_t maxSeqLength = 0;
    int32_t cls = 0, sep = 0, unk = 0, pad = 0;
    bool doLowerCase = true;
    std::string casingSource;
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
            throw Error(flag, std::string("required with --model_dir: ") + runConfigPath(modelDir)
                                  + (recorded ? " does not name it" : " is missing or unreadable"),
                        std::string("pass the run's --") + flag);
    cfgPath = o.bert_config_file;
    metaPath = o.input_meta_data_path;
    vocab = o.vocab_file;
    if (!lower && !o.do_lower_case.empty())
        lower = o.do_lower_case == "true";
}

} // namespace

TextClassifier::TextClassifier(const ClassifierSource &src) : d(std::make_unique<Private>())
{
    std::string cfgPath = src.bert_config_file, metaPath = src.input_meta_data_path, vocab = src.vocab_file;
    // Where the casing may be recorded, in order: the flag, then what the model was trained
    // with (tokenizer_config.json of an export; the checkpoint, run_config.json of a run),
    // then the data's meta data and prepare_report.json; else it is inferred from the vocab.
    std::vector<RecordedCasing> casings{{"--do_lower_case", src.do_lower_case}};
    int64_t maxLen = src.max_seq_length;
    if (!src.model_export_path.empty()) {
        const fs::path dir = src.model_export_path;
        if (!fs::is_directory(dir))
            throw Error(src.model_export_path, "not a folder", "pass the folder `export --model_export_path` wrote");
        if (cfgPath.empty())
            cfgPath = (dir / (fs::exists(dir / "bert_config.json") ? "bert_config.json" : "config.json")).string();
        if (metaPath.empty())
            metaPath = (dir / "input_meta_data.json").string();
        if (vocab.empty())
            vocab = (dir / "vocab.txt").string();
        std::ifstream tin(dir / "tokenizer_config.json");
        const auto tok = nlohmann::json::parse(tin, nullptr, false);
        if (tok.is_object()) {
            if (tok.contains("do_lower_case") && tok["do_lower_case"].is_boolean())
                casings.push_back({(dir / "tokenizer_config.json").string(), tok["do_lower_case"].get<bool>()});
            if (maxLen <= 0 && tok.contains("max_seq_length") && tok["max_seq_length"].is_number_integer())
                maxLen = tok["max_seq_length"].get<int64_t>();
        }
        d->weights = src.checkpoint_path.empty() ? (dir / "model.safetensors").string() : src.checkpoint_path;
    } else {
        if (src.model_dir.empty())
            throw Error("model_export_path", "no model given", "pass --model_export_path, or --model_dir with its files");
        if (src.checkpoint_path.empty()) {
            // A run that kept a best model is read at its best (as predict, export and the Evaluation tab).
            const RunCheckpointChoice choice = chooseRunCheckpoint(src.model_dir);
            d->weights = choice.path;
            d->weightsLabel = choice.label();
            if (choice.best)
                d->warnings.push_back("using the best checkpoint of the run (" + choice.label() + "): " + choice.path
                                      + "; pass --predict_checkpoint_path=latest for the last one");
        } else {
            d->weights = resolveCheckpointAlias(src.checkpoint_path, src.model_dir);
        }
        if (d->weights.empty())
            throw Error("model_dir", "no checkpoint found in '" + src.model_dir + "'",
                        "train first, or pass --predict_checkpoint_path");
        // The run's own --do_lower_case (recorded as given) comes right after the flag; then
        // what the checkpoint and run_config.json say the run read its text with.
        std::optional<bool> runFlagLower;
        takeRunFilesFromRunConfig(src.model_dir, cfgPath, metaPath, vocab, runFlagLower, d->warnings);
        if (!src.do_lower_case && runFlagLower)
            casings.push_back({runConfigPath(src.model_dir) + " (the run's --do_lower_case)", runFlagLower});
        if (isTrainingCheckpointPath(d->weights))
            casings.push_back({d->weights, readCheckpointHeader(d->weights).do_lower_case});
        casings.push_back({runConfigPath(src.model_dir), recordedRunCasing(src.model_dir)});
    }
    d->cfg = loadRunModelConfig(cfgPath);
    d->meta = loadRunMetaData(metaPath);
    if (src.max_seq_length < 0)
        throw Error("max_seq_length", "max_seq_length is " + std::to_string(src.max_seq_length)
                                          + "; it must be 0 (the meta data's) or a length of at least 2");
    d->maxSeqLength = maxLen > 0 ? maxLen : d->meta.max_seq_length;
    if (d->maxSeqLength < 2 || d->maxSeqLength > d->cfg.max_position_embeddings)
        throw Error("max_seq_length", "must be in [2, max_position_embeddings = "
                                          + std::to_string(d->cfg.max_position_embeddings) + "], got "
                                          + std::to_string(d->maxSeqLength));
    if (!d->meta.isRegression()) {
        LabelNames names = readLabelNames(metaPath, d->meta.num_labels, d->cfg.labelNames());
        d->labels = names.names;
        if (!names.warning.empty())
            d->warnings.push_back(names.warning);
    }
    const PreparedTokenizer prepared = readPreparedTokenizer(metaPath);
    if (vocab.empty() || !fs::exists(vocab))
        if (!prepared.vocab_file.empty() && src.vocab_file.empty())
            vocab = prepared.vocab_file;
    if (vocab.empty())
        throw Error("vocab_file", "no vocabulary", "pass --vocab_file (the vocab.txt the data was prepared with)");
    casings.push_back({metaPath, d->meta.do_lower_case});
    casings.push_back({prepareReportPath(metaPath), prepared.do_lower_case});
    const TokenizerCasing casing = resolveCasing(casings, vocab);
    if (!casing.warning.empty())
        d->warnings.push_back("do_lower_case: " + casing.warning);
    d->doLowerCase = casing.do_lower_case.value_or(true);
    d->casingSource = casing.source;
    d->tokenizer = std::make_unique<FullTokenizer>(vocab, d->doLowerCase);
    if (d->tokenizer->vocab().size() != d->cfg.vocab_size)
        throw Error(vocab, "has " + std::to_string(d->tokenizer->vocab().size()) + " tokens but the model's vocab_size is "
                               + std::to_string(d->cfg.vocab_size),
                    "pass the vocab.txt the model was trained with");
    d->cls = d->tokenizer->vocab().id("[CLS]");
    d->sep = d->tokenizer->vocab().id("[SEP]");
    d->unk = d->tokenizer->vocab().id("[UNK]");
    // The attribution baseline's token; BERT vocabularies have it as id 0.
    d->pad = std::max(0, d->tokenizer->vocab().find("[PAD]"));

    // The initial weights are replaced by the loaded ones and inference draws nothing: a
    // throwaway stream of its own, so that loading never touches another job's random state.
    d->model = nn::BertForSequenceClassification(d->cfg, d->meta.num_labels, nn::makeGenerator(0));
    if (endsWith(d->weights, ".safetensors") || fs::is_directory(d->weights)) {
        // Every tensor must be there; the check below says so in a classifier's words.
        const CheckpointMatch m = loadInitCheckpoint(d->model, d->weights, /*allowPartialInit=*/true);
        if (!m.missing.empty() || m.classifierMissing)
            throw Error(d->weights, "the weights lack " + std::to_string(m.missing.size())
                                        + " tensors of the model (e.g. " + (m.missing.empty() ? std::string("classifier.weight") : m.missing.front())
                                        + "): not a fine-tuned classifier",
                        "pass an export folder or a training checkpoint");
    } else {
        loadCheckpoint(d->weights, d->model, nullptr, false);
    }
    d->model->eval();
}

TextClassifier::~TextClassifier() = default;

const std::vector<std::string> &TextClassifier::labelNames() const { return d->labels; }
int64_t TextClassifier::maxSeqLength() const { return d->maxSeqLength; }
bool TextClassifier::isRegression() const { return d->meta.isRegression(); }
const std::string &TextClassifier::weightsPath() const { return d->weights; }
const std::string &TextClassifier::weightsLabel() const { return d->weightsLabel; }
const std::vector<std::string> &TextClassifier::warnings() const { return d->warnings; }
bool TextClassifier::doLowerCase() const { return d->doLowerCase; }
const std::string &TextClassifier::casingSource() const { return d->casingSource; }

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
    torch::NoGradGuard guard;
    std::vector<Classification> out;
    out.reserve(pairs.size());
    const int64_t L = d->maxSeqLength;
    const int64_t numLabels = d->meta.num_labels;
    batchSize = std::max<int64_t>(1, batchSize);
    for (size_t from = 0; from < pairs.size(); from += size_t(batchSize)) {
        const size_t n = std::min(pairs.size() - from, size_t(batchSize));
        std::vector<int64_t> ids(n * size_t(L), 0), mask(n * size_t(L), 0), segs(n * size_t(L), 0);
        for (size_t k = 0; k < n; ++k) {
            const auto &[a, b] = pairs[from + k];
            Classification c;
            c.text = a;
            c.text_b = b;
            c.tokenized = tokenize(a, b);
            for (size_t i = 0; i < c.tokenized.input_ids.size(); ++i) {
                ids[k * size_t(L) + i] = c.tokenized.input_ids[i];
                mask[k * size_t(L) + i] = 1;
                segs[k * size_t(L) + i] = c.tokenized.segment_ids[i];
            }
            out.push_back(std::move(c));
        }
        const auto opts = torch::TensorOptions().dtype(torch::kInt64);
        auto tIds = torch::from_blob(ids.data(), {int64_t(n), L}, opts);
        auto tMask = torch::from_blob(mask.data(), {int64_t(n), L}, opts);
        auto tSegs = torch::from_blob(segs.data(), {int64_t(n), L}, opts);
        auto logits = d->model->forward(tIds, tMask, tSegs);
        auto values = (d->meta.isRegression() ? logits : torch::softmax(logits, -1)).contiguous();
        const float *p = values.data_ptr<float>();
        const int64_t width = values.size(1);
        for (size_t k = 0; k < n; ++k) {
            Classification &c = out[from + k];
            c.probabilities.assign(p + int64_t(k) * width, p + int64_t(k + 1) * width);
            if (!d->meta.isRegression()) {
                c.predicted_label_id = int64_t(std::max_element(c.probabilities.begin(), c.probabilities.end())
                                               - c.probabilities.begin());
                c.predicted_label = c.predicted_label_id < int64_t(d->labels.size())
                                        ? d->labels[size_t(c.predicted_label_id)]
                                        : "label " + std::to_string(c.predicted_label_id);
            }
        }
        (void)numLabels;
    }
    return out;
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
    e.target_label_id = t.target_label_id;
    e.target_label = labelName(t.target_label_id);
    e.target_is_predicted = d->meta.isRegression() || t.target_label_id == c.predicted_label_id;
    e.completeness = t.completeness;
    e.words = mergeWordpieces(e.tokens, e.attributions);
    if (classification)
        *classification = std::move(c);
    return e;
}

} // namespace wb
