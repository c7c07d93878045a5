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

CheckpointMatch matchCandidates(const std::vector<Candidate> &cands, const std::string &path, const BertConfig &config,
                                int64_t numLabels, Diagnostics &diag, const std::string &namesHint, char sep,
                                bool allowPartialInit)
{
    CheckpointMatch m;
    std::map<std::string, std::vector<int64_t>> expected;
    std::vector<std::string> order;
    for (const auto &p : expectedParameters(config, numLabels)) {
        expected[p.name] = p.shape;
        order.push_back(p.name);
    }
    std::map<std::string, std::string> source; // model name -> the file tensor it comes from
    std::set<std::string> found, failed;        // failed: an error of its own (dtype, shape, two sources)
    std::map<std::string, size_t> scopes;       // recognised scope -> encoder tensors loaded from it
    bool poolerInFile = false;
    for (const auto &c : cands) {
        auto it = expected.find(c.model_name);
        if (c.model_name.empty() || it == expected.end()) {
            m.unexpected.push_back(c.file_name);
            continue;
        }
        poolerInFile |= isPooler(c.model_name);
        if (const auto [first, fresh] = source.emplace(c.model_name, c.file_name); !fresh) {
            // Never "the last one wins": the file is ambiguous.
            diag.error(path + ": " + c.file_name,
                       "'" + first->second + "' and '" + c.file_name + "' both map to the model tensor " + c.model_name
                           + "; each model tensor must come from exactly one tensor of the checkpoint",
                       "remove one of the two (e.g. a second copy of the model under another scope), or save the "
                       "checkpoint again from a single model");
            failed.insert(c.model_name);
            continue;
        }
        if (!c.float_dtype) {
            diag.error(path + ": " + c.file_name, "dtype " + c.dtype + " is not a floating-point type",
                       "export the checkpoint with float weights");
            failed.insert(c.model_name);
            continue;
        }
        if (c.model_shape != it->second) {
            const bool head = isHead(c.model_name);
            std::string msg = "shape " + shapeString(c.file_shape) + " in the checkpoint";
            if (c.file_shape != c.model_shape)
                msg += " (" + shapeString(c.model_shape) + " as [out, in])";
            msg += ", but the model needs " + shapeString(it->second) + " for " + c.model_name;
            const std::string hint = "change " + configKeyFor(c.model_name, it->second, c.model_shape)
                                     + " to match the checkpoint, or use a checkpoint made for this config";
            if (head) {
                diag.warning(path + ": " + c.file_name, msg + "; a new classifier head is initialised", hint);
            } else {
                diag.error(path + ": " + c.file_name, msg, hint);
                failed.insert(c.model_name);
            }
            continue;
        }
        found.insert(c.model_name);
        m.loaded.emplace_back(c.file_name, c.model_name);
        if (!isHead(c.model_name))
            ++scopes[c.scope];
    }
    // A tensor with two sources loads from neither.
    m.loaded.erase(std::remove_if(m.loaded.begin(), m.loaded.end(),
                                  [&failed](const auto &l) { return failed.count(l.second) > 0; }),
                   m.loaded.end());
    size_t encoderTensors = 0, poolerTensors = 0;
    std::vector<std::string> randomEncoder; // encoder tensors that would keep their random initialisation
    bool poolerMissing = false;
    for (const auto &n : order) {
        encoderTensors += isHead(n) ? 0 : 1;
        poolerTensors += isPooler(n) ? 1 : 0;
        if (found.count(n) || failed.count(n))
            continue;
        if (isHead(n)) {
            m.classifierMissing = true;
            continue;
        }
        m.missing.push_back(n);
        if (isPooler(n) && !poolerInFile)
            poolerMissing = true; // a pre-training checkpoint without the pooler: a warning
        else
            randomEncoder.push_back(n);
    }
    size_t most = 0;
    for (const auto &[scope, count] : scopes)
        if (count > most) {
            most = count;
            m.scope = scope;
        }
    if (poolerMissing)
        encoderTensors -= poolerTensors; // counted on their own below
    if (m.loaded.empty() && failed.empty()) {
        diag.error(path, "no tensor of the checkpoint matches the model; " + describeScopes(cands, sep), namesHint);
    } else if (!randomEncoder.empty()) {
        const std::string what = std::to_string(randomEncoder.size()) + " of the model's "
                                 + std::to_string(encoderTensors) + " encoder tensors are not in the checkpoint (first: "
                                 + randomEncoder.front() + ") and ";
        if (allowPartialInit)
            diag.warning(path, what + "keep their random initialisation (--allow_partial_init=true); "
                                   + describeScopes(cands, sep),
                         namesHint);
        else
            diag.error(path, what + "would keep their random initialisation; " + describeScopes(cands, sep),
                       namesHint + "; to train with them randomly initialised on purpose, pass "
                                   "--allow_partial_init=true");
    }
    if (poolerMissing)
        diag.warning(path, "the checkpoint has no pooler (bert.pooler.dense.*): it keeps its random initialisation",
                     "expected for a pre-training checkpoint saved without the pooler; fine-tuning trains it");
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

} // namespace

CheckpointSource locateCheckpoint(const std::string &input)
{
    std::error_code ec;
    if (auto prefix = resolveTfCheckpointPrefix(input))
        return {CheckpointFormat::TensorFlow, *prefix, {}};
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
                return {format, (dir / file).string(), config};
        std::vector<std::string> indexes;
        for (const auto &f : fs::directory_iterator(dir, ec))
            if (f.path().extension() == ".index")
                indexes.push_back(f.path().string());
        if (indexes.size() == 1)
            return {CheckpointFormat::TensorFlow, indexes.front().substr(0, indexes.front().size() - 6), config};
        if (indexes.size() > 1)
            throw Error(input, "the folder holds " + std::to_string(indexes.size())
                                   + " TensorFlow checkpoints and no `checkpoint` file saying which to use",
                        "pass the prefix of one, e.g. --init_checkpoint=" + indexes.front().substr(0, indexes.front().size() - 6));
        for (const char *pickle : {"model.pt", "model.pth"})
            if (fs::is_regular_file(dir / pickle, ec))
                return {CheckpointFormat::PyTorch, (dir / pickle).string(), config};
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
        throw Error(input, "the folder holds no checkpoint this program reads (it holds " + folderListing(dir) + ")",
                    "expected model.safetensors or pytorch_model.bin (a Hugging Face folder, sharded or not), a "
                    "TensorFlow checkpoint (bert_model.ckpt.index + .data-00000-of-00001, with or without a "
                    "`checkpoint` file), or pass the file itself");
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
        throw Error(input, "the init checkpoint does not exist",
                    "pass a safetensors file, a Hugging Face model folder, or a TensorFlow checkpoint prefix "
                    "(e.g. uncased_L-2_H-128_A-2/bert_model.ckpt)");
    }
    const std::string head = firstBytes(input, 8);
    if (hasExtension(input, ".index.json"))
        return {CheckpointFormat::Sharded, input, {}};
    if (hasExtension(input, ".bin") || hasExtension(input, ".pt") || hasExtension(input, ".pth") || startsAsPyTorch(head))
        return {CheckpointFormat::PyTorch, input, {}};
    if (head.rfind("\x89HDF", 0) == 0)
        throw Error(input, "this is a Keras HDF5 weights file; it is not read",
                    "use the model's model.safetensors or pytorch_model.bin, or the original TensorFlow checkpoint "
                    "(bert_model.ckpt)");
    return {CheckpointFormat::Safetensors, input, {}};
}

void checkInitCheckpoint(const TrainingOptions &options, const BertConfig &config, const InputMetaData &meta,
                         Diagnostics &diag)
{
    if (options.init_checkpoint.empty())
        return;
    try {
        const CheckpointSource src = locateCheckpoint(options.init_checkpoint);
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
    case CheckpointFormat::Sharded: break;
    }
    return hasExtension(src.path, "safetensors.index.json") ? "sharded safetensors" : "sharded PyTorch";
}

} // namespace

SafetensorsHeader readWeightsTable(const CheckpointSource &src)
{
    if (src.format == CheckpointFormat::TensorFlow)
        throw Error(src.path, "a TensorFlow checkpoint has no safetensors-style table (read it with readTfBundle)");
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

std::map<std::string, torch::Tensor> loadWeights(const CheckpointSource &src)
{
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
        m = matchCheckpoint(readWeightsTable(src), src.path, model->config(), model->numLabels(), diag, allowPartialInit);
        m.format = formatName(src);
        throwFirstError(diag);
        const auto tensors = loadWeights(src);
        for (const auto &[fileName, modelName] : m.loaded)
            params[modelName].copy_(tensors.at(fileName));
    }
    if (m.classifierMissing)
        model->resetClassifier();
    return m;
}

} // namespace wb
