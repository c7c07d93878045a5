// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace wb {

/// The index of a sharded Hugging Face checkpoint (`model.safetensors.index.json`,
/// `pytorch_model.bin.index.json`, written by transformers' save_pretrained when the weights
/// exceed max_shard_size): `{"metadata": {…}, "weight_map": {tensor name: shard file name}}`.
struct ShardIndex
{
    std::string path;                                        ///< the index file
    std::vector<std::pair<std::string, std::string>> weight_map; ///< (tensor name, shard path beside the index), sorted by name
    std::vector<std::string> shards;                         ///< the distinct shard paths, in first-mention order
    std::vector<std::string> shard_files;                    ///< the same shards' file names, in the same order
};

/// Parses the text of an index file named `path`: a JSON object whose "weight_map" is a
/// non-empty object of tensor name → shard file name; each file name is a plain name in the
/// index's folder (no '/', '\\', '.' or '..'). A tensor named twice is an error. Shard paths
/// are the folder of `path` joined with the file name. Throws wb::Error (field `path`, or
/// `path: weight_map.<name>`). Does not touch the shards. Torch-free; thread-safe. The one
/// reader of this format: the loader (core/weights/shardindex.h readShardIndex) and the Hub
/// client (which shards to download) both call it.
ShardIndex parseShardIndex(const std::string &text, const std::string &path);

} // namespace wb
