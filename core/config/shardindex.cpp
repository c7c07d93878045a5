// SPDX-License-Identifier: Apache-2.0
#include "core/config/shardindex.h"

#include "core/util/error.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

namespace fs = std::filesystem;

namespace wb {

ShardIndex parseShardIndex(const std::string &text, const std::string &path)
{
    // nlohmann keeps the last of repeated keys: a callback sees every key of weight_map first.
    std::string topKey, twice;
    std::set<std::string> seen;
    const nlohmann::json::parser_callback_t cb = [&](int depth, nlohmann::json::parse_event_t event,
                                                     nlohmann::json &parsed) {
        if (event == nlohmann::json::parse_event_t::key && parsed.is_string()) {
            if (depth == 1)
                topKey = parsed.get<std::string>();
            else if (depth == 2 && topKey == "weight_map" && !seen.insert(parsed.get<std::string>()).second && twice.empty())
                twice = parsed.get<std::string>();
        }
        return true;
    };
    const nlohmann::json j = nlohmann::json::parse(text, cb, false);
    if (j.is_discarded() || !j.is_object())
        throw Error(path, "the shard index is not a JSON object",
                    "the file is corrupt; download it again with the shards it names");
    if (!twice.empty())
        throw Error(path + ": weight_map." + twice, "the tensor '" + twice + "' is mapped twice in weight_map",
                    "the index is corrupt; download it again");
    const auto wm = j.find("weight_map");
    if (wm == j.end() || !wm->is_object() || wm->empty())
        throw Error(path, "the shard index has no weight_map (an object of tensor name → shard file)",
                    "pass the model.safetensors.index.json or pytorch_model.bin.index.json that transformers wrote");
    ShardIndex idx;
    idx.path = path;
    const fs::path dir = fs::path(path).parent_path();
    std::set<std::string> shards;
    for (const auto &[name, file] : wm->items()) {
        const std::string field = path + ": weight_map." + name;
        if (!file.is_string())
            throw Error(field, "the shard of '" + name + "' is not a file name", "the index is corrupt; download it again");
        const std::string f = file.get<std::string>();
        if (f.empty() || f == "." || f == ".." || f.find('/') != std::string::npos || f.find('\\') != std::string::npos)
            throw Error(field, "the shard '" + f + "' is not a plain file name beside the index",
                        "the index may name only files in its own folder");
        const std::string shard = (dir / f).string();
        idx.weight_map.emplace_back(name, shard);
        if (shards.insert(shard).second) {
            idx.shards.push_back(shard);
            idx.shard_files.push_back(f);
        }
    }
    return idx;
}

} // namespace wb
