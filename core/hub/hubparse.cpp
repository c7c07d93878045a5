// SPDX-License-Identifier: Apache-2.0
#include "core/hub/hubparse.h"

#include "core/config/shardindex.h"
#include "core/hub/huberror.h"
#include "core/hub/hubid.h"
#include "core/util/asciitext.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <set>

namespace wb {

namespace {

nlohmann::json parseObject(const std::string &json, const std::string &source, HubErrorKind kind,
                           const std::string &what)
{
    nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object())
        throw HubError(kind, source, what + " is not a JSON object",
                       "The server at HF_ENDPOINT may not be a Hugging Face Hub; check HF_ENDPOINT.");
    return j;
}

} // namespace

void parseHeaderLine(const std::string &line, HttpHeaders &headers, long &status)
{
    if (line.rfind("HTTP/", 0) == 0) {
        headers.clear();
        const auto sp = line.find(' ');
        status = 0;
        if (sp != std::string::npos) {
            long code = 0;
            size_t i = sp + 1;
            int digits = 0;
            while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])) && digits < 3) {
                code = code * 10 + (line[i] - '0');
                ++i;
                ++digits;
            }
            if (digits == 3)
                status = code;
        }
        return;
    }
    const auto colon = line.find(':');
    if (colon == std::string::npos || colon == 0)
        return;
    const std::string name = lowerAscii(trimmed(line.substr(0, colon)));
    if (name.empty())
        return;
    headers[name] = trimmed(line.substr(colon + 1));
}

std::string normalizeEtag(const std::string &etag)
{
    std::string e = trimmed(etag);
    if (e.rfind("W/", 0) == 0)
        e.erase(0, 2);
    if (e.size() >= 2 && e.front() == '"' && e.back() == '"')
        e = e.substr(1, e.size() - 2);
    return e;
}

RepoInfo parseRepoInfo(const std::string &json, const std::string &source)
{
    const nlohmann::json j = parseObject(json, source, HubErrorKind::Http, "the Hub's model information");
    RepoInfo info;
    if (auto it = j.find("sha"); it != j.end() && it->is_string() && isCommitHash(it->get<std::string>()))
        info.commit = it->get<std::string>();
    auto sib = j.find("siblings");
    if (sib == j.end() || !sib->is_array())
        throw HubError(HubErrorKind::Http, source, "the Hub's model information has no list \"siblings\"",
                       "The server at HF_ENDPOINT may not be a Hugging Face Hub; check HF_ENDPOINT.");
    for (const auto &s : *sib) {
        if (!s.is_object() || !s.contains("rfilename") || !s["rfilename"].is_string())
            throw HubError(HubErrorKind::Http, source,
                           "an entry of \"siblings\" in the Hub's model information has no string \"rfilename\"",
                           "The server at HF_ENDPOINT may not be a Hugging Face Hub; check HF_ENDPOINT.");
        info.siblings.push_back(s["rfilename"].get<std::string>());
    }
    return info;
}

std::string parseRefFile(const std::string &content)
{
    const std::string c = trimmed(content);
    return isCommitHash(c) ? c : std::string();
}

bool isSafeRepoPath(const std::string &path)
{
    if (path.empty() || path.front() == '/' || path.size() > 1024)
        return false;
    size_t start = 0;
    while (start <= path.size()) {
        const auto slash = path.find('/', start);
        const std::string part = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
        if (part.empty() || part == "." || part == "..")
            return false;
        for (unsigned char c : part)
            if (c < 0x20 || c == 0x7f || c == '\\')
                return false;
        if (slash == std::string::npos)
            break;
        start = slash + 1;
    }
    return true;
}

std::vector<std::string> parseShardFileNames(const std::string &json, const std::string &source)
{
    try {
        ShardIndex idx = parseShardIndex(json, source);
        std::sort(idx.shard_files.begin(), idx.shard_files.end());
        return idx.shard_files;
    } catch (const HubError &) {
        throw;
    } catch (const Error &e) {
        throw HubError(HubErrorKind::NoBertWeights, e.field(), e.what(),
                       "The checkpoint index is damaged; choose another revision or model.");
    }
}

WeightsChoice chooseWeights(const std::vector<std::string> &files)
{
    const auto has = [&](const char *name) { return std::find(files.begin(), files.end(), name) != files.end(); };
    if (has("model.safetensors"))
        return {"model.safetensors", WeightsFormat::Safetensors, false};
    if (has("model.safetensors.index.json"))
        return {"model.safetensors.index.json", WeightsFormat::Safetensors, true};
    if (has("pytorch_model.bin"))
        return {"pytorch_model.bin", WeightsFormat::PytorchBin, false};
    if (has("pytorch_model.bin.index.json"))
        return {"pytorch_model.bin.index.json", WeightsFormat::PytorchBin, true};
    return {};
}

std::vector<std::string> otherWeightsFiles(const std::vector<std::string> &files)
{
    std::vector<std::string> out;
    for (const auto &f : files)
        if (endsWith(f, ".h5") || endsWith(f, ".msgpack") || f.find(".ckpt") != std::string::npos
            || endsWith(f, ".onnx") || endsWith(f, ".pt") || endsWith(f, ".pth") || endsWith(f, ".gguf")
            || endsWith(f, ".safetensors") || endsWith(f, ".bin"))
            out.push_back(f);
    return out;
}

} // namespace wb
