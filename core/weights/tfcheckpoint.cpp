// SPDX-License-Identifier: Apache-2.0
#include "core/weights/tfcheckpoint.h"

#include "core/config/optionwords.h"
#include "core/util/crc32c.h"
#include "core/util/asciitext.h"
#include "core/util/error.h"
#include "weights/tensorbundle.pb.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <set>
#include <string_view>

namespace fs = std::filesystem;

namespace wb {

namespace {

// leveldb/table/format.h: kTableMagicNumber, Footer::kEncodedLength, kBlockTrailerSize.
constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;
constexpr size_t kFooterSize = 48;
constexpr size_t kBlockTrailerSize = 5;
// An index of a checkpoint is a few hundred KB even for huge models; refuse absurd sizes.
constexpr uint64_t kMaxIndexBytes = uint64_t(1) << 30;

std::string hex32(uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

uint32_t fixed32(const char *p)
{
    const auto *u = reinterpret_cast<const unsigned char *>(p);
    return uint32_t(u[0]) | uint32_t(u[1]) << 8 | uint32_t(u[2]) << 16 | uint32_t(u[3]) << 24;
}

uint64_t fixed64(const char *p)
{
    return uint64_t(fixed32(p)) | uint64_t(fixed32(p + 4)) << 32;
}

/// Decodes a varint of at most `maxBytes` bytes from [p, end); returns false when truncated or too long.
bool varint(const char *&p, const char *end, uint64_t &out, int maxBytes)
{
    out = 0;
    for (int shift = 0, n = 0; n < maxBytes; ++n, shift += 7) {
        if (p >= end)
            return false;
        const auto b = static_cast<unsigned char>(*p++);
        out |= uint64_t(b & 0x7f) << shift;
        if (!(b & 0x80))
            return true;
    }
    return false;
}

struct BlockHandle
{
    uint64_t offset = 0;
    uint64_t size = 0;
};

bool decodeHandle(const char *&p, const char *end, BlockHandle &h)
{
    return varint(p, end, h.offset, 10) && varint(p, end, h.size, 10);
}

class TableReader
{
public:
    TableReader(const std::string &bytes, const std::string &path) : m_bytes(bytes), m_path(path) {}

    std::string_view block(const BlockHandle &h, const char *what) const
    {
        const std::string field = m_path + ": " + what + " block at byte " + std::to_string(h.offset);
        if (h.offset > m_bytes.size() || h.size > m_bytes.size() - h.offset
            || m_bytes.size() - h.offset - h.size < kBlockTrailerSize)
            throw Error(field, "the block (" + std::to_string(h.size) + " bytes + 5-byte trailer) runs past the end of the "
                                   + std::to_string(m_bytes.size()) + "-byte file",
                        "the .index file is truncated; copy the checkpoint again");
        const char *data = m_bytes.data() + h.offset;
        const auto type = static_cast<unsigned char>(data[h.size]);
        const uint32_t stored = unmaskCrc(fixed32(data + h.size + 1));
        const uint32_t actual = crc32c(data, size_t(h.size) + 1);
        if (stored != actual)
            throw Error(field, "block checksum mismatch: the CRC32C of the block is " + hex32(actual) + ", its trailer says "
                                   + hex32(stored),
                        "the .index file is corrupted; copy the checkpoint again");
        if (type != 0)
            throw Error(field, "block compression type " + std::to_string(type) + (type == 1 ? " (Snappy)" : "")
                                   + " is not supported: TensorFlow writes checkpoint indexes uncompressed (type 0)",
                        "this file is not a TensorFlow checkpoint index; pass the checkpoint prefix or its .index file");
        return std::string_view(data, size_t(h.size));
    }

    /// Appends the entries of a block (leveldb/table/block.cc layout) to `out`.
    void entries(std::string_view b, const BlockHandle &h, const char *what,
                 std::vector<std::pair<std::string, std::string>> &out) const
    {
        const std::string field = m_path + ": " + what + " block at byte " + std::to_string(h.offset);
        auto bad = [&](const std::string &msg) {
            return Error(field, msg, "the .index file is damaged or not a TensorFlow checkpoint index");
        };
        if (b.size() < 4)
            throw bad("the block is " + std::to_string(b.size()) + " bytes, too short for its restart count");
        const uint32_t numRestarts = fixed32(b.data() + b.size() - 4);
        if (numRestarts == 0 || numRestarts > (b.size() - 4) / 4)
            throw bad("the restart count " + std::to_string(numRestarts) + " does not fit the " + std::to_string(b.size())
                      + "-byte block");
        const size_t restartsAt = b.size() - 4 - 4 * size_t(numRestarts);
        std::vector<uint32_t> restarts(numRestarts);
        for (uint32_t k = 0; k < numRestarts; ++k) {
            restarts[k] = fixed32(b.data() + restartsAt + 4 * k);
            if (restarts[k] >= restartsAt && !(restartsAt == 0 && restarts[k] == 0))
                throw bad("restart point " + std::to_string(k) + " (offset " + std::to_string(restarts[k])
                          + ") lies outside the " + std::to_string(restartsAt) + " bytes of entries");
            if (k > 0 && restarts[k] <= restarts[k - 1])
                throw bad("restart points are not ascending (" + std::to_string(restarts[k - 1]) + ", "
                          + std::to_string(restarts[k]) + ")");
        }
        const char *base = b.data();
        const char *p = base;
        const char *end = base + restartsAt;
        std::string key;
        size_t nextRestart = 0;
        while (p < end) {
            const size_t at = size_t(p - base);
            uint64_t shared = 0, nonShared = 0, valueLen = 0;
            if (!varint(p, end, shared, 5) || !varint(p, end, nonShared, 5) || !varint(p, end, valueLen, 5))
                throw bad("the entry at offset " + std::to_string(at) + " has a truncated header");
            if (shared > key.size() || nonShared > size_t(end - p) || valueLen > size_t(end - p) - nonShared)
                throw bad("the entry at offset " + std::to_string(at) + " has lengths outside the block");
            const bool isRestart = nextRestart < restarts.size() && restarts[nextRestart] == at;
            if (nextRestart < restarts.size() && restarts[nextRestart] < at)
                throw bad("restart point " + std::to_string(restarts[nextRestart]) + " is not at an entry boundary");
            if (isRestart) {
                if (shared != 0)
                    throw bad("the entry at restart point " + std::to_string(at) + " shares " + std::to_string(shared)
                              + " bytes with the previous key; a restart entry stores its whole key");
                ++nextRestart;
            }
            std::string next = key.substr(0, size_t(shared));
            next.append(p, size_t(nonShared));
            p += nonShared;
            if (!out.empty() && !(out.back().first < next))
                throw bad("key '" + next + "' is not after the previous key '" + out.back().first + "'");
            out.emplace_back(next, std::string(p, size_t(valueLen)));
            p += valueLen;
            key = std::move(next);
        }
        if (restartsAt > 0 && nextRestart != restarts.size())
            throw bad("restart point " + std::to_string(restarts[nextRestart]) + " is not at an entry boundary");
    }

private:
    const std::string &m_bytes;
    const std::string &m_path;
};

std::string readWholeFile(const std::string &path, const char *what)
{
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        throw Error(path, std::string("cannot open the ") + what, "check the path of " + optionName("init_checkpoint"));
    const auto size = static_cast<uint64_t>(in.tellg());
    if (size > kMaxIndexBytes)
        throw Error(path, "the file is " + std::to_string(size) + " bytes, far larger than any checkpoint index",
                    "pass the checkpoint prefix (bert_model.ckpt) or its .index file");
    std::string bytes(size_t(size), '\0');
    in.seekg(0);
    in.read(bytes.data(), std::streamsize(size));
    if (!in)
        throw Error(path, std::string("cannot read the ") + what);
    return bytes;
}

int64_t productOf(const std::vector<int64_t> &shape, size_t from, size_t to)
{
    // Saturates instead of overflowing: a hostile index may claim any dimensions.
    int64_t n = 1;
    for (size_t k = from; k < to && k < shape.size(); ++k) {
        if (shape[k] != 0 && n > std::numeric_limits<int64_t>::max() / shape[k])
            return std::numeric_limits<int64_t>::max();
        n *= shape[k];
    }
    return n;
}

} // namespace

std::string tfDtypeName(int dtype)
{
    switch (dtype) {
    case tfdtype::kFloat: return "DT_FLOAT";
    case tfdtype::kDouble: return "DT_DOUBLE";
    case tfdtype::kInt32: return "DT_INT32";
    case tfdtype::kString: return "DT_STRING";
    case tfdtype::kInt64: return "DT_INT64";
    case tfdtype::kBFloat16: return "DT_BFLOAT16";
    case tfdtype::kHalf: return "DT_HALF";
    default: return "dtype " + std::to_string(dtype);
    }
}

size_t tfDtypeSize(int dtype)
{
    switch (dtype) {
    case tfdtype::kFloat: case tfdtype::kInt32: return 4;
    case tfdtype::kDouble: case tfdtype::kInt64: return 8;
    case tfdtype::kBFloat16: case tfdtype::kHalf: return 2;
    default: return 0;
    }
}

bool isTfFloatDtype(int dtype)
{
    return dtype == tfdtype::kFloat || dtype == tfdtype::kDouble || dtype == tfdtype::kHalf
           || dtype == tfdtype::kBFloat16;
}

const TfBundleEntry *TfBundle::find(const std::string &name) const
{
    for (const auto &e : entries)
        if (e.name == name)
            return &e;
    return nullptr;
}

std::string TfBundle::shardPath(int32_t shard) const
{
    char buf[40];
    std::snprintf(buf, sizeof buf, ".data-%05d-of-%05d", int(shard), int(num_shards));
    return prefix + buf;
}

std::vector<std::pair<std::string, std::string>> readLevelDbTable(const std::string &bytes, const std::string &path)
{
    if (bytes.size() < kFooterSize)
        throw Error(path, "the file is " + std::to_string(bytes.size()) + " bytes, shorter than the 48-byte table footer",
                    "the .index file is truncated or not a TensorFlow checkpoint index");
    const char *footer = bytes.data() + bytes.size() - kFooterSize;
    const uint64_t magic = fixed64(footer + 40);
    if (magic != kTableMagic)
        throw Error(path, "the table footer ends with magic " + std::to_string(magic) + ", not LevelDB's 0xdb4775248b80fb57",
                    "this is not a TensorFlow checkpoint index (bert_model.ckpt.index)");
    BlockHandle metaindex, index;
    const char *p = footer;
    if (!decodeHandle(p, footer + 40, metaindex) || !decodeHandle(p, footer + 40, index))
        throw Error(path, "the table footer's block handles are not valid varints", "the .index file is damaged");
    TableReader reader(bytes, path);
    reader.block(metaindex, "metaindex"); // TF writes it empty; only its checksum matters
    std::vector<std::pair<std::string, std::string>> indexEntries;
    reader.entries(reader.block(index, "index"), index, "index", indexEntries);
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto &[separator, handleBytes] : indexEntries) {
        BlockHandle h;
        const char *q = handleBytes.data();
        if (!decodeHandle(q, handleBytes.data() + handleBytes.size(), h))
            throw Error(path + ": index block", "the handle for key '" + separator + "' is not a valid BlockHandle",
                        "the .index file is damaged");
        const size_t before = out.size();
        reader.entries(reader.block(h, "data"), h, "data", out);
        if (out.size() > before && out.back().first > separator)
            throw Error(path + ": data block at byte " + std::to_string(h.offset),
                        "key '" + out.back().first + "' is after the index separator '" + separator + "'",
                        "the .index file is damaged");
    }
    return out;
}

TfBundle readTfBundle(const std::string &prefix)
{
    const std::string path = prefix + ".index";
    const std::string bytes = readWholeFile(path, "TensorFlow checkpoint index");
    const auto table = readLevelDbTable(bytes, path);
    TfBundle b;
    b.prefix = prefix;
    if (table.empty() || !table.front().first.empty())
        throw Error(path, "there is no BundleHeaderProto under the empty key",
                    "this table is not a TensorFlow checkpoint index");
    tfbundle::BundleHeaderProto header;
    if (!header.ParseFromString(table.front().second))
        throw Error(path + ": header", "the BundleHeaderProto does not parse", "the .index file is damaged");
    if (header.endianness() != tfbundle::BundleHeaderProto::LITTLE)
        throw Error(path + ": header", "the checkpoint was written big-endian; only little-endian data is read",
                    "re-save the checkpoint on a little-endian machine (x86, ARM)");
    if (header.num_shards() < 1)
        throw Error(path + ": header", "num_shards is " + std::to_string(header.num_shards()) + "; it must be at least 1",
                    "the .index file is damaged");
    b.num_shards = header.num_shards();
    b.producer = header.version().producer();
    for (size_t k = 1; k < table.size(); ++k) {
        const auto &[name, value] = table[k];
        const std::string field = path + ": tensor '" + name + "'";
        tfbundle::BundleEntryProto proto;
        if (!proto.ParseFromString(value))
            throw Error(field, "its BundleEntryProto does not parse", "the .index file is damaged");
        TfBundleEntry e;
        e.name = name;
        e.dtype = int(proto.dtype());
        for (const auto &d : proto.shape().dim()) {
            if (d.size() < 0)
                throw Error(field, "dimension " + std::to_string(d.size()) + " is negative", "the .index file is damaged");
            e.shape.push_back(d.size());
        }
        e.shard_id = proto.shard_id();
        e.offset = proto.offset();
        e.size = proto.size();
        e.masked_crc32c = proto.crc32c();
        e.sliced = proto.slices_size() > 0;
        if (e.shard_id < 0 || e.shard_id >= b.num_shards)
            throw Error(field, "shard_id " + std::to_string(e.shard_id) + " is outside the " + std::to_string(b.num_shards)
                                   + " data shard(s) of the header",
                        "the .index file is damaged");
        if (e.offset < 0 || e.size < 0)
            throw Error(field, "negative offset or size", "the .index file is damaged");
        const size_t elem = tfDtypeSize(e.dtype);
        if (elem && !e.sliced) {
            const int64_t numel = productOf(e.shape, 0, e.shape.size());
            if (numel > (int64_t(1) << 40) || numel * int64_t(elem) != e.size)
                throw Error(field, "size " + std::to_string(e.size) + " bytes does not match " + tfDtypeName(e.dtype)
                                       + " of " + std::to_string(numel) + " elements",
                            "the .index file is damaged");
        }
        b.entries.push_back(std::move(e));
    }
    return b;
}

std::vector<std::pair<std::string, std::string>> checkTfBundleShards(const TfBundle &bundle)
{
    std::vector<uint64_t> needed(size_t(bundle.num_shards), 0);
    for (const auto &e : bundle.entries)
        needed[size_t(e.shard_id)] = std::max(needed[size_t(e.shard_id)], uint64_t(e.offset) + uint64_t(e.size));
    std::vector<std::pair<std::string, std::string>> problems;
    for (int32_t s = 0; s < bundle.num_shards; ++s) {
        const std::string path = bundle.shardPath(s);
        std::error_code ec;
        const auto size = fs::file_size(path, ec);
        if (ec)
            problems.emplace_back(path, "the data shard " + fs::path(path).filename().string()
                                            + " of the checkpoint is missing (the .index file alone holds no weights)");
        else if (size < needed[size_t(s)])
            problems.emplace_back(path, "the data shard is " + std::to_string(size) + " bytes, but the index needs "
                                            + std::to_string(needed[size_t(s)]) + " (truncated download?)");
    }
    return problems;
}

std::string readTfTensorBytes(const TfBundle &bundle, const TfBundleEntry &entry)
{
    const std::string shard = bundle.shardPath(entry.shard_id);
    std::ifstream in(shard, std::ios::binary);
    if (!in)
        throw Error(shard, "the data shard " + fs::path(shard).filename().string() + " of the checkpoint is missing",
                    "copy it beside " + fs::path(bundle.prefix).filename().string() + ".index");
    std::error_code ec;
    const auto shardSize = fs::file_size(shard, ec);
    if (ec || uint64_t(entry.offset) > shardSize || uint64_t(entry.size) > shardSize - uint64_t(entry.offset))
        throw Error(shard + ": tensor '" + entry.name + "'",
                    "the shard ends before byte " + std::to_string(uint64_t(entry.offset) + uint64_t(entry.size))
                        + " that the index names",
                    "the data shard is truncated; copy the checkpoint again");
    std::string bytes(size_t(entry.size), '\0');
    in.seekg(std::streamoff(entry.offset));
    in.read(bytes.data(), std::streamsize(entry.size));
    if (!in)
        throw Error(shard + ": tensor '" + entry.name + "'",
                    "the shard ends before byte " + std::to_string(uint64_t(entry.offset) + uint64_t(entry.size))
                        + " that the index names",
                    "the data shard is truncated; copy the checkpoint again");
    const uint32_t actual = crc32c(bytes.data(), bytes.size());
    const uint32_t expected = unmaskCrc(entry.masked_crc32c);
    if (actual != expected)
        throw Error(shard + ": tensor '" + entry.name + "'",
                    "checksum mismatch: the CRC32C of its " + std::to_string(entry.size) + " bytes at offset "
                        + std::to_string(entry.offset) + " is " + hex32(actual) + ", the index says " + hex32(expected),
                    "the data shard is corrupted or belongs to another checkpoint; copy the checkpoint again");
    return bytes;
}

std::optional<CheckpointStateTarget> readCheckpointStateTarget(const std::string &dir)
{
    std::error_code ec;
    if (dir.empty() || !fs::is_directory(dir, ec))
        return std::nullopt;
    const fs::path state = fs::path(dir) / "checkpoint";
    if (!fs::is_regular_file(state, ec))
        return std::nullopt;
    std::ifstream in(state);
    std::string line;
    static const std::regex re(R"re(^\s*model_checkpoint_path:\s*"(.*)"\s*$)re");
    while (std::getline(in, line)) {
        std::smatch m;
        if (!std::regex_match(line, m, re))
            continue;
        CheckpointStateTarget t;
        t.state_file = state.string();
        t.recorded = m[1].str();
        const fs::path recorded = t.recorded;
        const auto present = [&ec](const fs::path &p) {
            return fs::exists(p.string() + ".index", ec) || fs::is_regular_file(p, ec);
        };
        t.path = recorded.is_relative() ? (fs::path(dir) / recorded).string() : recorded.string();
        if (recorded.is_absolute() && !present(recorded)) {
            // TensorFlow's latest_checkpoint returns nothing here; the files were copied with the folder.
            const fs::path beside = fs::path(dir) / recorded.filename();
            if (!recorded.filename().empty() && present(beside)) {
                t.path = beside.string();
                t.note = state.string() + " names " + t.recorded + ", which does not exist here (a checkpoint "
                         "copied from another machine?); using " + beside.string() + " beside it";
            }
        }
        return t;
    }
    throw Error(state.string(), "the checkpoint state file has no model_checkpoint_path line",
                "pass the checkpoint prefix (e.g. bert_model.ckpt) as " + optionName("init_checkpoint"));
}

std::optional<std::string> resolveTfCheckpointPrefix(const std::string &input)
{
    std::error_code ec;
    if (input.empty())
        return std::nullopt;
    if (fs::is_directory(input, ec)) {
        const auto target = readCheckpointStateTarget(input);
        if (!target)
            return std::nullopt;
        if (fs::exists(target->path + ".index", ec))
            return target->path;
        if (fs::is_regular_file(target->path, ec))
            return std::nullopt; // a training run's ckpt-N (locateCheckpoint)
        throw Error(target->state_file,
                    "model_checkpoint_path names '" + target->recorded + "', but neither " + target->path
                        + ".index (TensorFlow) nor " + target->path + " (a training checkpoint) exists"
                        + (fs::path(target->recorded).is_absolute()
                               ? ", and no file " + fs::path(target->recorded).filename().string() + " is beside it"
                               : std::string()),
                    "copy the checkpoint files into the folder, or pass the checkpoint itself as "
                        + optionName("init_checkpoint"));
    }
    if (endsWith(input, ".index") && fs::is_regular_file(input, ec))
        return input.substr(0, input.size() - 6);
    if (fs::is_regular_file(input + ".index", ec))
        return input;
    static const std::regex shardRe(R"(^(.*)\.data-\d{5}-of-\d{5}$)");
    std::smatch m;
    if (std::regex_match(input, m, shardRe) && fs::is_regular_file(m[1].str() + ".index", ec))
        return m[1].str();
    return std::nullopt;
}

TfVariableKind classifyTfVariable(const std::string &name)
{
    // google-research/bert's AdamWeightDecayOptimizer (adam_m/adam_v), tf.train.AdamOptimizer
    // (Adam/Adam_1, beta1_power/beta2_power), TF2 object-based slots.
    if (endsWith(name, "/adam_m") || endsWith(name, "/adam_v") || endsWith(name, "/Adam") || endsWith(name, "/Adam_1")
        || name == "beta1_power" || name == "beta2_power" || name.find(".OPTIMIZER_SLOT") != std::string::npos
        || startsWith(name, "optimizer/"))
        return TfVariableKind::OptimizerSlot;
    if (name == "global_step" || name == "save_counter/.ATTRIBUTES/VARIABLE_VALUE" || name == "save_counter"
        || name == "_CHECKPOINTABLE_OBJECT_GRAPH" || name == "good_steps" || name == "loss_scale"
        || name == "current_loss_scale")
        return TfVariableKind::Bookkeeping;
    return mapTfVariableName(name) ? TfVariableKind::Parameter : TfVariableKind::Other;
}

namespace {

/// `m` for the variable `last` (kernel, gamma, beta, bias) of the layer `base`.
std::optional<TfNameMapping> withLeaf(TfNameMapping m, const std::string &base, const std::string &last)
{
    if (last == "kernel") {
        m.kernel = true;
        m.model_name = base + ".weight";
    } else if (last == "gamma") {
        m.model_name = base + ".weight";
    } else if (last == "beta" || last == "bias") {
        m.model_name = base + ".bias";
    } else {
        return std::nullopt;
    }
    return m;
}

std::optional<TfNameMapping> mapUnscopedTf1Name(const std::string &name);
std::optional<TfNameMapping> mapTf2Name(const std::string &name);

} // namespace

std::optional<TfNameMapping> mapTfVariableName(const std::string &name)
{
    if (auto m = mapTf2Name(name))
        return m;
    // TF1 names, optionally with Keras' object-based suffix and under recognised scopes
    // (the scope components are removed one at a time, so "bert/bert/…" and
    // "module/bert/…" read, while "bert/encoder/…" itself is never stripped).
    const std::string attr = "/.ATTRIBUTES/VARIABLE_VALUE";
    std::string rest = endsWith(name, attr) ? name.substr(0, name.size() - attr.size()) : name;
    std::string scope;
    for (int depth = 0; depth < 4; ++depth) {
        if (auto m = mapUnscopedTf1Name(rest)) {
            m->scope = scope;
            return m;
        }
        const size_t slash = rest.find('/');
        if (slash == std::string::npos)
            return std::nullopt;
        const std::string first = rest.substr(0, slash);
        if (first != "module" && first != "model" && first != "encoder" && first != "bert")
            return std::nullopt;
        scope += first + "/";
        rest = rest.substr(slash + 1);
    }
    return std::nullopt;
}

namespace {

std::optional<TfNameMapping> mapUnscopedTf1Name(const std::string &name)
{
    TfNameMapping m;
    auto leaf = [&m](const std::string &base, const std::string &last) { return withLeaf(m, base, last); };
    // google-research/bert modeling.py / run_classifier.py (TF1 tf.train.Saver names).
    if (name == "output_weights") {
        m.model_name = "classifier.weight";
        return m;
    }
    if (name == "output_bias") {
        m.model_name = "classifier.bias";
        return m;
    }
    static const std::regex tf1(R"(^bert/(embeddings|encoder/layer_(\d+)|pooler|encoder/embedding_hidden_mapping_in)/(.+)$)");
    std::smatch s;
    if (std::regex_match(name, s, tf1)) {
        std::string rest = s[3].str();
        std::string scope = s[1].str();
        if (scope == "embeddings") {
            for (const char *t : {"word_embeddings", "position_embeddings", "token_type_embeddings"})
                if (rest == t) {
                    m.model_name = "bert.embeddings." + rest + ".weight";
                    return m;
                }
            if (rest == "LayerNorm/gamma" || rest == "LayerNorm/beta")
                return leaf("bert.embeddings.LayerNorm", rest.substr(10));
            return std::nullopt;
        }
        if (scope == "encoder/embedding_hidden_mapping_in")
            return leaf("bert.embeddings.embedding_projection", rest);
        const size_t slash = rest.rfind('/');
        if (slash == std::string::npos)
            return std::nullopt;
        std::string path = rest.substr(0, slash);
        static const std::set<std::string> layerParts = {
            "attention/self/query", "attention/self/key", "attention/self/value", "attention/output/dense",
            "attention/output/LayerNorm", "intermediate/dense", "output/dense", "output/LayerNorm"};
        std::string base;
        if (scope == "pooler") {
            if (path != "dense")
                return std::nullopt;
            base = "bert.pooler.dense";
        } else {
            if (!layerParts.count(path))
                return std::nullopt;
            for (auto &c : path)
                if (c == '/')
                    c = '.';
            base = "bert.encoder.layer." + s[2].str() + "." + path;
        }
        return leaf(base, rest.substr(slash + 1));
    }
    return std::nullopt;
}

std::optional<TfNameMapping> mapTf2Name(const std::string &name)
{
    TfNameMapping m;
    auto leaf = [&m](const std::string &base, const std::string &last) { return withLeaf(m, base, last); };
    std::smatch s;
    // tensorflow/models official/nlp/modeling/networks/bert_encoder.py (TF2 object-based names,
    // e.g. "encoder/_transformer_layers/0/_attention_layer/_query_dense/kernel/.ATTRIBUTES/VARIABLE_VALUE").
    const std::string attr = "/.ATTRIBUTES/VARIABLE_VALUE";
    if (!endsWith(name, attr))
        return std::nullopt;
    const std::string core = name.substr(0, name.size() - attr.size());
    static const std::regex tf2(
        R"(^(.*/)?(_embedding_layer|_position_embedding_layer|_type_embedding_layer|_embedding_norm_layer|_embedding_projection|_pooler_layer|_transformer_layers/(\d+)/(.+))/([a-z]+)$)");
    if (!std::regex_match(core, s, tf2))
        return std::nullopt;
    m.scope = s[1].str();
    const std::string part = s[2].str(), last = s[5].str();
    if (last == "embeddings") {
        if (part == "_embedding_layer") m.model_name = "bert.embeddings.word_embeddings.weight";
        else if (part == "_position_embedding_layer") m.model_name = "bert.embeddings.position_embeddings.weight";
        else if (part == "_type_embedding_layer") m.model_name = "bert.embeddings.token_type_embeddings.weight";
        else return std::nullopt;
        return m;
    }
    if (part == "_embedding_norm_layer")
        return leaf("bert.embeddings.LayerNorm", last);
    if (part == "_embedding_projection")
        return leaf("bert.embeddings.embedding_projection", last);
    if (part == "_pooler_layer")
        return leaf("bert.pooler.dense", last);
    if (s[3].matched) {
        const std::string layer = "bert.encoder.layer." + s[3].str() + ".";
        const std::string sub = s[4].str();
        std::string base;
        if (sub == "_attention_layer/_query_dense") base = "attention.self.query";
        else if (sub == "_attention_layer/_key_dense") base = "attention.self.key";
        else if (sub == "_attention_layer/_value_dense") base = "attention.self.value";
        else if (sub == "_attention_layer/_output_dense") base = "attention.output.dense";
        else if (sub == "_attention_layer_norm") base = "attention.output.LayerNorm";
        else if (sub == "_intermediate_dense") base = "intermediate.dense";
        else if (sub == "_output_dense") base = "output.dense";
        else if (sub == "_output_layer_norm") base = "output.LayerNorm";
        else return std::nullopt;
        auto r = leaf(layer + base, last);
        if (r && sub.rfind("_attention_layer/", 0) == 0) {
            // EinsumDense per-head layouts: q/k/v kernel [hidden, heads, size], bias [heads, size];
            // the output kernel [heads, size, hidden].
            if (r->kernel && base == "attention.output.dense")
                r->in_dims = 2;
            else if (!r->kernel && base != "attention.output.dense")
                r->flatten = true;
        }
        return r;
    }
    return std::nullopt;
}

} // namespace

std::vector<int64_t> modelShapeOf(const TfNameMapping &m, const std::vector<int64_t> &shape)
{
    if (m.kernel) {
        if (shape.size() < size_t(m.in_dims) + 1)
            return std::vector<int64_t>(shape.rbegin(), shape.rend());
        return {productOf(shape, size_t(m.in_dims), shape.size()), productOf(shape, 0, size_t(m.in_dims))};
    }
    if (m.flatten)
        return {productOf(shape, 0, shape.size())};
    return shape;
}

} // namespace wb
