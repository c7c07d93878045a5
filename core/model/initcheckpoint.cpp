// SPDX-License-Identifier: Apache-2.0
#include "core/model/initcheckpoint.h"

#include "core/config/jsonfile.h"
#include "core/model/parameternames.h"
#include "core/util/error.h"
#include "core/util/errortext.h"

#include <fstream>
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

std::string CheckpointMatch::summary() const
{
    std::string s = "loaded " + std::to_string(loaded.size()) + " tensors, " + std::to_string(missing.size())
                    + " missing, " + std::to_string(unexpected.size()) + " unexpected";
    if (!missing.empty()) {
        s += "; missing:";
        for (size_t k = 0; k < missing.size() && k < 8; ++k)
            s += " " + missing[k];
        if (missing.size() > 8)
            s += " …";
    }
    if (!unexpected.empty()) {
        s += "; unexpected:";
        for (size_t k = 0; k < unexpected.size() && k < 8; ++k)
            s += " " + unexpected[k];
        if (unexpected.size() > 8)
            s += " …";
    }
    if (classifierMissing)
        s += "; classifier head newly initialised";
    return s;
}

CheckpointMatch matchCheckpoint(const SafetensorsHeader &header, const std::string &path, const BertConfig &config,
                                int64_t numLabels, Diagnostics &diag)
{
    CheckpointMatch m;
    std::map<std::string, std::vector<int64_t>> expected;
    std::vector<std::string> order;
    for (const auto &p : expectedParameters(config, numLabels)) {
        expected[p.name] = p.shape;
        order.push_back(p.name);
    }
    std::set<std::string> found;
    for (const auto &e : header.tensors) {
        if (isIgnoredBuffer(e.name))
            continue;
        const std::string name = canonicalParameterName(e.name);
        auto it = expected.find(name);
        if (it == expected.end()) {
            m.unexpected.push_back(e.name);
            continue;
        }
        if (e.dtype != "F32" && e.dtype != "F16" && e.dtype != "BF16" && e.dtype != "F64") {
            diag.error(path + ": " + e.name, "dtype " + e.dtype + " is not a floating-point type",
                       "export the checkpoint with float weights");
            continue;
        }
        if (e.shape != it->second) {
            const bool head = name.rfind("classifier.", 0) == 0;
            const std::string msg = "shape " + shapeString(e.shape) + " in the checkpoint, but the model needs "
                                    + shapeString(it->second);
            const std::string hint = "change " + configKeyFor(name, it->second, e.shape)
                                     + " to match the checkpoint, or use a checkpoint made for this config";
            if (head)
                diag.warning(path + ": " + e.name, msg + "; a new classifier head is initialised", hint);
            else
                diag.error(path + ": " + e.name, msg, hint);
            continue;
        }
        found.insert(name);
        m.loaded.emplace_back(e.name, name);
    }
    for (const auto &n : order)
        if (!found.count(n)) {
            if (n.rfind("classifier.", 0) == 0)
                m.classifierMissing = true;
            else
                m.missing.push_back(n);
        }
    if (!m.missing.empty())
        diag.warning(path, std::to_string(m.missing.size()) + " model tensor(s) are not in the checkpoint and keep "
                               "their random initialisation (first: " + m.missing.front() + ")",
                     "check that the checkpoint is a BERT model with Hugging Face names");
    if (m.loaded.empty())
        diag.error(path, "no tensor of the checkpoint matches the model",
                   "use a safetensors file with Hugging Face BERT names (bert.embeddings.…, bert.encoder.layer.N.…)");
    return m;
}

void checkInitCheckpoint(const TrainingOptions &options, const BertConfig &config, const InputMetaData &meta,
                         Diagnostics &diag)
{
    if (options.init_checkpoint.empty())
        return;
    try {
        const SafetensorsHeader h = readSafetensorsHeader(options.init_checkpoint);
        matchCheckpoint(h, options.init_checkpoint, config, meta.num_labels, diag);
    } catch (...) { // never throws: any failure (wb, filesystem, c10) is a finding
        const ErrorText t = describeCurrentException("init_checkpoint");
        diag.error(t.field, t.message, t.hint);
    }
}

std::map<std::string, torch::Tensor> loadSafetensors(const std::string &path)
{
    const SafetensorsHeader h = readSafetensorsHeader(path);
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(path, "cannot open the safetensors file");
    std::map<std::string, torch::Tensor> out;
    for (const auto &e : h.tensors) {
        torch::ScalarType t;
        if (e.dtype == "F32") t = torch::kFloat;
        else if (e.dtype == "F16") t = torch::kHalf;
        else if (e.dtype == "BF16") t = torch::kBFloat16;
        else if (e.dtype == "F64") t = torch::kDouble;
        else if (e.dtype == "I64") t = torch::kLong;
        else if (e.dtype == "I32") t = torch::kInt;
        else if (e.dtype == "I16") t = torch::kShort;
        else if (e.dtype == "I8") t = torch::kChar;
        else if (e.dtype == "U8") t = torch::kByte;
        else if (e.dtype == "BOOL") t = torch::kBool;
        else continue; // U16/U32/U64 have no torch 1.13 type; never BERT weights
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

CheckpointMatch loadInitCheckpoint(nn::BertForSequenceClassification &model, const std::string &path)
{
    const SafetensorsHeader h = readSafetensorsHeader(path);
    Diagnostics diag;
    CheckpointMatch m = matchCheckpoint(h, path, model->config(), model->numLabels(), diag);
    for (const auto &d : diag.items())
        if (d.severity == Severity::Error)
            throw Error(d.field, d.message, d.hint);
    auto tensors = loadSafetensors(path);
    auto params = model->named_parameters();
    torch::NoGradGuard guard;
    for (const auto &[fileName, modelName] : m.loaded)
        params[modelName].copy_(tensors.at(fileName));
    if (m.classifierMissing)
        model->resetClassifier();
    return m;
}

} // namespace wb
