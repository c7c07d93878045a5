// SPDX-License-Identifier: Apache-2.0
// Matching a checkpoint's tensors to the model (matchCheckpoint, matchTfCheckpoint; docs/file-formats.md "Init checkpoints").
#include "core/model/initcheckpoint.h"

#include "core/config/optionwords.h"
#include "core/weights/parameternames.h"

#include <algorithm>
#include <set>

namespace wb {

namespace {

bool isIgnoredBuffer(const std::string &name)
{
    auto ends = [&](const char *s) {
        const std::string suffix = s;
        return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return ends("position_ids") || ends("token_type_ids");
}

std::string configKeyFor(const std::string &name, const std::vector<int64_t> &want, const std::vector<int64_t> &got)
{
    if (name.find("word_embeddings") != std::string::npos)
        return !got.empty() && got[0] != want[0] ? "vocab_size" : "embedding_size/hidden_size";
    if (name.find("position_embeddings") != std::string::npos)
        return !got.empty() && got[0] != want[0] ? "max_position_embeddings" : "hidden_size";
    if (name.find("token_type_embeddings") != std::string::npos)
        return !got.empty() && got[0] != want[0] ? "type_vocab_size" : "hidden_size";
    if (name.find("intermediate.") != std::string::npos || name.find(".output.dense") != std::string::npos)
        return "intermediate_size/hidden_size";
    if (name.rfind("classifier.", 0) == 0)
        return "num_labels (input_meta_data.json)";
    return "hidden_size";
}

} // namespace

namespace {

/// "skipped 5 pretraining-head tensors cls/… (the masked-LM and next-sentence heads of
/// pre-training; a classifier does not use them)".
std::string pretrainingHeadText(const std::vector<std::string> &names)
{
    const std::string &first = names.front();
    const size_t at = first.find("cls");
    const std::string prefix = first.substr(0, at + 4); // "cls/" or "cls." under its scope
    return "skipped " + std::to_string(names.size()) + " pretraining-head tensor" + (names.size() == 1 ? "" : "s") + " "
           + prefix + "… (the masked-LM and next-sentence heads of pre-training; a classifier does not use them)";
}

} // namespace

std::string CheckpointMatch::summary() const
{
    std::string s = "loaded " + std::to_string(loaded.size()) + " tensors";
    if (!scope.empty())
        s += " (names under '" + scope + "')";
    s += ", " + std::to_string(missing.size()) + " missing, " + std::to_string(unexpected.size()) + " unexpected";
    auto list = [&s](const char *what, const std::vector<std::string> &names) {
        if (names.empty())
            return;
        s += std::string("; ") + what + ":";
        for (size_t k = 0; k < names.size() && k < 8; ++k)
            s += " " + names[k];
        if (names.size() > 8)
            s += " …";
    };
    list("missing (keep their initial values)", missing);
    list("unexpected (ignored)", unexpected);
    if (!skipped.empty())
        s += "; skipped " + std::to_string(skipped.size()) + " optimizer slot/bookkeeping variable(s) (adam_m, adam_v, "
             "global_step: training state, not weights)";
    if (!pretraining_head.empty())
        s += "; " + pretrainingHeadText(pretraining_head);
    for (const auto &n : notes)
        s += "; " + n;
    if (classifierMissing)
        s += "; classifier head newly initialised (expected when starting from a pretrained encoder)";
    return s;
}

namespace {

/// One checkpoint tensor as the matcher sees it, whatever the format.
struct Candidate
{
    std::string file_name;
    std::string model_name;               ///< empty: not a model parameter
    std::vector<int64_t> file_shape;      ///< as stored
    std::vector<int64_t> model_shape;     ///< after transposing/collapsing (equals file_shape for safetensors)
    std::string dtype;
    bool float_dtype = true;
    std::string scope;                    ///< the recognised scope the name was found under ("module/"), or ""
};

bool isHead(const std::string &modelName) { return modelName.rfind("classifier.", 0) == 0; }
bool isPooler(const std::string &modelName) { return modelName.rfind("bert.pooler.", 0) == 0; }

/// "39 under 'module/' (e.g. module/bert/embeddings/word_embeddings), 2 at the top level (e.g.
/// output_bias)": the file's names grouped by their first scope component (`sep` separates
/// components: '/' in TensorFlow names, '.' in Hugging Face names), largest group first.
std::string describeScopes(const std::vector<Candidate> &cands, char sep)
{
    std::map<std::string, std::pair<size_t, std::string>> groups; // scope -> (count, first name)
    for (const auto &c : cands) {
        const size_t pos = c.file_name.find(sep);
        auto &g = groups[pos == std::string::npos ? std::string() : c.file_name.substr(0, pos + 1)];
        if (g.first++ == 0)
            g.second = c.file_name;
    }
    std::vector<std::pair<std::string, std::pair<size_t, std::string>>> order(groups.begin(), groups.end());
    std::stable_sort(order.begin(), order.end(),
                     [](const auto &a, const auto &b) { return a.second.first > b.second.first; });
    std::string s;
    for (size_t k = 0; k < order.size() && k < 4; ++k) {
        const auto &[scope, g] = order[k];
        s += (k ? ", " : "") + std::to_string(g.first) + (scope.empty() ? " at the top level" : " under '" + scope + "'")
             + " (e.g. " + g.second + ")";
    }
    if (order.size() > 4)
        s += ", …";
    return s.empty() ? "the checkpoint holds no weights" : "the checkpoint's names: " + s;
}

/// The matcher's working state over one checkpoint (matchCandidates' steps share it).
struct MatchState
{
    const std::vector<Candidate> &cands;
    const std::string &path;
    Diagnostics &diag;
    std::map<std::string, std::vector<int64_t>> expected; ///< model name -> shape
    std::vector<std::string> order;                       ///< model names, registration order
    std::map<std::string, std::string> source;            ///< model name -> the file tensor it comes from
    std::set<std::string> found, failed;                  ///< failed: an error of its own (dtype, shape, two sources)
    std::map<std::string, size_t> scopes;                 ///< recognised scope -> encoder tensors loaded from it
    /// Encoder tensors of another shape: (candidate, the model's shape). Reported as one
    /// architecture error when the config fields that differ can be named, else one by one.
    std::vector<std::pair<const Candidate *, std::vector<int64_t>>> misshapen;
    bool poolerInFile = false;
};

/// True for a tensor of BERT's pre-training heads (google-research/bert `cls/predictions/…`,
/// `cls/seq_relationship/…`; Hugging Face `cls.predictions.…`), at the top or under a scope.
bool isPretrainingHead(const std::string &fileName, char sep)
{
    const std::string cls = std::string("cls") + sep;
    return fileName.rfind(cls, 0) == 0 || fileName.find(sep + cls) != std::string::npos;
}

/// Step 1: each file tensor is loaded, skipped, unexpected, or an error (dtype, two
/// sources, a misshapen head); misshapen encoder tensors are kept for step 3.
void sortCandidates(MatchState &s, CheckpointMatch &m, char sep)
{
    for (const auto &c : s.cands) {
        if (isPretrainingHead(c.file_name, sep)) {
            m.pretraining_head.push_back(c.file_name);
            continue;
        }
        auto it = s.expected.find(c.model_name);
        if (c.model_name.empty() || it == s.expected.end()) {
            m.unexpected.push_back(c.file_name);
            continue;
        }
        s.poolerInFile |= isPooler(c.model_name);
        if (const auto [first, fresh] = s.source.emplace(c.model_name, c.file_name); !fresh) {
            // Never "the last one wins": the file is ambiguous.
            s.diag.error(s.path + ": " + c.file_name,
                         "'" + first->second + "' and '" + c.file_name + "' both map to the model tensor " + c.model_name
                             + "; each model tensor must come from exactly one tensor of the checkpoint",
                         "remove one of the two (e.g. a second copy of the model under another scope), or save the "
                         "checkpoint again from a single model");
            s.failed.insert(c.model_name);
            continue;
        }
        if (!c.float_dtype) {
            s.diag.error(s.path + ": " + c.file_name, "dtype " + c.dtype + " is not a floating-point type",
                         "export the checkpoint with float weights");
            s.failed.insert(c.model_name);
            continue;
        }
        if (c.model_shape != it->second) {
            if (isHead(c.model_name)) {
                s.diag.warning(s.path + ": " + c.file_name,
                               "shape " + shapeString(c.file_shape) + " in the checkpoint, but the model needs "
                                   + shapeString(it->second) + " for " + c.model_name
                                   + "; a new classifier head is initialised",
                               "change " + configKeyFor(c.model_name, it->second, c.model_shape)
                                   + " to match the checkpoint, or use a checkpoint made for this config");
            } else {
                s.misshapen.emplace_back(&c, it->second);
                s.failed.insert(c.model_name);
            }
            continue;
        }
        s.found.insert(c.model_name);
        m.loaded.emplace_back(c.file_name, c.model_name);
        if (!isHead(c.model_name))
            ++s.scopes[c.scope];
    }
    // A tensor with two sources loads from neither.
    m.loaded.erase(std::remove_if(m.loaded.begin(), m.loaded.end(),
                                  [&s](const auto &l) { return s.failed.count(l.second) > 0; }),
                   m.loaded.end());
}

/// The layer index of "bert.encoder.layer.N.…", or -1.
int layerIndexOf(const std::string &modelName)
{
    static const std::string prefix = "bert.encoder.layer.";
    if (modelName.rfind(prefix, 0) != 0)
        return -1;
    const size_t end = modelName.find('.', prefix.size());
    const std::string n = modelName.substr(prefix.size(), end - prefix.size());
    if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos || n.size() > 6)
        return -1;
    return std::stoi(n);
}

/// One config field whose value the checkpoint's shapes contradict.
struct FieldDifference
{
    std::string field;
    int64_t in_checkpoint = 0, in_config = 0;
};

/// The bert_config fields the file's shapes imply (vocab_size, hidden_size or embedding_size,
/// max_position_embeddings, type_vocab_size, intermediate_size, num_hidden_layers) that
/// differ from `config`, in that order.
std::vector<FieldDifference> architectureDifferences(const std::vector<Candidate> &cands, const BertConfig &config)
{
    std::vector<FieldDifference> out;
    std::set<std::string> seen;
    const auto note = [&](const std::string &field, int64_t file, int64_t cfg) {
        if (file != cfg && seen.insert(field).second)
            out.push_back({field, file, cfg});
    };
    const int64_t embedding = config.embedding_size.value_or(config.hidden_size);
    const char *embeddingField = config.embedding_size ? "embedding_size" : "hidden_size";
    std::set<int> layers;
    bool embeddings = false;
    for (const auto &c : cands) {
        const auto &n = c.model_name;
        const auto &s = c.model_shape;
        if (const int layer = layerIndexOf(n); layer >= 0)
            layers.insert(layer);
        embeddings |= n == "bert.embeddings.word_embeddings.weight";
        if (s.size() == 2 && n == "bert.embeddings.word_embeddings.weight") {
            note("vocab_size", s[0], config.vocab_size);
            note(embeddingField, s[1], embedding);
        } else if (s.size() == 2 && n == "bert.embeddings.position_embeddings.weight") {
            note("max_position_embeddings", s[0], config.max_position_embeddings);
        } else if (s.size() == 2 && n == "bert.embeddings.token_type_embeddings.weight") {
            note("type_vocab_size", s[0], config.type_vocab_size);
        } else if (s.size() == 2 && layerIndexOf(n) == 0 && n.find(".attention.self.query.weight") != std::string::npos) {
            note("hidden_size", s[0], config.hidden_size);
        } else if (s.size() == 2 && layerIndexOf(n) == 0 && n.find(".intermediate.dense.weight") != std::string::npos) {
            note("intermediate_size", s[0], config.intermediate_size);
        }
    }
    // The layer count of a whole model only (embeddings and layers 0..N-1): a file that lacks
    // some layers is a partial checkpoint (reportRandomEncoder), not another architecture.
    if (embeddings && !layers.empty() && *layers.rbegin() + 1 == int(layers.size()))
        note("num_hidden_layers", int64_t(layers.size()), config.num_hidden_layers);
    static const std::vector<std::string> fieldOrder{"vocab_size",        "embedding_size",          "hidden_size",
                                                     "num_hidden_layers", "intermediate_size",       "max_position_embeddings",
                                                     "type_vocab_size"};
    const auto rank = [](const FieldDifference &d) {
        return std::find(fieldOrder.begin(), fieldOrder.end(), d.field) - fieldOrder.begin();
    };
    std::stable_sort(out.begin(), out.end(), [&](const auto &x, const auto &y) { return rank(x) < rank(y); });
    return out;
}

/// Step 3: misshapen encoder tensors and a checkpoint with another number of layers are
/// one error naming the config fields that differ (both values) and the likely cause.
/// Returns true when that error (or, for surplus layers with `allowPartialInit`, warning)
/// was given. Without a nameable field, each misshapen tensor is an error of its own.
bool reportArchitecture(MatchState &s, const BertConfig &config, bool allowPartialInit)
{
    const std::vector<FieldDifference> diffs = architectureDifferences(s.cands, config);
    // In the model's order (embeddings first), whatever order the file lists its tensors in.
    const auto position = [&s](const std::string &name) {
        return std::find(s.order.begin(), s.order.end(), name) - s.order.begin();
    };
    std::stable_sort(s.misshapen.begin(), s.misshapen.end(), [&](const auto &x, const auto &y) {
        return position(x.first->model_name) < position(y.first->model_name);
    });
    if (diffs.empty()) {
        for (const auto &[c, want] : s.misshapen) {
            std::string msg = "shape " + shapeString(c->file_shape) + " in the checkpoint";
            if (c->file_shape != c->model_shape)
                msg += " (" + shapeString(c->model_shape) + " as [out, in])";
            s.diag.error(s.path + ": " + c->file_name, msg + ", but the model needs " + shapeString(want) + " for " + c->model_name,
                         "change " + configKeyFor(c->model_name, want, c->model_shape)
                             + " to match the checkpoint, or use a checkpoint made for this config");
        }
        return false;
    }
    std::string fields;
    for (const auto &d : diffs)
        fields += (fields.empty() ? "" : ", ") + d.field + " " + std::to_string(d.in_checkpoint) + " in the checkpoint but "
                  + std::to_string(d.in_config) + " in the config";
    std::string affected;
    if (!s.misshapen.empty()) {
        const auto &[c, want] = s.misshapen.front();
        affected = "; " + std::to_string(s.misshapen.size()) + " of the model's tensors have another shape in the checkpoint "
                   "(first: " + c->model_name + ", " + shapeString(c->model_shape) + " in the checkpoint, "
                   + shapeString(want) + " in the model)";
    }
    const bool layersOnly = s.misshapen.empty() && diffs.size() == 1 && diffs.front().field == "num_hidden_layers";
    const std::string message = "the checkpoint was made for another architecture than the model config: " + fields
                                + affected + "; the config is likely that of another model";
    const std::string hint = "pass the bert_config.json (or config.json) that came with the checkpoint as "
                             + optionName("bert_config_file") + ", or an " + optionName("init_checkpoint")
                             + " made for this config";
    if (layersOnly && allowPartialInit)
        s.diag.warning(s.path,
                       message + " (the layers both have are loaded, the rest stay random or are ignored: "
                           + optionSetting("allow_partial_init", "true") + ")",
                       hint);
    else
        s.diag.error(s.path, message,
                     layersOnly ? hint + "; to load only the layers both have on purpose, "
                                      + passOption("allow_partial_init", "true")
                                : hint);
    return true;
}

/// Step 2: model tensors the file lacks; returns the encoder tensors that would keep their
/// random initialisation, and sets `poolerMissing` for a file without any pooler tensor.
std::vector<std::string> findMissing(MatchState &s, CheckpointMatch &m, size_t &encoderTensors, bool &poolerMissing)
{
    size_t poolerTensors = 0;
    std::vector<std::string> randomEncoder;
    for (const auto &n : s.order) {
        encoderTensors += isHead(n) ? 0 : 1;
        poolerTensors += isPooler(n) ? 1 : 0;
        if (s.found.count(n) || s.failed.count(n))
            continue;
        if (isHead(n)) {
            m.classifierMissing = true;
            continue;
        }
        m.missing.push_back(n);
        if (isPooler(n) && !s.poolerInFile)
            poolerMissing = true; // a pre-training checkpoint without the pooler: a warning
        else
            randomEncoder.push_back(n);
    }
    if (poolerMissing)
        encoderTensors -= poolerTensors; // counted on their own
    size_t most = 0;
    for (const auto &[scope, count] : s.scopes)
        if (count > most) {
            most = count;
            m.scope = scope;
        }
    return randomEncoder;
}

/// Step 4: encoder tensors that would stay random are an error (a warning with
/// --allow_partial_init), naming how many and the scopes the file's names use.
void reportRandomEncoder(const MatchState &s, const std::vector<std::string> &randomEncoder, size_t encoderTensors,
                         const std::string &namesHint, char sep, bool allowPartialInit)
{
    const std::string what = std::to_string(randomEncoder.size()) + " of the model's " + std::to_string(encoderTensors)
                             + " encoder tensors are not in the checkpoint (first: " + randomEncoder.front() + ") and ";
    if (allowPartialInit)
        s.diag.warning(s.path, what + "keep their random initialisation (" + optionSetting("allow_partial_init", "true")
                                   + "); " + describeScopes(s.cands, sep),
                       namesHint);
    else
        s.diag.error(s.path, what + "would keep their random initialisation; " + describeScopes(s.cands, sep),
                     namesHint + "; to train with them randomly initialised on purpose, "
                                 + passOption("allow_partial_init", "true"));
}

CheckpointMatch matchCandidates(const std::vector<Candidate> &cands, const std::string &path, const BertConfig &config,
                                int64_t numLabels, Diagnostics &diag, const std::string &namesHint, char sep,
                                bool allowPartialInit)
{
    CheckpointMatch m;
    MatchState s{cands, path, diag, {}, {}, {}, {}, {}, {}, {}, false};
    for (const auto &p : expectedParameters(config, numLabels)) {
        s.expected[p.name] = p.shape;
        s.order.push_back(p.name);
    }
    sortCandidates(s, m, sep);
    size_t encoderTensors = 0;
    bool poolerMissing = false;
    const std::vector<std::string> randomEncoder = findMissing(s, m, encoderTensors, poolerMissing);
    const bool architecture = reportArchitecture(s, config, allowPartialInit);
    if (m.loaded.empty() && s.failed.empty() && !architecture)
        diag.error(path, "no tensor of the checkpoint matches the model; " + describeScopes(cands, sep), namesHint);
    else if (!randomEncoder.empty() && !architecture)
        reportRandomEncoder(s, randomEncoder, encoderTensors, namesHint, sep, allowPartialInit);
    if (poolerMissing)
        diag.warning(path, "the checkpoint has no pooler (bert.pooler.dense.*): it keeps its random initialisation",
                     "expected for a pre-training checkpoint saved without the pooler; fine-tuning trains it");
    if (!m.pretraining_head.empty())
        diag.info(path, pretrainingHeadText(m.pretraining_head));
    if (!m.loaded.empty() && m.classifierMissing)
        diag.info(path, "the checkpoint has no classifier head for num_labels = " + std::to_string(numLabels)
                            + ": a new one is initialised (expected when starting from a pretrained encoder)");
    return m;
}

bool isTensorFlowName(const std::string &name)
{
    return name.rfind("bert/", 0) == 0 || name.find("/.ATTRIBUTES/") != std::string::npos || name == "output_weights"
           || name == "global_step";
}

} // namespace

CheckpointMatch matchCheckpoint(const SafetensorsHeader &header, const std::string &path, const BertConfig &config,
                                int64_t numLabels, Diagnostics &diag, bool allowPartialInit)
{
    for (const auto &e : header.tensors)
        if (isTensorFlowName(e.name)) {
            diag.error(path + ": " + e.name,
                       "this file holds TensorFlow variable names ('" + e.name
                           + "'), not Hugging Face names; its Dense kernels are stored [in, out]",
                       "pass the TensorFlow checkpoint itself as " + optionName("init_checkpoint")
                           + " (the bert_model.ckpt prefix, its .index file or its folder), or convert it with Hugging "
                             "Face transformers "
                       "(BertForSequenceClassification.from_pretrained(dir, from_tf=True).save_pretrained(out))");
            return CheckpointMatch{};
        }
    std::vector<Candidate> cands;
    for (const auto &e : header.tensors) {
        if (isIgnoredBuffer(e.name))
            continue;
        Candidate c;
        c.file_name = e.name;
        c.model_name = canonicalParameterName(e.name);
        for (const char *scope : {"module.", "model."})
            if (e.name.rfind(scope, 0) == 0)
                c.scope = scope;
        c.file_shape = c.model_shape = e.shape;
        c.dtype = e.dtype;
        c.float_dtype = e.dtype == "F32" || e.dtype == "F16" || e.dtype == "BF16" || e.dtype == "F64";
        cands.push_back(std::move(c));
    }
    return matchCandidates(cands, path, config, numLabels, diag,
                           "use Hugging Face weights with BERT names (bert.embeddings.…, "
                           "bert.encoder.layer.N.…, optionally under module. or model.), or a TensorFlow BERT "
                           "checkpoint",
                           '.', allowPartialInit);
}

CheckpointMatch matchTfCheckpoint(const TfBundle &bundle, const BertConfig &config, int64_t numLabels,
                                  Diagnostics &diag, bool allowPartialInit)
{
    const std::string path = bundle.prefix;
    std::vector<Candidate> cands;
    std::vector<std::string> skipped;
    for (const auto &e : bundle.entries) {
        const TfVariableKind kind = classifyTfVariable(e.name);
        if (kind == TfVariableKind::OptimizerSlot || kind == TfVariableKind::Bookkeeping) {
            skipped.push_back(e.name);
            continue;
        }
        Candidate c;
        c.file_name = e.name;
        c.file_shape = c.model_shape = e.shape;
        c.dtype = tfDtypeName(e.dtype);
        c.float_dtype = isTfFloatDtype(e.dtype);
        if (const auto map = mapTfVariableName(e.name)) {
            if (e.sliced) {
                diag.error(path + ": " + e.name, "the variable is saved as partitioned slices, which are not read",
                           "re-save the checkpoint without variable partitioning");
                continue;
            }
            c.model_name = map->model_name;
            c.model_shape = modelShapeOf(*map, e.shape);
            c.scope = map->scope;
        }
        cands.push_back(std::move(c));
    }
    CheckpointMatch m = matchCandidates(
        cands, path, config, numLabels, diag,
        "google-research/bert names (bert/encoder/layer_N/…, also under module/, model/, encoder/ or bert/) and "
        "tensorflow/models TF2 encoder names (_transformer_layers/N/…) are read; see docs/file-formats.md",
        '/', allowPartialInit);
    m.format = "TensorFlow checkpoint";
    m.skipped = std::move(skipped);
    return m;
}

} // namespace wb
