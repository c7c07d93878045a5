// SPDX-License-Identifier: Apache-2.0
#include "core/config/bertconfig.h"

#include "core/config/jsonfields.h"
#include "core/config/jsonfile.h"

#include <set>

namespace wb {

using detail::fieldName;

namespace {

// Largest parameter count fromJson accepts (bounds parameterCount's int64 arithmetic).
constexpr long double kMaxParameters = 1e12L;

const std::set<std::string> &knownKeys()
{
    static const std::set<std::string> keys = {
        "vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
        "hidden_act", "hidden_dropout_prob", "attention_probs_dropout_prob", "max_position_embeddings",
        "type_vocab_size", "initializer_range", "embedding_size", "backward_compatible", "layer_norm_eps"};
    return keys;
}

// Keys of released/HF-converted configs that the model does not use: accepted quietly
// as info, not as unknown-key warnings.
const std::set<std::string> &tolerated()
{
    static const std::set<std::string> keys = {
        "directionality", "pooler_fc_size", "pooler_num_attention_heads", "pooler_num_fc_layers",
        "pooler_size_per_head", "pooler_type", "model_type", "pad_token_id",
        "position_embedding_type", "architectures", "transformers_version", "use_cache",
        "classifier_dropout", "gradient_checkpointing", "torch_dtype",
        // Hugging Face PretrainedConfig keys that do not change this model.
        "id2label", "label2id", "num_labels", "_name_or_path", "problem_type", "finetuning_task",
        "bos_token_id", "eos_token_id", "sep_token_id", "output_past", "is_decoder", "add_cross_attention",
        "tie_word_embeddings", "chunk_size_feed_forward", "output_attentions", "output_hidden_states",
        "return_dict", "torchscript", "pruned_heads", "tokenizer_class", "prefix", "task_specific_params",
        "_commit_hash", "_attn_implementation_autoset"};
    return keys;
}

void requirePositive(int64_t value, const char *key, const std::string &source, Diagnostics &diag)
{
    if (value <= 0)
        diag.error(fieldName(source, key), std::string(key) + " must be > 0, got " + std::to_string(value),
                   "use a positive size, e.g. the value from the model's published bert_config.json");
}

void requireDropout(double value, const char *key, const std::string &source, Diagnostics &diag)
{
    if (!(value >= 0.0 && value < 1.0))
        diag.error(fieldName(source, key), std::string(key) + " must be in [0, 1), got " + detail::formatNumber(value),
                   "dropout is a probability; 0.1 is the usual value");
}

// Hugging Face config.json keys (transformers' BertConfig / PretrainedConfig) whose value
// matters: what this model cannot do is an error, what it ignores is a warning.
void checkHuggingFaceKeys(const nlohmann::json &j, const std::string &source, Diagnostics &diag)
{
    if (j.contains("model_type") && !(j["model_type"].is_string() && j["model_type"] == "bert"))
        diag.warning(fieldName(source, "model_type"),
                     "model_type is " + j["model_type"].dump() + ", not \"bert\"; only BERT's architecture and names are read",
                     "use a BERT model (model_type \"bert\")");
    if (j.contains("position_embedding_type")
        && !(j["position_embedding_type"].is_string() && j["position_embedding_type"] == "absolute"))
        diag.error(fieldName(source, "position_embedding_type"),
                   "position_embedding_type " + j["position_embedding_type"].dump()
                       + " is not supported; this model has learned absolute positions",
                   "use a model with \"position_embedding_type\": \"absolute\"");
    if (j.contains("classifier_dropout") && !j["classifier_dropout"].is_null())
        diag.warning(fieldName(source, "classifier_dropout"),
                     "classifier_dropout " + j["classifier_dropout"].dump()
                         + " is not used; the classifier's dropout is hidden_dropout_prob",
                     "set hidden_dropout_prob, or remove classifier_dropout");
    if (!j.contains("id2label"))
        return;
    const auto &m = j["id2label"];
    std::string problem;
    if (!m.is_object() || m.empty())
        problem = "id2label must be a non-empty object {\"0\": \"name\", …}";
    else
        for (size_t id = 0; id < m.size() && problem.empty(); ++id) {
            const auto it = m.find(std::to_string(id));
            if (it == m.end())
                problem = "id2label has " + std::to_string(m.size()) + " entries but no id \"" + std::to_string(id)
                          + "\"; the ids must be 0 … " + std::to_string(m.size() - 1);
            else if (!it->is_string())
                problem = "id2label[\"" + std::to_string(id) + "\"] is not a string";
        }
    if (!problem.empty())
        diag.error(fieldName(source, "id2label"), problem, "write the label names by id, e.g. {\"0\": \"neg\", \"1\": \"pos\"}");
}

} // namespace

bool isSupportedActivation(const std::string &name)
{
    static const std::set<std::string> names = {"gelu", "gelu_new", "gelu_pytorch_tanh", "relu", "tanh",
                                                "silu", "swish"};
    return names.count(name) > 0;
}

namespace {

/// Reads the keys of bert_config.json into `c`; a size key left out is warned about.
void readKnownKeys(const nlohmann::json &j, const std::string &source, Diagnostics &diag, BertConfig &c)
{
    if (!detail::readInt(j, "vocab_size", c.vocab_size, source, diag) && !j.contains("vocab_size"))
        diag.error(fieldName(source, "vocab_size"), "the required key vocab_size is missing",
                   "add \"vocab_size\": <lines in vocab.txt>, e.g. 30522 for bert-base-uncased");
    detail::readInt(j, "hidden_size", c.hidden_size, source, diag);
    detail::readInt(j, "num_hidden_layers", c.num_hidden_layers, source, diag);
    detail::readInt(j, "num_attention_heads", c.num_attention_heads, source, diag);
    detail::readInt(j, "intermediate_size", c.intermediate_size, source, diag);
    detail::readString(j, "hidden_act", c.hidden_act, source, diag);
    detail::readNumber(j, "hidden_dropout_prob", c.hidden_dropout_prob, source, diag);
    detail::readNumber(j, "attention_probs_dropout_prob", c.attention_probs_dropout_prob, source, diag);
    detail::readInt(j, "max_position_embeddings", c.max_position_embeddings, source, diag);
    if (!detail::readInt(j, "type_vocab_size", c.type_vocab_size, source, diag) && !j.contains("type_vocab_size"))
        diag.warning(fieldName(source, "type_vocab_size"),
                     "type_vocab_size is missing; using the original default 16 (released BERT models use 2)",
                     "add \"type_vocab_size\": 2 for checkpoints of the BERT releases");
    detail::readNumber(j, "initializer_range", c.initializer_range, source, diag);
    // A size key left out silently becomes BERT-Base's value, which can turn a tiny model
    // into a 100 M-parameter one: say so.
    for (const char *key : {"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
                            "max_position_embeddings"}) {
        if (j.contains(key))
            continue;
        const BertConfig defaults;
        const int64_t value = std::string(key) == "hidden_size"           ? defaults.hidden_size
                              : std::string(key) == "num_hidden_layers"   ? defaults.num_hidden_layers
                              : std::string(key) == "num_attention_heads" ? defaults.num_attention_heads
                              : std::string(key) == "intermediate_size"   ? defaults.intermediate_size
                                                                          : defaults.max_position_embeddings;
        diag.warning(fieldName(source, key),
                     std::string(key) + " is missing; using BERT-Base's " + std::to_string(value),
                     "copy the value from the model's published bert_config.json");
    }
    int64_t emb = 0;
    if (detail::readInt(j, "embedding_size", emb, source, diag))
        c.embedding_size = emb;
    detail::readNumber(j, "layer_norm_eps", c.layer_norm_eps, source, diag);
}

/// Keeps unknown keys in `c.extra` (warning about those not tolerated) and reads the Hugging
/// Face keys that matter.
void keepUnknownKeys(const nlohmann::json &j, const std::string &source, Diagnostics &diag, BertConfig &c)
{
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (knownKeys().count(it.key()))
            continue;
        c.extra[it.key()] = it.value();
        if (!tolerated().count(it.key()))
            diag.warning(fieldName(source, it.key()), "unknown key '" + it.key() + "' is kept but not used",
                         "check the spelling against the 11 keys of bert_config.json");
    }
    checkHuggingFaceKeys(j, source, diag);
}

/// The values' ranges and their agreement (heads divide the hidden size; the model fits int64).
void checkValues(const nlohmann::json &j, const std::string &source, Diagnostics &diag, const BertConfig &c)
{
    if (j.contains("vocab_size"))
        requirePositive(c.vocab_size, "vocab_size", source, diag);
    requirePositive(c.hidden_size, "hidden_size", source, diag);
    requirePositive(c.num_hidden_layers, "num_hidden_layers", source, diag);
    requirePositive(c.num_attention_heads, "num_attention_heads", source, diag);
    requirePositive(c.intermediate_size, "intermediate_size", source, diag);
    requirePositive(c.max_position_embeddings, "max_position_embeddings", source, diag);
    requirePositive(c.type_vocab_size, "type_vocab_size", source, diag);
    if (c.embedding_size)
        requirePositive(*c.embedding_size, "embedding_size", source, diag);
    requireDropout(c.hidden_dropout_prob, "hidden_dropout_prob", source, diag);
    requireDropout(c.attention_probs_dropout_prob, "attention_probs_dropout_prob", source, diag);
    if (!(c.initializer_range > 0.0 && c.initializer_range < 1.0))
        diag.error(fieldName(source, "initializer_range"),
                   "initializer_range must be in (0, 1), got " + detail::formatNumber(c.initializer_range),
                   "0.02 is the value of every released BERT");
    if (c.hidden_size > 0 && c.num_attention_heads > 0 && c.hidden_size % c.num_attention_heads != 0)
        diag.error(fieldName(source, "num_attention_heads"),
                   "The hidden size (" + std::to_string(c.hidden_size) + ") is not a multiple of the number of attention heads ("
                       + std::to_string(c.num_attention_heads) + ")",
                   "choose num_attention_heads so that hidden_size / num_attention_heads is whole (usually 64)");
    if (!(c.layer_norm_eps > 0.0 && c.layer_norm_eps < 1.0))
        diag.error(fieldName(source, "layer_norm_eps"),
                   "layer_norm_eps must be in (0, 1), got " + detail::formatNumber(c.layer_norm_eps),
                   "BERT uses 1e-12");
    if (!isSupportedActivation(c.hidden_act))
        diag.error(fieldName(source, "hidden_act"), "Unsupported activation: " + c.hidden_act,
                   "use one of gelu, gelu_new, relu, tanh, silu, swish");
    // Sizes whose parameter count does not fit the int64 arithmetic of parameterCount() cannot
    // describe a trainable model (found by fuzz/fuzz_bertconfig: vocab_size 9e18 overflowed it).
    if (c.vocab_size > 0 && c.hidden_size > 0 && c.num_hidden_layers > 0 && c.intermediate_size > 0
        && c.max_position_embeddings > 0 && c.type_vocab_size > 0 && c.embeddingWidth() > 0) {
        const long double H = c.hidden_size, E = c.embeddingWidth(), I = c.intermediate_size;
        const long double total = (long double)(c.vocab_size) * E + (long double)(c.max_position_embeddings) * E
                                  + (long double)(c.type_vocab_size) * E + E * H
                                  + (long double)(c.num_hidden_layers) * (4 * H * H + 2 * H * I + 10 * H + I) + H * H;
        if (total > kMaxParameters)
            diag.error(source,
                       "these sizes give a model of about " + detail::formatNumber(double(total))
                           + " parameters, more than the limit of 1e12 (BERT-Large has 3.4e8)",
                       "check vocab_size, hidden_size, num_hidden_layers, intermediate_size and "
                       "max_position_embeddings against the model's published bert_config.json");
    }
}

} // namespace

BertConfig BertConfig::fromJson(const nlohmann::json &j, const std::string &source, Diagnostics &diag)
{
    BertConfig c;
    const int before = diag.errorCount();
    readKnownKeys(j, source, diag, c);
    const bool typesOk = diag.errorCount() == before;
    keepUnknownKeys(j, source, diag, c);
    if (typesOk)
        checkValues(j, source, diag, c);
    return c;
}

std::optional<BertConfig> BertConfig::load(const std::string &path, Diagnostics &diag)
{
    return loadJsonObjectFile<BertConfig>(path, diag);
}

nlohmann::json BertConfig::toJson() const
{
    nlohmann::json j = extra;
    j["vocab_size"] = vocab_size;
    j["hidden_size"] = hidden_size;
    j["num_hidden_layers"] = num_hidden_layers;
    j["num_attention_heads"] = num_attention_heads;
    j["intermediate_size"] = intermediate_size;
    j["hidden_act"] = hidden_act;
    j["hidden_dropout_prob"] = hidden_dropout_prob;
    j["attention_probs_dropout_prob"] = attention_probs_dropout_prob;
    j["max_position_embeddings"] = max_position_embeddings;
    j["type_vocab_size"] = type_vocab_size;
    j["initializer_range"] = initializer_range;
    if (embedding_size)
        j["embedding_size"] = *embedding_size;
    if (layer_norm_eps != 1e-12)
        j["layer_norm_eps"] = layer_norm_eps;
    return j;
}

ParameterCount BertConfig::parameterCount(int64_t num_labels) const
{
    const int64_t H = hidden_size;
    const int64_t E = embeddingWidth();
    const int64_t I = intermediate_size;
    ParameterCount p;
    p.embeddings = (vocab_size + max_position_embeddings + type_vocab_size) * E + 2 * E;
    if (E != H)
        p.embeddings += E * H + H;
    // Q, K, V, O (weights + biases), two LayerNorms, the feed-forward pair.
    const int64_t perLayer = 4 * (H * H + H) + 2 * (2 * H) + (H * I + I) + (I * H + H);
    p.encoder = num_hidden_layers * perLayer;
    p.pooler = H * H + H;
    p.classifier = H * num_labels + num_labels;
    return p;
}

double BertConfig::trainingFlopsPerExample(int64_t seq_length, int64_t num_labels) const
{
    const ParameterCount p = parameterCount(num_labels);
    const double s = double(seq_length);
    return 6.0 * double(p.encoder) * s + 12.0 * double(num_hidden_layers) * double(hidden_size) * s * s
           + 6.0 * double(p.pooler + p.classifier);
}

std::vector<std::string> BertConfig::labelNames() const
{
    std::vector<std::string> names;
    const auto it = extra.find("id2label");
    if (it == extra.end() || !it->is_object())
        return names;
    for (size_t id = 0; id < it->size(); ++id) {
        const auto e = it->find(std::to_string(id));
        if (e == it->end() || !e->is_string())
            return {};
        names.push_back(e->get<std::string>());
    }
    return names;
}

bool BertConfig::sameArchitecture(const BertConfig &o) const
{
    return vocab_size == o.vocab_size && hidden_size == o.hidden_size && num_hidden_layers == o.num_hidden_layers
           && num_attention_heads == o.num_attention_heads && intermediate_size == o.intermediate_size
           && hidden_act == o.hidden_act && max_position_embeddings == o.max_position_embeddings
           && type_vocab_size == o.type_vocab_size && embeddingWidth() == o.embeddingWidth();
}

const std::vector<BertPreset> &bertPresets()
{
    static const std::vector<BertPreset> presets = [] {
        std::vector<BertPreset> v;
        auto make = [&v](const char *name, const char *id, int64_t L, int64_t H) {
            BertConfig c;
            c.vocab_size = 30522;
            c.hidden_size = H;
            c.num_hidden_layers = L;
            c.num_attention_heads = H / 64;
            c.intermediate_size = 4 * H;
            c.type_vocab_size = 2;
            v.push_back({name, id, c});
        };
        make("BERT-Tiny (L=2, H=128, A=2)", "bert-tiny", 2, 128);
        make("BERT-Mini (L=4, H=256, A=4)", "bert-mini", 4, 256);
        make("BERT-Small (L=4, H=512, A=8)", "bert-small", 4, 512);
        make("BERT-Medium (L=8, H=512, A=8)", "bert-medium", 8, 512);
        make("BERT-Base (L=12, H=768, A=12)", "bert-base", 12, 768);
        make("BERT-Large (L=24, H=1024, A=16)", "bert-large", 24, 1024);
        return v;
    }();
    return presets;
}

} // namespace wb
