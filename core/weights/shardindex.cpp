// SPDX-License-Identifier: Apache-2.0
#include "core/weights/shardindex.h"

#include "core/util/error.h"
#include "core/weights/weightsfile.h"

#include <filesystem>
#include <fstream>
#include <iterator>

namespace fs = std::filesystem;

namespace wb {

ShardIndex readShardIndex(const std::string &path)
{
    std::ifstream in = openWeightsFile(path, "the shard index");
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    ShardIndex idx = parseShardIndex(text, path);
    std::error_code ec;
    for (const auto &shard : idx.shards)
        if (!fs::is_regular_file(shard, ec))
            throw Error(shard, "the shard " + fs::path(shard).filename().string() + " named by "
                                   + fs::path(path).filename().string() + " is missing",
                        "download every shard the index lists into the same folder");
    return idx;
}

} // namespace wb
