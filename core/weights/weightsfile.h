// SPDX-License-Identifier: Apache-2.0
#pragma once
// Helpers of the weights readers: opening a file (safetensors, torch.save, a shard index) with
// the error that names it, and finding a tensor entry by name.

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace wb {

/// Opens the weights file `path` for binary reading, positioned at byte 0. Throws
/// wb::Error(path, "cannot open " + what, "check the path of --init_checkpoint") when it
/// cannot be opened (`what` names the kind: "the safetensors file"). With `size`, also stores
/// the file's size in bytes there, and throws wb::Error(path, "cannot determine the file size
/// (is it a directory?)") when it has none. Thread-safe.
std::ifstream openWeightsFile(const std::string &path, const std::string &what, uint64_t *size = nullptr);

/// Returns the first entry of `entries` (a weights file's tensors, each with a `name`) named
/// `name`, or null when there is none.
template <typename Entry>
const Entry *entryNamed(const std::vector<Entry> &entries, const std::string &name)
{
    for (const Entry &e : entries)
        if (e.name == name)
            return &e;
    return nullptr;
}

} // namespace wb
