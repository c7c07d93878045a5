// SPDX-License-Identifier: Apache-2.0
#include "core/model/initcheckpoint.h"

#include "core/config/jsonfile.h"
#include "core/model/parameternames.h"
#include "core/model/shardindex.h"
#include "core/util/error.h"
#include "core/util/errortext.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

namespace fs = std::filesystem;

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
                             "--bert_config_file, or an --init_checkpoint made for this config";
    if (layersOnly && allowPartialInit)
        s.diag.warning(s.path, message + " (the layers both have are loaded, the rest stay random or are ignored: "
                                         "--allow_partial_init=true)",
                       hint);
    else
        s.diag.error(s.path, message,
                     layersOnly ? hint + "; to load only the layers both have on purpose, pass --allow_partial_init=true"
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
        s.diag.warning(s.path, what + "keep their random initialisation (--allow_partial_init=true); "
                                   + describeScopes(s.cands, sep),
                       namesHint);
    else
        s.diag.error(s.path, what + "would keep their random initialisation; " + describeScopes(s.cands, sep),
                     namesHint + "; to train with them randomly initialised on purpose, pass "
                                 "--allow_partial_init=true");
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
                       "pass the TensorFlow checkpoint itself as --init_checkpoint (the bert_model.ckpt prefix, its "
                       ".index file or its folder), or convert it with Hugging Face transformers "
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

namespace {

bool hasExtension(const std::string &path, const char *ext)
{
    const std::string e = ext;
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
}

std::string firstBytes(const std::string &path, size_t n)
{
    std::ifstream in(path, std::ios::binary);
    std::string b(n, '\0');
    in.read(b.data(), std::streamsize(n));
    b.resize(size_t(in.gcount()));
    return b;
}

bool startsAsPyTorch(const std::string &head)
{
    const bool zip = head.rfind("PK\x03\x04", 0) == 0;
    const bool pickle = head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 && head[1] >= 2 && head[1] <= 5;
    return zip || pickle;
}

/// The file names of a folder, sorted, for messages ("holds a.txt, b.json").
std::string folderListing(const fs::path &dir)
{
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto &f : fs::directory_iterator(dir, ec))
        names.push_back(f.path().filename().string());
    std::sort(names.begin(), names.end());
    if (names.empty())
        return "nothing";
    std::string s;
    for (size_t k = 0; k < names.size() && k < 12; ++k)
        s += (k ? ", " : "") + names[k];
    if (names.size() > 12)
        s += " and " + std::to_string(names.size() - 12) + " more";
    return s;
}

/// True for a training checkpoint's file name, "ckpt-<N>" (checkpointName in core/train).
bool isTrainingCheckpointName(const fs::path &p)
{
    const std::string n = p.filename().string();
    return n.size() > 5 && n.rfind("ckpt-", 0) == 0 && n.find_first_not_of("0123456789", 5) == std::string::npos;
}

/// The `ckpt-N` with the largest N in `dir`, or "" (a model_dir without its `checkpoint` index).
std::string latestTrainingCheckpoint(const fs::path &dir)
{
    std::error_code ec;
    std::string best;
    long long bestStep = -1;
    for (const auto &f : fs::directory_iterator(dir, ec))
        if (isTrainingCheckpointName(f.path()) && f.is_regular_file(ec)) {
            const std::string digits = f.path().filename().string().substr(5);
            const long long step = digits.size() > 18 ? -1 : std::stoll(digits);
            if (step > bestStep) {
                bestStep = step;
                best = f.path().string();
            }
        }
    return best;
}

/// What locateCheckpoint looked for, for the message when it finds nothing.
constexpr const char *kLookedFor =
    "looked for: a TensorFlow checkpoint (<prefix>.index + .data-00000-of-00001, or a folder with its `checkpoint` "
    "file), a training or pre-training run's model_dir (its `checkpoint` index and ckpt-N files), a single ckpt-N "
    "file, an export folder or a Hugging Face folder (model.safetensors or pytorch_model.bin, sharded or not, with "
    "config.json), a .safetensors file, a pytorch_model.bin / .pt / .pth file";

/// A folder with a `checkpoint` file: TensorFlow's or a training run's (readCheckpointStateTarget).
std::optional<CheckpointSource> locateByStateFile(const std::string &input)
{
    std::error_code ec;
    const auto target = readCheckpointStateTarget(input);
    if (!target)
        return std::nullopt;
    CheckpointSource src;
    if (!target->note.empty())
        src.notes.push_back(target->note);
    if (fs::exists(target->path + ".index", ec)) {
        src.format = CheckpointFormat::TensorFlow;
        src.path = target->path;
    } else if (fs::is_regular_file(target->path, ec)) {
        src.format = CheckpointFormat::Training;
        src.path = target->path;
    } else {
        (void)resolveTfCheckpointPrefix(input); // throws, naming the state file and both paths tried
        throw Error(target->state_file, "model_checkpoint_path names '" + target->recorded + "', which does not exist");
    }
    return src;
}

} // namespace

CheckpointSource locateCheckpoint(const std::string &input)
{
    std::error_code ec;
    if (auto src = locateByStateFile(input))
        return *src;
    if (auto prefix = resolveTfCheckpointPrefix(input))
        return {CheckpointFormat::TensorFlow, *prefix, {}, {}};
    if (fs::is_regular_file(input, ec) && isTrainingCheckpointName(input))
        return {CheckpointFormat::Training, input, {}, {}};
    if (fs::is_directory(input, ec)) {
        const fs::path dir(input);
        const std::string config = fs::is_regular_file(dir / "config.json", ec) ? (dir / "config.json").string() : "";
        // transformers' preference (modeling_utils.py from_pretrained): safetensors, then PyTorch.
        const std::pair<const char *, CheckpointFormat> hf[] = {
            {"model.safetensors", CheckpointFormat::Safetensors},
            {"model.safetensors.index.json", CheckpointFormat::Sharded},
            {"pytorch_model.bin", CheckpointFormat::PyTorch},
            {"pytorch_model.bin.index.json", CheckpointFormat::Sharded}};
        for (const auto &[file, format] : hf)
            if (fs::is_regular_file(dir / file, ec))
                return {format, (dir / file).string(), config, {}};
        if (const std::string latest = latestTrainingCheckpoint(dir); !latest.empty())
            return {CheckpointFormat::Training, latest, {}, {}}; // a model_dir without its index
        std::vector<std::string> indexes;
        for (const auto &f : fs::directory_iterator(dir, ec))
            if (f.path().extension() == ".index")
                indexes.push_back(f.path().string());
        if (indexes.size() == 1)
            return {CheckpointFormat::TensorFlow, indexes.front().substr(0, indexes.front().size() - 6), config, {}};
        if (indexes.size() > 1)
            throw Error(input, "the folder holds " + std::to_string(indexes.size())
                                   + " TensorFlow checkpoints and no `checkpoint` file saying which to use",
                        "pass the prefix of one, e.g. --init_checkpoint=" + indexes.front().substr(0, indexes.front().size() - 6));
        for (const char *pickle : {"model.pt", "model.pth"})
            if (fs::is_regular_file(dir / pickle, ec))
                return {CheckpointFormat::PyTorch, (dir / pickle).string(), config, {}};
        std::string unread;
        for (const char *other : {"tf_model.h5", "flax_model.msgpack", "rust_model.ot", "model.onnx", "onnx/model.onnx"})
            if (fs::is_regular_file(dir / other, ec))
                unread += std::string(unread.empty() ? "" : ", ") + other;
        if (!unread.empty())
            throw Error(input, "the folder's weights are only in " + unread
                                   + " (Keras HDF5, Flax, Rust or ONNX), which are not read; the folder holds "
                                   + folderListing(dir),
                        "get the model's model.safetensors or pytorch_model.bin (most Hugging Face repositories have "
                        "one), or its original TensorFlow checkpoint (bert_model.ckpt)");
        throw Error(input, "the folder holds no checkpoint this program reads (it holds " + folderListing(dir) + "); "
                               + kLookedFor,
                    "pass one of these (a model_dir after its first checkpoint, an `export` folder, a Hugging Face "
                    "model folder, or a TensorFlow checkpoint prefix such as uncased_L-2_H-128_A-2/bert_model.ckpt)");
    }
    if (!fs::exists(input, ec)) {
        const fs::path p(input);
        const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
        const std::string stem = p.filename().string() + ".data-";
        for (const auto &f : fs::directory_iterator(parent, ec))
            if (f.path().filename().string().rfind(stem, 0) == 0)
                throw Error(input + ".index", "the TensorFlow checkpoint's .index file is missing (found "
                                                  + f.path().filename().string() + ")",
                            "copy " + p.filename().string() + ".index beside the data shard");
        throw Error(input, "the init checkpoint does not exist (neither it nor " + p.filename().string()
                               + ".index is there); " + kLookedFor,
                    "pass a model_dir of a run, a ckpt-N file, an export folder, a safetensors file, a Hugging Face "
                    "model folder, or a TensorFlow checkpoint prefix (e.g. uncased_L-2_H-128_A-2/bert_model.ckpt)");
    }
    const std::string head = firstBytes(input, 8);
    if (hasExtension(input, ".index.json"))
        return {CheckpointFormat::Sharded, input, {}, {}};
    if (hasExtension(input, ".bin") || hasExtension(input, ".pt") || hasExtension(input, ".pth") || startsAsPyTorch(head))
        return {CheckpointFormat::PyTorch, input, {}, {}};
    if (head.rfind("\x89HDF", 0) == 0)
        throw Error(input, "this is a Keras HDF5 weights file; it is not read",
                    "use the model's model.safetensors or pytorch_model.bin, or the original TensorFlow checkpoint "
                    "(bert_model.ckpt)");
    return {CheckpointFormat::Safetensors, input, {}, {}};
}

void checkInitCheckpoint(const TrainingOptions &options, const BertConfig &config, const InputMetaData &meta,
                         Diagnostics &diag)
{
    if (options.init_checkpoint.empty())
        return;
    try {
        const CheckpointSource src = locateCheckpoint(options.init_checkpoint);
        for (const auto &note : src.notes)
            diag.warning("init_checkpoint", note, "nothing to do if that is the checkpoint you meant");
        if (src.format == CheckpointFormat::TensorFlow) {
            const TfBundle bundle = readTfBundle(src.path);
            matchTfCheckpoint(bundle, config, meta.num_labels, diag, options.allow_partial_init);
            for (const auto &[shard, message] : checkTfBundleShards(bundle))
                diag.error(shard, message,
                           "copy " + fs::path(shard).filename().string() + " beside "
                               + fs::path(bundle.prefix).filename().string() + ".index");
        } else {
            matchCheckpoint(readWeightsTable(src), src.path, config, meta.num_labels, diag, options.allow_partial_init);
        }
        if (!src.config_json.empty()) {
            Diagnostics ignored;
            const auto folderConfig = BertConfig::load(src.config_json, ignored);
            if (folderConfig && !ignored.hasErrors() && !folderConfig->sameArchitecture(config))
                diag.warning(src.config_json, "the checkpoint folder's config.json describes another architecture than "
                                              "--bert_config_file",
                             "pass --bert_config_file=" + src.config_json);
        }
    } catch (...) { // never throws: any failure (wb, filesystem, c10) is a finding
        const ErrorText t = describeCurrentException("init_checkpoint");
        diag.error(t.field, t.message, t.hint);
    }
}

namespace {

/// The torch type of a safetensors dtype name (torchDtypeSize(dtype) != 0).
torch::ScalarType scalarTypeOf(const std::string &d)
{
    if (d == "F16") return torch::kHalf;
    if (d == "BF16") return torch::kBFloat16;
    if (d == "F64") return torch::kDouble;
    if (d == "I64") return torch::kLong;
    if (d == "I32") return torch::kInt;
    if (d == "I16") return torch::kShort;
    if (d == "I8") return torch::kChar;
    if (d == "U8") return torch::kByte;
    if (d == "BOOL") return torch::kBool;
    return torch::kFloat;
}

} // namespace

std::map<std::string, torch::Tensor> loadSafetensors(const std::string &path)
{
    const SafetensorsHeader h = readSafetensorsHeader(path);
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(path, "cannot open the safetensors file");
    std::map<std::string, torch::Tensor> out;
    for (const auto &e : h.tensors) {
        if (torchDtypeSize(e.dtype) == 0)
            continue; // U16/U32/U64 have no torch 1.13 type; never BERT weights
        const torch::ScalarType t = scalarTypeOf(e.dtype);
        auto tensor = torch::empty(e.shape, torch::TensorOptions().dtype(t));
        in.seekg(std::streamoff(h.data_start + e.begin));
        in.read(static_cast<char *>(tensor.data_ptr()), std::streamsize(e.end - e.begin));
        if (!in)
            throw Error(path + ": tensor '" + e.name + "'", "could not read the tensor data", "the file is truncated");
        if (t == torch::kHalf || t == torch::kBFloat16 || t == torch::kDouble)
            tensor = tensor.to(torch::kFloat);
        out[e.name] = tensor;
    }
    return out;
}

void saveSafetensors(const std::string &path, const std::vector<std::pair<std::string, torch::Tensor>> &tensors)
{
    std::vector<SafetensorsEntry> entries;
    std::vector<torch::Tensor> data;
    for (const auto &[name, t] : tensors) {
        auto c = t.detach().to(torch::kCPU, torch::kFloat).contiguous();
        entries.push_back({name, "F32", c.sizes().vec(), 0, 0});
        data.push_back(c);
    }
    std::string bytes = buildSafetensorsHeader(entries, {{"format", "pt"}});
    for (const auto &c : data)
        bytes.append(static_cast<const char *>(c.data_ptr()), size_t(c.numel()) * sizeof(float));
    writeFileAtomic(path, bytes);
}

namespace {

bool isPyTorchFile(const std::string &path)
{
    return hasExtension(path, ".bin") || hasExtension(path, ".pt") || hasExtension(path, ".pth")
           || startsAsPyTorch(firstBytes(path, 8));
}

/// The names, dtypes and shapes of one (unsharded) weights file.
SafetensorsHeader readFileTable(const std::string &path, bool pytorch)
{
    if (!pytorch)
        return readSafetensorsHeader(path);
    const TorchCheckpoint c = readTorchCheckpoint(path);
    SafetensorsHeader h;
    h.file_size = c.file_size;
    for (const auto &t : c.tensors)
        h.tensors.push_back({t.name, t.dtype, t.shape, 0, 0});
    return h;
}

std::string formatName(const CheckpointSource &src)
{
    switch (src.format) {
    case CheckpointFormat::Safetensors: return "safetensors";
    case CheckpointFormat::PyTorch: return "PyTorch";
    case CheckpointFormat::TensorFlow: return "TensorFlow checkpoint";
    case CheckpointFormat::Training: return "training checkpoint";
    case CheckpointFormat::Sharded: break;
    }
    return hasExtension(src.path, "safetensors.index.json") ? "sharded safetensors" : "sharded PyTorch";
}

} // namespace

SafetensorsHeader readWeightsTable(const CheckpointSource &src)
{
    if (src.format == CheckpointFormat::TensorFlow)
        throw Error(src.path, "a TensorFlow checkpoint has no safetensors-style table (read it with readTfBundle)");
    if (src.format == CheckpointFormat::Training) {
        SafetensorsHeader h;
        std::error_code ec;
        h.file_size = uint64_t(fs::file_size(src.path, ec));
        for (const auto &[name, t] : loadTrainingCheckpointWeights(src.path))
            h.tensors.push_back({name, "F32", t.sizes().vec(), 0, 0});
        return h;
    }
    if (src.format != CheckpointFormat::Sharded)
        return readFileTable(src.path, src.format == CheckpointFormat::PyTorch);
    const ShardIndex idx = readShardIndex(src.path);
    std::map<std::string, std::string> shardOf(idx.weight_map.begin(), idx.weight_map.end());
    std::map<std::string, std::string> foundIn;
    SafetensorsHeader all;
    for (const std::string &shard : idx.shards) {
        const SafetensorsHeader h = readFileTable(shard, isPyTorchFile(shard));
        all.file_size += h.file_size;
        const std::string shardName = fs::path(shard).filename().string();
        for (const auto &e : h.tensors) {
            const auto it = shardOf.find(e.name);
            if (it == shardOf.end())
                throw Error(shard + ": " + e.name, "the shard holds '" + e.name + "', which " +
                                                       fs::path(src.path).filename().string() + " does not map",
                            "the index and its shards do not belong together; download them again");
            if (const auto seen = foundIn.find(e.name); seen != foundIn.end())
                throw Error(shard + ": " + e.name, "'" + e.name + "' is in two shards (" +
                                                       fs::path(seen->second).filename().string() + " and " + shardName + ")",
                            "the shards do not belong together; download them again");
            if (it->second != shard)
                throw Error(shard + ": " + e.name, "the shard holds '" + e.name + "', which the index maps to " +
                                                       fs::path(it->second).filename().string(),
                            "the index and its shards do not belong together; download them again");
            foundIn[e.name] = shard;
            all.tensors.push_back(e);
        }
    }
    for (const auto &[name, shard] : idx.weight_map)
        if (!foundIn.count(name))
            throw Error(shard + ": " + name, "the index maps '" + name + "' to " + fs::path(shard).filename().string()
                                                 + ", but the shard does not hold it",
                        "the shard is incomplete or from another version; download it again");
    return all;
}

std::map<std::string, torch::Tensor> loadTorchWeights(const std::string &path)
{
    const TorchCheckpoint c = readTorchCheckpoint(path);
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(path, "cannot open the PyTorch weights file");
    std::map<std::string, torch::Tensor> storages;
    std::map<std::string, torch::Tensor> out;
    for (const auto &t : c.tensors) {
        auto st = storages.find(t.storage);
        if (st == storages.end()) {
            const TorchStorageEntry &s = c.storages.at(t.storage);
            auto data = torch::empty({int64_t(s.numel)}, torch::TensorOptions().dtype(scalarTypeOf(s.dtype)));
            readTorchStorage(in, c, t.storage, data.data_ptr(), path);
            st = storages.emplace(t.storage, data).first;
        }
        torch::Tensor v = st->second.as_strided(t.shape, t.stride, t.storage_offset).clone(at::MemoryFormat::Contiguous);
        if (v.scalar_type() == torch::kHalf || v.scalar_type() == torch::kBFloat16 || v.scalar_type() == torch::kDouble)
            v = v.to(torch::kFloat);
        out[t.name] = v;
    }
    return out;
}

std::map<std::string, torch::Tensor> loadTrainingCheckpointWeights(const std::string &path)
{
    torch::serialize::InputArchive archive;
    try {
        archive.load_from(path);
    } catch (const c10::Error &) {
        throw Error(path, "cannot read the training checkpoint (not a libtorch archive, or corrupt)",
                    "pass a ckpt-N written by a training run of this program, or its model_dir");
    }
    c10::IValue model;
    if (!archive.try_read("model", model) || !model.isGenericDict())
        throw Error(path, "the training checkpoint has no `model` entry (not written by bert-workbench)",
                    "pass a ckpt-N written by a training run of this program, or its model_dir");
    std::map<std::string, torch::Tensor> out;
    for (const auto &entry : model.toGenericDict()) {
        if (!entry.key().isString() || !entry.value().isTensor())
            throw Error(path, "the training checkpoint's `model` entry is not a name → tensor dictionary",
                        "pass a ckpt-N written by a training run of this program");
        out[entry.key().toStringRef()] = entry.value().toTensor().to(torch::kCPU, torch::kFloat).contiguous();
    }
    return out;
}

std::map<std::string, torch::Tensor> loadWeights(const CheckpointSource &src)
{
    if (src.format == CheckpointFormat::Training)
        return loadTrainingCheckpointWeights(src.path);
    if (src.format == CheckpointFormat::Safetensors)
        return loadSafetensors(src.path);
    if (src.format == CheckpointFormat::PyTorch)
        return loadTorchWeights(src.path);
    if (src.format != CheckpointFormat::Sharded)
        throw Error(src.path, "not a Hugging Face weights file");
    (void)readWeightsTable(src); // the shards agree with the index
    std::map<std::string, torch::Tensor> all;
    for (const std::string &shard : readShardIndex(src.path).shards) {
        auto part = isPyTorchFile(shard) ? loadTorchWeights(shard) : loadSafetensors(shard);
        all.merge(part);
    }
    return all;
}

namespace {

torch::Tensor tensorFromTf(const TfBundleEntry &e, const std::string &bytes)
{
    torch::ScalarType t = torch::kFloat;
    switch (e.dtype) {
    case tfdtype::kDouble: t = torch::kDouble; break;
    case tfdtype::kHalf: t = torch::kHalf; break;
    case tfdtype::kBFloat16: t = torch::kBFloat16; break;
    default: break;
    }
    auto tensor = torch::empty(e.shape, torch::TensorOptions().dtype(t));
    std::memcpy(tensor.data_ptr(), bytes.data(), bytes.size());
    return tensor.to(torch::kFloat);
}

void throwFirstError(const Diagnostics &diag)
{
    for (const auto &d : diag.items())
        if (d.severity == Severity::Error)
            throw Error(d.field, d.message, d.hint);
}

} // namespace

CheckpointMatch loadInitCheckpoint(nn::BertForSequenceClassification &model, const std::string &path,
                                   bool allowPartialInit)
{
    const CheckpointSource src = locateCheckpoint(path);
    Diagnostics diag;
    auto params = model->named_parameters();
    torch::NoGradGuard guard;
    CheckpointMatch m;
    if (src.format == CheckpointFormat::TensorFlow) {
        const TfBundle bundle = readTfBundle(src.path);
        m = matchTfCheckpoint(bundle, model->config(), model->numLabels(), diag, allowPartialInit);
        throwFirstError(diag);
        for (const auto &[shard, message] : checkTfBundleShards(bundle))
            throw Error(shard, message, "copy " + fs::path(shard).filename().string() + " beside "
                                            + fs::path(bundle.prefix).filename().string() + ".index");
        for (const auto &[fileName, modelName] : m.loaded) {
            const TfBundleEntry *e = bundle.find(fileName);
            const auto map = mapTfVariableName(fileName);
            torch::Tensor t = tensorFromTf(*e, readTfTensorBytes(bundle, *e));
            if (map->kernel) {
                const auto shape = modelShapeOf(*map, e->shape); // [out, in]
                t = t.reshape({shape[1], shape[0]}).t();
            } else if (map->flatten) {
                t = t.reshape({-1});
            }
            params[modelName].copy_(t);
        }
    } else {
        // A training checkpoint's archive is read once, its table taken from the tensors; the
        // other formats are matched on their table before any data is read.
        const bool training = src.format == CheckpointFormat::Training;
        std::map<std::string, torch::Tensor> tensors;
        SafetensorsHeader table;
        if (training) {
            tensors = loadWeights(src);
            for (const auto &[name, t] : tensors)
                table.tensors.push_back({name, "F32", t.sizes().vec(), 0, 0});
        } else {
            table = readWeightsTable(src);
        }
        m = matchCheckpoint(table, src.path, model->config(), model->numLabels(), diag, allowPartialInit);
        m.format = formatName(src);
        throwFirstError(diag);
        if (!training)
            tensors = loadWeights(src);
        for (const auto &[fileName, modelName] : m.loaded)
            params[modelName].copy_(tensors.at(fileName));
    }
    m.notes = src.notes;
    if (m.classifierMissing)
        model->resetClassifier();
    return m;
}

} // namespace wb
