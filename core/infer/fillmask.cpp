// SPDX-License-Identifier: Apache-2.0
// Fill-in-the-blank with a pretraining run's masked LM (docs/pretraining.md, "Fill in the blank").
#include "core/infer/fillmask.h"

#include "core/config/bertconfig.h"
#include "core/config/inputmetadata.h"
#include "core/config/optionwords.h"
#include "core/config/trainingoptions.h"
#include "core/tokenize/fulltokenizer.h"
#include "core/prepare/preparereport.h"
#include "core/tokenize/tokenizercasing.h"
#include "core/model/initcheckpoint.h"
#include "core/model/pretrainingheads.h"
#include "core/formats/bestmodel.h"
#include "core/engine/checkpointio.h"
#include "core/formats/checkpointstate.h"
#include "core/formats/runidentity.h"
#include "core/util/error.h"

#include <torch/torch.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <numeric>

namespace fs = std::filesystem;

namespace wb {

namespace {

constexpr const char *kMask = "[MASK]";
constexpr size_t kMaskLength = 6;

/// Where "[MASK]" (ASCII case ignored) starts in `text`, from `from`; npos when nowhere.
size_t findMask(const std::string &text, size_t from)
{
    for (size_t i = from; i + kMaskLength <= text.size(); ++i) {
        size_t k = 0;
        while (k < kMaskLength && std::toupper(static_cast<unsigned char>(text[i + k])) == kMask[k])
            ++k;
        if (k == kMaskLength)
            return i;
    }
    return std::string::npos;
}

} // namespace

bool hasMaskToken(const std::string &text) { return findMask(text, 0) != std::string::npos; }

struct FillMaskPredictor::Private
{
    BertConfig cfg;
    InputMetaData meta;
    std::unique_ptr<FullTokenizer> tokenizer;
    mutable nn::BertForPreTraining model{nullptr}; // forward() is not const; inference changes nothing
    std::string weights, weightsLabel, casingSource;
    std::vector<std::string> warnings;
    int64_t maxSeqLength = 0;
    int32_t cls = 0, sep = 0, mask = 0;
    bool doLowerCase = true;

    /// Where the model's files are and which casing each source records.
    struct Files
    {
        std::string config, meta, vocab;
        std::vector<RecordedCasing> casings;
    };
    /// The files of an export folder (a BertForMaskedLM folder); sets weights.
    void locateExport(const FillMaskSource &src, Files &f);
    /// The files of a pretraining run's model_dir (run_config.json); sets weights.
    void locateRun(const FillMaskSource &src, Files &f);
    /// The model config and meta data (must be a pretraining run's), max_seq_length.
    void readConfig(const Files &f);
    /// The tokenizer with the casing the sources agree on; its vocabulary must match the model's.
    void loadTokenizer(const FillMaskSource &src, Files &f);
    /// The model with the weights; refuses weights without the masked-LM head.
    void loadModel();

    /// The text as the model sees it, and where its [MASK]s are.
    FillMaskResult tokenize(const std::string &text) const;
    /// softmax(MLM logits) [masks, vocab_size] at the result's [MASK] positions.
    torch::Tensor probabilities(const FillMaskResult &r) const;
};

FillMaskResult FillMaskPredictor::Private::tokenize(const std::string &text) const
{
    if (!hasMaskToken(text))
        throw Error("text", "the text has no [MASK]: there is no blank to fill in",
                    "write [MASK] where a word is missing, e.g. \"the meeting is on [MASK]\"");
    std::vector<int32_t> ids{cls};
    std::vector<size_t> maskAt;
    const size_t room = size_t(maxSeqLength) - 1; // [SEP] last
    bool truncated = false;
    size_t from = 0;
    while (from <= text.size()) {
        const size_t at = findMask(text, from);
        const std::string piece = text.substr(from, at == std::string::npos ? std::string::npos : at - from);
        for (int32_t id : tokenizer->tokenizeToIds(piece)) {
            if (ids.size() >= room) {
                truncated = true;
                break;
            }
            ids.push_back(id);
        }
        if (at == std::string::npos)
            break;
        if (ids.size() >= room) {
            truncated = true;
            break;
        }
        maskAt.push_back(ids.size());
        ids.push_back(mask);
        from = at + kMaskLength;
    }
    ids.push_back(sep);
    if (maskAt.empty())
        throw Error("text", "every [MASK] of the text is beyond max_seq_length = " + std::to_string(maxSeqLength)
                                + " tokens: the model sees only the start of the text",
                    "shorten the text before the [MASK]");
    FillMaskResult r;
    r.truncated = truncated;
    for (int32_t id : ids) {
        r.input_ids.push_back(id);
        r.tokens.push_back(tokenizer->vocab().token(id));
    }
    for (size_t p : maskAt)
        r.masks.push_back({int64_t(p), {}});
    return r;
}

torch::Tensor FillMaskPredictor::Private::probabilities(const FillMaskResult &r) const
{
    torch::NoGradGuard guard;
    const int64_t n = int64_t(r.input_ids.size());
    std::vector<int64_t> ids = r.input_ids, maskRow(size_t(n), 1), segments(size_t(n), 0), positions;
    for (const MaskFill &m : r.masks)
        positions.push_back(m.position);
    const auto opts = torch::TensorOptions().dtype(torch::kInt64);
    const auto tIds = torch::from_blob(ids.data(), {1, n}, opts).clone();
    const auto tMask = torch::from_blob(maskRow.data(), {1, n}, opts).clone();
    const auto tSeg = torch::from_blob(segments.data(), {1, n}, opts).clone();
    const auto tPos = torch::from_blob(positions.data(), {1, int64_t(positions.size())}, opts).clone();
    // The heads at the [MASK] positions only (the gather of the training loop).
    const nn::PretrainingOutput out = model->forward(tIds, tMask, tSeg, tPos);
    return torch::softmax(out.mlm_logits[0].to(torch::kFloat64), -1).contiguous(); // [masks, V]
}

void FillMaskPredictor::Private::locateExport(const FillMaskSource &src, Files &f)
{
    const fs::path dir = src.model_export_path;
    if (!fs::is_directory(dir))
        throw Error(src.model_export_path, "not a folder",
                    "pass the folder `export` wrote for a pretraining run (a BertForMaskedLM folder)");
    if (f.config.empty())
        f.config = (dir / (fs::exists(dir / "bert_config.json") ? "bert_config.json" : "config.json")).string();
    if (f.meta.empty())
        f.meta = (dir / "input_meta_data.json").string();
    if (f.vocab.empty())
        f.vocab = (dir / "vocab.txt").string();
    std::ifstream tin(dir / "tokenizer_config.json");
    const auto tok = nlohmann::json::parse(tin, nullptr, false);
    if (tok.is_object() && tok.contains("do_lower_case") && tok["do_lower_case"].is_boolean())
        f.casings.push_back({(dir / "tokenizer_config.json").string(), tok["do_lower_case"].get<bool>()});
    weights = src.checkpoint_path.empty() ? (dir / "model.safetensors").string() : src.checkpoint_path;
}

void FillMaskPredictor::Private::locateRun(const FillMaskSource &src, Files &f)
{
    if (src.model_dir.empty())
        throw Error("model_dir", "no model given",
                    "pass " + optionName("model_dir") + " of a pretraining run, or " + optionName("model_export_path"));
    if (src.checkpoint_path.empty()) {
        const RunCheckpointChoice choice = chooseRunCheckpoint(src.model_dir);
        weights = choice.path;
        weightsLabel = choice.label();
        if (choice.best)
            warnings.push_back("using the best checkpoint of the run (" + choice.label() + "): " + choice.path);
    } else {
        weights = resolveCheckpointAlias(src.checkpoint_path, src.model_dir);
    }
    if (weights.empty())
        throw Error("model_dir", "no checkpoint found in '" + src.model_dir + "'",
                    "pretrain first (the first checkpoint is written at the first evaluation)");
    // The run's files, as predict and export take them (run_config.json).
    TrainingOptions o;
    o.model_dir = src.model_dir;
    o.bert_config_file = f.config;
    o.input_meta_data_path = f.meta;
    o.vocab_file = f.vocab;
    o.do_lower_case = src.do_lower_case ? (*src.do_lower_case ? "true" : "false") : "";
    for (auto &note : fillFromRecordedRun(o))
        warnings.push_back(std::move(note));
    for (const auto &[path, flag] : {std::pair{&o.bert_config_file, "bert_config_file"},
                                     std::pair{&o.input_meta_data_path, "input_meta_data_path"}})
        if (path->empty())
            throw Error(flag, "required with " + optionName("model_dir") + ": " + runConfigPath(src.model_dir)
                                  + " does not name it",
                        "pass the run's " + optionName(flag));
    f.config = o.bert_config_file;
    f.meta = o.input_meta_data_path;
    f.vocab = o.vocab_file;
    if (!src.do_lower_case && !o.do_lower_case.empty())
        f.casings.push_back({runConfigPath(src.model_dir) + " (the run's --do_lower_case)", o.do_lower_case == "true"});
    if (isTrainingCheckpointPath(weights))
        f.casings.push_back({weights, readCheckpointHeader(weights).do_lower_case});
    f.casings.push_back({runConfigPath(src.model_dir), recordedRunCasing(src.model_dir)});
}

void FillMaskPredictor::Private::readConfig(const Files &f)
{
    cfg = loadRunModelConfig(f.config);
    meta = loadRunMetaData(f.meta);
    if (!meta.isPretraining())
        throw Error(f.meta, "task_type is '" + meta.task_type + "', not bert_pretraining: this is a classifier",
                    "fill-in-the-blank needs a pretraining run (bert-workbench-cli pretrain) or its export; "
                    "use Try it / classify for a classifier");
    maxSeqLength = std::min<int64_t>(meta.max_seq_length, cfg.max_position_embeddings);
    if (maxSeqLength < 3)
        throw Error(f.meta, "max_seq_length is " + std::to_string(meta.max_seq_length)
                                + "; [CLS] [MASK] [SEP] needs at least 3");
}

void FillMaskPredictor::Private::loadTokenizer(const FillMaskSource &src, Files &f)
{
    std::string vocab = f.vocab;
    if (vocab.empty() || !fs::exists(vocab)) {
        const PreparedTokenizer prepared = readPreparedTokenizer(f.meta);
        if (!prepared.vocab_file.empty() && src.vocab_file.empty())
            vocab = prepared.vocab_file;
    }
    if (vocab.empty())
        throw Error("vocab_file", "no vocabulary",
                    "pass " + optionName("vocab_file") + " (the vocab.txt the data was prepared with)");
    const PreparedTokenizer prepared = readPreparedTokenizer(f.meta);
    f.casings.push_back({f.meta, meta.do_lower_case});
    f.casings.push_back({prepareReportPath(f.meta), prepared.do_lower_case});
    const TokenizerCasing casing = resolveCasing(f.casings, vocab);
    if (!casing.warning.empty())
        warnings.push_back("do_lower_case: " + casing.warning);
    doLowerCase = casing.do_lower_case.value_or(true);
    casingSource = casing.source;
    tokenizer = std::make_unique<FullTokenizer>(vocab, doLowerCase);
    if (tokenizer->vocab().size() != cfg.vocab_size)
        throw Error(vocab, "has " + std::to_string(tokenizer->vocab().size()) + " tokens but the model's vocab_size is "
                               + std::to_string(cfg.vocab_size),
                    "pass the vocab.txt the model was pretrained with");
    mask = tokenizer->vocab().find("[MASK]");
    if (mask < 0)
        throw Error(vocab, "has no [MASK] token", "pass the vocab.txt the model was pretrained with");
    cls = tokenizer->vocab().id("[CLS]");
    sep = tokenizer->vocab().id("[SEP]");
}

void FillMaskPredictor::Private::loadModel()
{
    // The loaded weights replace the initial ones and inference draws nothing: a throwaway
    // generator, so loading never touches another job's random state.
    model = nn::BertForPreTraining(cfg, meta.use_next_sentence_label, nn::makeGenerator(0));
    if (isTrainingCheckpointPath(weights)) {
        const CheckpointModel view{*model, model->config(), 0, model->generator()};
        loadModelCheckpoint(weights, view, nullptr, false);
    } else {
        const CheckpointMatch m = loadPretrainingCheckpoint(model, weights, /*allowPartialInit=*/true);
        for (const std::string &name : m.missing)
            if (name.rfind("cls.predictions.", 0) == 0)
                throw Error(weights, "the weights lack the masked-LM head (" + name + "): not a pretraining model",
                            "pass the model_dir of a pretraining run or its export (a BertForMaskedLM folder)");
    }
    model->eval();
}

FillMaskPredictor::FillMaskPredictor(const FillMaskSource &src) : d(std::make_unique<Private>())
{
    Private::Files files{src.bert_config_file, src.input_meta_data_path, src.vocab_file,
                         {{"--do_lower_case", src.do_lower_case}}};
    if (!src.model_export_path.empty())
        d->locateExport(src, files);
    else
        d->locateRun(src, files);
    d->readConfig(files);
    d->loadTokenizer(src, files);
    d->loadModel();
}

FillMaskPredictor::~FillMaskPredictor() = default;

int64_t FillMaskPredictor::maxSeqLength() const { return d->maxSeqLength; }
int64_t FillMaskPredictor::vocabSize() const { return d->cfg.vocab_size; }
const std::string &FillMaskPredictor::weightsPath() const { return d->weights; }
const std::string &FillMaskPredictor::weightsLabel() const { return d->weightsLabel; }
bool FillMaskPredictor::doLowerCase() const { return d->doLowerCase; }
const std::string &FillMaskPredictor::casingSource() const { return d->casingSource; }
const std::vector<std::string> &FillMaskPredictor::warnings() const { return d->warnings; }

std::vector<std::vector<double>> FillMaskPredictor::maskProbabilities(const std::string &text) const
{
    const FillMaskResult r = d->tokenize(text);
    const torch::Tensor p = d->probabilities(r);
    std::vector<std::vector<double>> out;
    const double *data = p.data_ptr<double>();
    const int64_t V = p.size(1);
    for (int64_t m = 0; m < p.size(0); ++m)
        out.emplace_back(data + m * V, data + (m + 1) * V);
    return out;
}

FillMaskResult FillMaskPredictor::predict(const std::string &text, int64_t topK) const
{
    if (topK < 1)
        throw Error("top_k", "top_k is " + std::to_string(topK) + "; it must be at least 1");
    FillMaskResult r = d->tokenize(text);
    const torch::Tensor p = d->probabilities(r);
    const int64_t V = p.size(1);
    const int64_t k = std::min(topK, V);
    const double *data = p.data_ptr<double>();
    std::vector<int64_t> order(static_cast<size_t>(V));
    for (size_t m = 0; m < r.masks.size(); ++m) {
        const double *row = data + int64_t(m) * V;
        std::iota(order.begin(), order.end(), 0);
        std::partial_sort(order.begin(), order.begin() + k, order.end(), [row](int64_t a, int64_t b) {
            return row[a] > row[b] || (row[a] == row[b] && a < b);
        });
        for (int64_t j = 0; j < k; ++j) {
            const int64_t id = order[size_t(j)];
            r.masks[m].top.push_back({d->tokenizer->vocab().token(int32_t(id)), id, row[id]});
        }
    }
    return r;
}

} // namespace wb
