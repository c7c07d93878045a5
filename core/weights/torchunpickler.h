// SPDX-License-Identifier: Apache-2.0
#pragma once

// The restricted pickle machine of the weights-only torch.save reader (torchpickle.h), and the
// byte access it shares with the container formats (torchpickle.cpp). Internal to core/model:
// include torchpickle.h instead.

#include "core/weights/torchpickle.h"
#include "core/util/error.h"

#include <algorithm>
#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wb::torchpickle_detail {

// Limits: far above what any state dict needs, far below what would exhaust memory.
inline constexpr uint64_t kMaxPickleBytes = 256ull << 20; // data.pkl of a 1000-layer model is a few MB
inline constexpr size_t kMaxObjects = size_t(1) << 21;     // ~20 objects per tensor
inline constexpr size_t kMaxDims = 64;
inline constexpr size_t kMaxGlobalLine = 256;
inline constexpr size_t kMaxZipEntries = size_t(1) << 20;

inline constexpr size_t kMaxStack = size_t(1) << 23;       // stack entries, memo slots, container items
inline constexpr uint64_t kMaxBroadcast = uint64_t(1) << 20; // elements a view may have beyond its storage's

/// "0x1f" for 31.
std::string hexByte(unsigned v);

// --- byte access --------------------------------------------------------------------------

/// Reads `n` bytes at absolute offset `off` after checking them against the file size.
std::string readAt(std::istream &in, uint64_t fileSize, uint64_t off, uint64_t n, const std::string &path,
                   const std::string &what);
/// The `bytes`-byte little-endian unsigned integer at `pos` of `b`.
uint64_t le(const std::string &b, size_t pos, int bytes);
/// IEEE 802.3 CRC-32 (as zip uses it) of `n` bytes, continuing from `crc`.
uint32_t crc32Update(uint32_t crc, const unsigned char *p, size_t n);

/// A bounded window [begin, end) of a stream, read in chunks (the legacy format's pickles lie
/// at the start of a file of unknown length; they are never read as a whole).
class Input
{
public:
    Input(std::istream &in, uint64_t begin, uint64_t end, std::string path)
        : m_in(in), m_pos(begin), m_end(end), m_bufStart(begin), m_path(std::move(path))
    {
    }

    uint64_t pos() const { return m_pos; }
    uint64_t left() const { return m_end - m_pos; }

    /// Returns `n` bytes at the position and advances; valid until the next call.
    const char *take(uint64_t n, const char *what)
    {
        if (n > left())
            throw Error(m_path, std::string("the pickle ends inside ") + what + " at byte " + std::to_string(m_pos),
                        "the file is truncated or corrupt; download or save it again");
        if (m_pos < m_bufStart || m_pos + n > m_bufStart + m_buf.size()) {
            const uint64_t chunk = std::min<uint64_t>(left(), std::max<uint64_t>(n, 1 << 16));
            m_buf.assign(size_t(chunk), '\0');
            m_in.clear();
            m_in.seekg(std::streamoff(m_pos));
            m_in.read(m_buf.data(), std::streamsize(chunk));
            if (!m_in)
                throw Error(m_path, "could not read the pickle at byte " + std::to_string(m_pos));
            m_bufStart = m_pos;
        }
        const char *p = m_buf.data() + (m_pos - m_bufStart);
        m_pos += n;
        return p;
    }
    unsigned byte(const char *what) { return static_cast<unsigned char>(*take(1, what)); }
    uint64_t uint(int bytes, const char *what)
    {
        const char *p = take(uint64_t(bytes), what);
        uint64_t v = 0;
        for (int k = bytes - 1; k >= 0; --k)
            v = (v << 8) | static_cast<unsigned char>(p[k]);
        return v;
    }

private:
    std::istream &m_in;
    uint64_t m_pos, m_end, m_bufStart;
    std::string m_buf;
    std::string m_path;
};

// --- the restricted pickle machine ---------------------------------------------------------

enum class Kind { None, Bool, Int, BigInt, Float, Str, Bytes, Tuple, List, Dict, Global, Storage, Tensor };

/// The Python type name of a kind, for errors.
const char *kindName(Kind k);

/// The globals a state dict needs; nothing else resolves.
enum class Fn { OrderedDict, RebuildTensorV2, RebuildTensor, RebuildParameter, StorageType };

struct Obj
{
    Kind kind = Kind::None;
    int64_t i = 0;                ///< Int, Bool; Global: Fn; Tensor: index into m_tensors
    double f = 0;
    std::string s;                ///< Str, Bytes, BigInt (little-endian two's complement); Global: storage dtype; Storage: key
    std::vector<uint32_t> items;  ///< Tuple, List; Dict: key, value, key, value …
};

class Unpickler
{
public:
    /// `persistent`: whether BINPERSID (a storage reference) may occur; `where` names the
    /// pickle in errors (the file, or "file: data.pkl").
    Unpickler(Input &in, std::string where, bool persistent) : m_in(in), m_where(std::move(where)), m_persistent(persistent) {}

    /// The hint of a refused file.
    static std::string refusedHint()
    {
        return "do not open this file with torch.load or pickle; get the model's weights again from their original "
               "source (prefer model.safetensors)";
    }

    /// Runs the pickle to STOP; returns the object left on the stack.
    uint32_t run();

    const Obj &obj(uint32_t id) const { return m_objs[id]; }
    std::vector<TorchTensorEntry> &tensors() { return m_tensors; }
    /// Storages referenced by the pickle: key → (dtype, numel).
    std::map<std::string, std::pair<std::string, uint64_t>> &storages() { return m_storages; }

private:
    [[noreturn]] void fail(const std::string &message, const std::string &hint = {}) const
    {
        throw Error(m_where, message + " (pickle byte " + std::to_string(m_opPos) + ")",
                    hint.empty() ? "the file is corrupt or not written by torch.save; download or save it again" : hint);
    }
    uint32_t make(Obj o)
    {
        if (m_objs.size() >= kMaxObjects)
            fail("the pickle builds more than " + std::to_string(kMaxObjects) + " objects, far more than a state dict needs");
        m_objs.push_back(std::move(o));
        return uint32_t(m_objs.size() - 1);
    }
    uint32_t makeInt(int64_t v) { Obj o; o.kind = Kind::Int; o.i = v; return make(std::move(o)); }
    void push(uint32_t id)
    {
        if (m_stack.size() >= kMaxStack)
            fail("the pickle's stack grows past " + std::to_string(kMaxStack) + " entries");
        m_stack.push_back(id);
    }
    /// Counts items put into containers against the limit.
    void count(size_t n)
    {
        m_items += n;
        if (m_items > kMaxStack)
            fail("the pickle's containers hold more than " + std::to_string(kMaxStack) + " items");
    }
    void memo(uint64_t slot, uint32_t id)
    {
        if (m_memo.size() >= kMaxStack && !m_memo.count(slot))
            fail("the pickle stores more than " + std::to_string(kMaxStack) + " memo entries");
        m_memo[slot] = id;
    }
    uint32_t pop(const char *op)
    {
        if (m_stack.size() <= (m_marks.empty() ? 0 : m_marks.back()))
            fail(std::string(op) + " on an empty stack");
        const uint32_t id = m_stack.back();
        m_stack.pop_back();
        return id;
    }
    uint32_t top(const char *op)
    {
        if (m_stack.size() <= (m_marks.empty() ? 0 : m_marks.back()))
            fail(std::string(op) + " on an empty stack");
        return m_stack.back();
    }
    /// Pops everything above the last MARK, and the mark.
    std::vector<uint32_t> popMark(const char *op)
    {
        if (m_marks.empty())
            fail(std::string(op) + " without a MARK");
        const size_t m = m_marks.back();
        m_marks.pop_back();
        std::vector<uint32_t> items(m_stack.begin() + std::ptrdiff_t(m), m_stack.end());
        m_stack.resize(m);
        return items;
    }
    std::string readString(uint64_t n, const char *what)
    {
        if (n > kMaxPickleBytes)
            fail(std::string(what) + " of " + std::to_string(n) + " bytes, far more than a state dict needs");
        const char *p = m_in.take(n, what); // bounded by the bytes left: no allocation beyond the file
        return std::string(p, size_t(n));
    }
    std::string readLine(const char *what)
    {
        std::string s;
        for (;;) {
            const char c = char(m_in.byte(what));
            if (c == '\n')
                return s;
            if (s.size() >= kMaxGlobalLine)
                fail(std::string(what) + " is longer than " + std::to_string(kMaxGlobalLine) + " characters");
            s += c;
        }
    }
    uint32_t global(const std::string &module, const std::string &name);
    void setItems(uint32_t dict, const std::vector<uint32_t> &kv, const char *op);
    uint32_t reduce(uint32_t callable, uint32_t args);
    uint32_t orderedDict(const std::vector<uint32_t> &args);
    uint32_t rebuildTensor(const std::vector<uint32_t> &args, bool v2);
    void checkView(const TorchTensorEntry &t, uint64_t numel);
    // One group of opcodes each; false when `op` is not of the group.
    bool frameOrMemoOp(unsigned op);
    bool scalarOp(unsigned op);
    bool containerOp(unsigned op);
    bool callOp(unsigned op);
    uint32_t persistentLoad(uint32_t pid);
    std::vector<int64_t> intTuple(uint32_t id, const char *what);
    int64_t intValue(uint32_t id, const char *what);

    Input &m_in;
    std::string m_where;
    bool m_persistent;
    uint64_t m_opPos = 0;
    std::vector<Obj> m_objs;
    std::vector<uint32_t> m_stack;
    std::vector<size_t> m_marks;
    std::unordered_map<uint64_t, uint32_t> m_memo;
    size_t m_items = 0;
    std::vector<TorchTensorEntry> m_tensors;
    std::map<std::string, std::pair<std::string, uint64_t>> m_storages;
};

/// Turns the unpickled object into the tensor table: a dict (OrderedDict or plain) of str → tensor.
std::vector<TorchTensorEntry> stateDictTensors(Unpickler &u, uint32_t root, const std::string &where);

} // namespace wb::torchpickle_detail
