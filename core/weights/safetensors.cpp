// SPDX-License-Identifier: Apache-2.0
#include "core/weights/safetensors.h"

#include "core/util/error.h"
#include "core/weights/weightsfile.h"

#include <algorithm>
#include <fstream>
#include <istream>
#include <nlohmann/json.hpp>

namespace wb {

namespace {
// The reference reader's limit on the JSON header.
constexpr uint64_t kMaxHeaderSize = 100000000;
} // namespace

const SafetensorsEntry *SafetensorsHeader::find(const std::string &name) const
{
    return entryNamed(tensors, name);
}

size_t safetensorsDtypeSize(const std::string &d)
{
    if (d == "F64" || d == "I64" || d == "U64")
        return 8;
    if (d == "F32" || d == "I32" || d == "U32")
        return 4;
    if (d == "F16" || d == "BF16" || d == "I16" || d == "U16")
        return 2;
    if (d == "BOOL" || d == "U8" || d == "I8")
        return 1;
    return 0;
}

SafetensorsHeader readSafetensorsHeader(const std::string &path)
{
    uint64_t size = 0;
    std::ifstream in = openWeightsFile(path, "the safetensors file", &size);
    return parseSafetensorsHeader(in, size, path);
}

namespace {

/// Reads the 8-byte length and the JSON header text; sets `h.data_start`.
std::string readHeaderText(std::istream &in, SafetensorsHeader &h, const std::string &path)
{
    if (h.file_size < 8)
        throw Error(path, "file is " + std::to_string(h.file_size) + " bytes, too short for a safetensors header",
                    "the file is truncated or not a safetensors file");
    unsigned char lenBytes[8];
    in.read(reinterpret_cast<char *>(lenBytes), 8);
    if (!in)
        throw Error(path, "could not read the header length");
    uint64_t n = 0;
    for (int k = 7; k >= 0; --k)
        n = (n << 8) | lenBytes[k];
    if (n > kMaxHeaderSize)
        throw Error(path, "header length " + std::to_string(n) + " exceeds the limit of 100000000 bytes",
                    "the file is corrupt or not a safetensors file");
    if (n + 8 > h.file_size)
        throw Error(path, "header length " + std::to_string(n) + " runs past the end of the " +
                              std::to_string(h.file_size) + "-byte file",
                    "the file is truncated; download or export it again");
    std::string text(n, '\0');
    in.read(text.data(), std::streamsize(n));
    if (!in)
        throw Error(path, "could not read the header");
    h.data_start = 8 + n;
    return text;
}

/// One tensor's header entry `v`; its bytes must lie in the `dataSize`-byte buffer and match
/// its shape and dtype.
SafetensorsEntry parseEntry(const std::string &name, const nlohmann::json &v, const std::string &where, uint64_t dataSize)
{
    if (!v.is_object() || !v.contains("dtype") || !v["dtype"].is_string() || !v.contains("shape")
        || !v["shape"].is_array() || !v.contains("data_offsets") || !v["data_offsets"].is_array()
        || v["data_offsets"].size() != 2)
        throw Error(where, "entry needs dtype (string), shape (array) and data_offsets ([begin, end])");
    SafetensorsEntry e;
    e.name = name;
    e.dtype = v["dtype"].get<std::string>();
    const size_t es = safetensorsDtypeSize(e.dtype);
    if (es == 0)
        throw Error(where, "unsupported dtype '" + e.dtype + "'", "convert the checkpoint to F32");
    uint64_t numel = 1;
    for (const auto &d : v["shape"]) {
        if (!d.is_number_unsigned())
            throw Error(where, "shape entries must be non-negative integers");
        const uint64_t dim = d.get<uint64_t>();
        if (dim != 0 && numel > (uint64_t(1) << 62) / dim)
            throw Error(where, "shape is too large");
        numel *= dim;
        e.shape.push_back(int64_t(dim));
    }
    for (const auto &o : v["data_offsets"])
        if (!o.is_number_unsigned())
            throw Error(where, "data_offsets must be non-negative integers");
    e.begin = v["data_offsets"][0].get<uint64_t>();
    e.end = v["data_offsets"][1].get<uint64_t>();
    if (e.begin > e.end || e.end > dataSize)
        throw Error(where, "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end)
                               + "] lie outside the " + std::to_string(dataSize) + "-byte data buffer",
                    "the file is truncated or corrupt");
    if (numel > (uint64_t(1) << 62) / es || e.end - e.begin != numel * es)
        throw Error(where, "data_offsets cover " + std::to_string(e.end - e.begin) + " bytes but shape and dtype need "
                               + std::to_string(numel * es));
    return e;
}

/// The tensors' bytes tile the data buffer: no gap, no overlap, no trailing bytes.
void checkContiguous(const SafetensorsHeader &h, const std::string &path, uint64_t dataSize)
{
    std::vector<const SafetensorsEntry *> sorted;
    for (const auto &e : h.tensors)
        sorted.push_back(&e);
    std::sort(sorted.begin(), sorted.end(), [](auto a, auto b) { return a->begin < b->begin || (a->begin == b->begin && a->end < b->end); });
    uint64_t pos = 0;
    for (const auto *e : sorted) {
        if (e->begin != pos)
            throw Error(path + ": tensor '" + e->name + "'", "data starts at " + std::to_string(e->begin) +
                            " but the previous tensor ends at " + std::to_string(pos) + " (gap or overlap)");
        pos = e->end;
    }
    if (pos != dataSize)
        throw Error(path, "the data buffer has " + std::to_string(dataSize) + " bytes but the tensors cover " +
                              std::to_string(pos) + " (trailing bytes)",
                    "the file was modified after writing; export or download it again");
}

} // namespace

SafetensorsHeader parseSafetensorsHeader(std::istream &in, uint64_t fileSize, const std::string &path)
{
    SafetensorsHeader h;
    h.file_size = fileSize;
    const std::string text = readHeaderText(in, h, path);
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw Error(path, "the header is not a JSON object", "the file is corrupt or not a safetensors file");
    const uint64_t dataSize = h.file_size - h.data_start;
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string &name = it.key();
        const auto &v = it.value();
        if (name == "__metadata__") {
            if (!v.is_object())
                throw Error(path, "__metadata__ is not an object of strings");
            for (auto m = v.begin(); m != v.end(); ++m)
                if (m.value().is_string())
                    h.metadata[m.key()] = m.value().get<std::string>();
            continue;
        }
        h.tensors.push_back(parseEntry(name, v, path + ": tensor '" + name + "'", dataSize));
    }
    checkContiguous(h, path, dataSize);
    return h;
}

std::string buildSafetensorsHeader(std::vector<SafetensorsEntry> &entries,
                                   const std::map<std::string, std::string> &metadata)
{
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    if (!metadata.empty())
        j["__metadata__"] = metadata;
    uint64_t pos = 0;
    for (auto &e : entries) {
        uint64_t numel = 1;
        for (auto d : e.shape)
            numel *= uint64_t(d);
        e.begin = pos;
        e.end = pos + numel * safetensorsDtypeSize(e.dtype);
        pos = e.end;
        j[e.name] = {{"dtype", e.dtype}, {"shape", e.shape}, {"data_offsets", {e.begin, e.end}}};
    }
    std::string text = j.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string out(8, '\0');
    uint64_t n = text.size();
    for (int k = 0; k < 8; ++k)
        out[k] = char((n >> (8 * k)) & 0xff);
    return out + text;
}

} // namespace wb
