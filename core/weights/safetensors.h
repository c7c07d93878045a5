// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace wb {

/// One tensor entry of a safetensors header (the safetensors format: huggingface/safetensors README, "Format").
struct SafetensorsEntry
{
    std::string name;
    std::string dtype;            ///< "F32", "F16", "BF16", "F64", "I64", …
    std::vector<int64_t> shape;   ///< row-major; [] is a scalar
    uint64_t begin = 0;           ///< byte offsets relative to the data buffer, half-open
    uint64_t end = 0;
};

/// The parsed and bounds-checked header of a safetensors file.
struct SafetensorsHeader
{
    std::vector<SafetensorsEntry> tensors;        ///< in header order
    std::map<std::string, std::string> metadata;  ///< the optional "__metadata__" strings
    uint64_t data_start = 0;                      ///< 8 + header length
    uint64_t file_size = 0;

    /// Returns the entry named `name`, or nullptr.
    const SafetensorsEntry *find(const std::string &name) const;
};

/// Returns the byte size of one element of `dtype`, or 0 for an unknown dtype.
size_t safetensorsDtypeSize(const std::string &dtype);

/// Reads and checks the header of the safetensors file `path` without reading the data:
/// the 8-byte little-endian length (≤ 100,000,000 and inside the file), a JSON object,
/// each entry's dtype/shape/data_offsets, end − begin == numel × dtype size (overflow
/// checked), no gaps or overlaps, and data ending exactly at the end of the file.
/// Throws wb::Error with `path` as field and the offending tensor named. Thread-safe.
SafetensorsHeader readSafetensorsHeader(const std::string &path);

/// The parsing half of readSafetensorsHeader(), without file access (the fuzz target
/// fuzz/fuzz_safetensors.cpp feeds it memory): reads the length and the JSON header from
/// `in`, positioned at byte 0 of a file of `fileSize` bytes, and checks them as above;
/// `path` names the file in errors. Does not read the data buffer. Thread-safe.
SafetensorsHeader parseSafetensorsHeader(std::istream &in, uint64_t fileSize, const std::string &path);

/// Builds the header bytes (8-byte length + JSON padded with spaces to a multiple of 8)
/// for tensors laid out back to back in the given order; fills begin/end of `entries`.
/// `metadata` should contain {"format": "pt"} for Hugging Face.
std::string buildSafetensorsHeader(std::vector<SafetensorsEntry> &entries,
                                   const std::map<std::string, std::string> &metadata);

} // namespace wb
