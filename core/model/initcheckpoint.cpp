// SPDX-License-Identifier: Apache-2.0
// Reading weights (safetensors, PyTorch, training checkpoints, TensorFlow) and loading them into the model.
#include "core/model/initcheckpoint.h"

#include "core/config/jsonfile.h"
#include "core/weights/parameternames.h"
#include "core/weights/shardindex.h"
#include "core/weights/weightsfilehead.h"
#include "core/util/error.h"

#include <cstring>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace wb {

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

/// `path` opened for reading its tensor data; `what` names the kind of file in the error.
std::ifstream openWeightsFile(const std::string &path, const char *what)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(path, std::string("cannot open the ") + what);
    return in;
}

/// `t` as float32 when it is F16, BF16 or F64; other dtypes as they are.
torch::Tensor widenToFloat(const torch::Tensor &t)
{
    const torch::ScalarType s = t.scalar_type();
    return s == torch::kHalf || s == torch::kBFloat16 || s == torch::kDouble ? t.to(torch::kFloat) : t;
}

} // namespace

std::map<std::string, torch::Tensor> loadSafetensors(const std::string &path)
{
    const SafetensorsHeader h = readSafetensorsHeader(path);
    std::ifstream in = openWeightsFile(path, "safetensors file");
    std::map<std::string, torch::Tensor> out;
    for (const auto &e : h.tensors) {
        if (torchDtypeSize(e.dtype) == 0)
            continue; // U16/U32/U64 have no torch 1.13 type; never BERT weights
        auto tensor = torch::empty(e.shape, torch::TensorOptions().dtype(scalarTypeOf(e.dtype)));
        in.seekg(std::streamoff(h.data_start + e.begin));
        in.read(static_cast<char *>(tensor.data_ptr()), std::streamsize(e.end - e.begin));
        if (!in)
            throw Error(path + ": tensor '" + e.name + "'", "could not read the tensor data", "the file is truncated");
        out[e.name] = widenToFloat(tensor);
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
    return weightsFileHasExtension(path, ".bin") || weightsFileHasExtension(path, ".pt")
           || weightsFileHasExtension(path, ".pth") || startsAsPyTorchFile(weightsFileHead(path, 8));
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
    return weightsFileHasExtension(src.path, "safetensors.index.json") ? "sharded safetensors" : "sharded PyTorch";
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
    std::ifstream in = openWeightsFile(path, "PyTorch weights file");
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
        out[t.name] =
            widenToFloat(st->second.as_strided(t.shape, t.stride, t.storage_offset).clone(at::MemoryFormat::Contiguous));
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

void throwFirstError(const Diagnostics &diag)
{
    for (const auto &d : diag.items())
        if (d.severity == Severity::Error)
            throw Error(d.field, d.message, d.hint);
}

torch::Tensor readTfTensor(const TfBundle &bundle, const TfBundleEntry &e)
{
    const std::string bytes = readTfTensorBytes(bundle, e);
    torch::ScalarType t = torch::kFloat;
    switch (e.dtype) {
    case tfdtype::kDouble: t = torch::kDouble; break;
    case tfdtype::kHalf: t = torch::kHalf; break;
    case tfdtype::kBFloat16: t = torch::kBFloat16; break;
    case tfdtype::kFloat: break;
    default:
        throw Error(bundle.prefix + ": " + e.name, "dtype " + tfDtypeName(e.dtype) + " is not a floating-point type",
                    "export the checkpoint with float weights");
    }
    auto tensor = torch::empty(e.shape, torch::TensorOptions().dtype(t));
    std::memcpy(tensor.data_ptr(), bytes.data(), bytes.size());
    return tensor.to(torch::kFloat);
}

CheckpointMatch matchTfCheckpointToLoad(const TfBundle &bundle, const BertConfig &config, int64_t numLabels,
                                        bool allowPartialInit)
{
    Diagnostics diag;
    CheckpointMatch m = matchTfCheckpoint(bundle, config, numLabels, diag, allowPartialInit);
    throwFirstError(diag);
    for (const auto &[shard, message] : checkTfBundleShards(bundle))
        throw Error(shard, message, "copy " + fs::path(shard).filename().string() + " beside "
                                        + fs::path(bundle.prefix).filename().string() + ".index");
    return m;
}

torch::Tensor readTfModelTensor(const TfBundle &bundle, const std::string &fileName)
{
    const TfBundleEntry *e = bundle.find(fileName);
    const auto map = mapTfVariableName(fileName);
    torch::Tensor t = readTfTensor(bundle, *e);
    if (map->kernel) {
        const auto shape = modelShapeOf(*map, e->shape); // [out, in]
        t = t.reshape({shape[1], shape[0]}).t();
    } else if (map->flatten) {
        t = t.reshape({-1});
    }
    return t;
}

CheckpointMatch loadInitCheckpoint(nn::BertForSequenceClassification &model, const std::string &path,
                                   bool allowPartialInit)
{
    const CheckpointSource src = locateCheckpoint(path);
    auto params = model->named_parameters();
    torch::NoGradGuard guard;
    CheckpointMatch m;
    if (src.format == CheckpointFormat::TensorFlow) {
        const TfBundle bundle = readTfBundle(src.path);
        m = matchTfCheckpointToLoad(bundle, model->config(), model->numLabels(), allowPartialInit);
        for (const auto &[fileName, modelName] : m.loaded)
            params[modelName].copy_(readTfModelTensor(bundle, fileName));
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
        Diagnostics diag;
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
