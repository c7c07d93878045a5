// SPDX-License-Identifier: Apache-2.0
#include "core/model/torchpickle.h"

#include "core/util/error.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <istream>
#include <sstream>
#include <unordered_map>

namespace wb {

namespace {

// Limits: far above what any state dict needs, far below what would exhaust memory.
constexpr uint64_t kMaxPickleBytes = 256ull << 20; // data.pkl of a 1000-layer model is a few MB
constexpr size_t kMaxObjects = size_t(1) << 21;     // ~20 objects per tensor
constexpr size_t kMaxDims = 64;
constexpr size_t kMaxGlobalLine = 256;
constexpr size_t kMaxZipEntries = size_t(1) << 20;

constexpr size_t kMaxStack = size_t(1) << 23;       // stack entries, memo slots, container items
constexpr uint64_t kMaxBroadcast = uint64_t(1) << 20; // elements a view may have beyond its storage's

std::string hexByte(unsigned v)
{
    const char *digits = "0123456789abcdef";
    return std::string("0x") + digits[(v >> 4) & 15] + digits[v & 15];
}

// --- byte access --------------------------------------------------------------------------

/// Reads `n` bytes at absolute offset `off` after checking them against the file size.
std::string readAt(std::istream &in, uint64_t fileSize, uint64_t off, uint64_t n, const std::string &path,
                   const std::string &what)
{
    if (off > fileSize || n > fileSize - off)
        throw Error(path, what + " (bytes " + std::to_string(off) + "–" + std::to_string(off + n) + ") runs past the end of the "
                              + std::to_string(fileSize) + "-byte file",
                    "the file is truncated or corrupt; download or save it again");
    std::string b(size_t(n), '\0');
    in.clear();
    in.seekg(std::streamoff(off));
    in.read(b.data(), std::streamsize(n));
    if (!in)
        throw Error(path, "could not read " + what);
    return b;
}

uint64_t le(const std::string &b, size_t pos, int bytes)
{
    uint64_t v = 0;
    for (int k = bytes - 1; k >= 0; --k)
        v = (v << 8) | static_cast<unsigned char>(b[pos + size_t(k)]);
    return v;
}

uint32_t crc32Update(uint32_t crc, const unsigned char *p, size_t n)
{
    // IEEE 802.3 CRC-32 (reflected polynomial 0xEDB88320), as zip uses it.
    static const auto table = [] {
        std::vector<uint32_t> t(256);
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t c = i;
            for (int k = 0; k < 8; ++k)
                c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    crc = ~crc;
    for (size_t i = 0; i < n; ++i)
        crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

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

const char *kindName(Kind k)
{
    switch (k) {
    case Kind::None: return "None";
    case Kind::Bool: return "bool";
    case Kind::Int: case Kind::BigInt: return "int";
    case Kind::Float: return "float";
    case Kind::Str: return "str";
    case Kind::Bytes: return "bytes";
    case Kind::Tuple: return "tuple";
    case Kind::List: return "list";
    case Kind::Dict: return "dict";
    case Kind::Global: return "function";
    case Kind::Storage: return "storage";
    case Kind::Tensor: return "tensor";
    }
    return "?";
}

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

uint32_t Unpickler::global(const std::string &module, const std::string &name)
{
    Obj o;
    o.kind = Kind::Global;
    static const std::map<std::string, const char *> storages = {
        {"FloatStorage", "F32"}, {"HalfStorage", "F16"}, {"BFloat16Storage", "BF16"}, {"DoubleStorage", "F64"},
        {"LongStorage", "I64"},  {"IntStorage", "I32"},  {"ShortStorage", "I16"},     {"CharStorage", "I8"},
        {"ByteStorage", "U8"},   {"BoolStorage", "BOOL"}, {"UntypedStorage", "U8"}};
    if (module == "collections" && name == "OrderedDict")
        o.i = int64_t(Fn::OrderedDict);
    else if (module == "torch._utils" && name == "_rebuild_tensor_v2")
        o.i = int64_t(Fn::RebuildTensorV2);
    else if (module == "torch._utils" && name == "_rebuild_tensor")
        o.i = int64_t(Fn::RebuildTensor);
    else if (module == "torch._utils" && name == "_rebuild_parameter")
        o.i = int64_t(Fn::RebuildParameter);
    else if ((module == "torch" || (module == "torch.storage" && name == "UntypedStorage")) && storages.count(name)) {
        o.i = int64_t(Fn::StorageType);
        o.s = storages.at(name);
    } else {
        throw Error(m_where,
                    "the pickle refers to the global '" + module + "." + name
                        + "', which a weights file never needs; the file is refused and nothing in it is run (a "
                          "state dict holds only tensors, storages and OrderedDict, the same rule as "
                          "torch.load(weights_only=True))",
                    refusedHint());
    }
    return make(std::move(o));
}

void Unpickler::setItems(uint32_t dict, const std::vector<uint32_t> &kv, const char *op)
{
    if (m_objs[dict].kind != Kind::Dict)
        fail(std::string(op) + " on a " + kindName(m_objs[dict].kind) + ", not a dict");
    if (kv.size() % 2 != 0)
        fail(std::string(op) + " with an odd number of items");
    count(kv.size());
    auto &items = m_objs[dict].items;
    items.insert(items.end(), kv.begin(), kv.end());
}

int64_t Unpickler::intValue(uint32_t id, const char *what)
{
    const Obj &o = m_objs[id];
    if (o.kind != Kind::Int)
        fail(std::string(what) + " is a " + kindName(o.kind) + ", not an int");
    return o.i;
}

std::vector<int64_t> Unpickler::intTuple(uint32_t id, const char *what)
{
    const Obj &o = m_objs[id];
    if (o.kind != Kind::Tuple)
        fail(std::string(what) + " is a " + kindName(o.kind) + ", not a tuple");
    if (o.items.size() > kMaxDims)
        fail(std::string(what) + " has " + std::to_string(o.items.size()) + " dimensions (at most " + std::to_string(kMaxDims) + ")");
    std::vector<int64_t> v;
    for (uint32_t item : o.items) {
        const int64_t x = intValue(item, what);
        if (x < 0)
            fail(std::string(what) + " holds the negative value " + std::to_string(x));
        v.push_back(x);
    }
    return v;
}

uint32_t Unpickler::persistentLoad(uint32_t pid)
{
    // ('storage', storage_type, key, location, numel[, view_metadata]) (torch/serialization.py persistent_id)
    if (!m_persistent)
        fail("a storage reference (BINPERSID) outside the state dict");
    const Obj &t = m_objs[pid];
    if (t.kind != Kind::Tuple || t.items.size() < 5 || t.items.size() > 6)
        fail("a persistent id that is not ('storage', type, key, location, numel)");
    const Obj &tag = m_objs[t.items[0]], &type = m_objs[t.items[1]], &key = m_objs[t.items[2]], &loc = m_objs[t.items[3]];
    if (tag.kind != Kind::Str || tag.s != "storage")
        fail("a persistent id that is not a storage");
    if (type.kind != Kind::Global || type.i != int64_t(Fn::StorageType))
        fail("a storage whose type is not a torch storage class");
    if (key.kind != Kind::Str || loc.kind != Kind::Str)
        fail("a storage whose key or location is not a string");
    const int64_t numel = intValue(t.items[4], "a storage's size");
    if (numel < 0)
        fail("a storage of negative size");
    if (t.items.size() == 6 && m_objs[t.items[5]].kind != Kind::None)
        fail("a storage view (view_metadata, torch before 1.0) is not read", "load and save the file again with a "
                                                                              "recent torch");
    auto [it, fresh] = m_storages.emplace(key.s, std::make_pair(type.s, uint64_t(numel)));
    if (!fresh && it->second != std::make_pair(type.s, uint64_t(numel)))
        fail("storage '" + key.s + "' is referenced with two different types or sizes");
    Obj s;
    s.kind = Kind::Storage;
    s.s = key.s;
    return make(std::move(s));
}

uint32_t Unpickler::reduce(uint32_t callable, uint32_t argsId)
{
    const Obj &fn = m_objs[callable];
    if (fn.kind != Kind::Global)
        fail(std::string("REDUCE calls a ") + kindName(fn.kind) + ", not an allowed function");
    if (m_objs[argsId].kind != Kind::Tuple)
        fail("REDUCE with arguments that are not a tuple");
    const std::vector<uint32_t> args = m_objs[argsId].items;
    switch (Fn(fn.i)) {
    case Fn::OrderedDict: {
        Obj d;
        d.kind = Kind::Dict;
        if (args.size() > 1)
            fail("OrderedDict() with more than one argument");
        if (args.size() == 1) { // OrderedDict([(key, value), …])
            const Obj &pairs = m_objs[args[0]];
            if (pairs.kind != Kind::List && pairs.kind != Kind::Tuple)
                fail("OrderedDict() of something that is not a list of pairs");
            for (uint32_t p : pairs.items) {
                const Obj &kv = m_objs[p];
                if (kv.kind != Kind::Tuple || kv.items.size() != 2)
                    fail("OrderedDict() of something that is not a list of pairs");
                d.items.push_back(kv.items[0]);
                d.items.push_back(kv.items[1]);
            }
        }
        return make(std::move(d));
    }
    case Fn::RebuildTensorV2:
    case Fn::RebuildTensor: {
        // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
        // _rebuild_tensor(storage, storage_offset, size, stride) (torch/_utils.py)
        const bool v2 = Fn(fn.i) == Fn::RebuildTensorV2;
        if (v2 ? (args.size() < 6 || args.size() > 7) : args.size() != 4)
            fail(std::string(v2 ? "_rebuild_tensor_v2" : "_rebuild_tensor") + " with " + std::to_string(args.size())
                 + " arguments");
        const Obj &storage = m_objs[args[0]];
        if (storage.kind != Kind::Storage)
            fail("a tensor whose storage is a " + std::string(kindName(storage.kind)));
        TorchTensorEntry t;
        t.storage = storage.s;
        t.dtype = m_storages.at(storage.s).first;
        t.storage_offset = intValue(args[1], "a tensor's storage offset");
        if (t.storage_offset < 0)
            fail("a tensor with a negative storage offset");
        t.shape = intTuple(args[2], "a tensor's size");
        t.stride = intTuple(args[3], "a tensor's stride");
        if (t.shape.size() != t.stride.size())
            fail("a tensor with " + std::to_string(t.shape.size()) + " sizes but " + std::to_string(t.stride.size())
                 + " strides");
        // The last element the view touches must lie inside the storage (overflow-checked).
        const uint64_t numel = m_storages.at(storage.s).second;
        bool empty = false;
        for (int64_t s : t.shape)
            empty |= s == 0;
        const auto sizeText = [&] {
            std::string s;
            for (size_t d = 0; d < t.shape.size(); ++d)
                s += (d ? ", " : "") + std::to_string(t.shape[d]);
            return s;
        };
        if (!empty) {
            // Each term is below 2^126 and the sum is checked after each one: no overflow.
            unsigned __int128 last = uint64_t(t.storage_offset), elements = 1;
            bool outside = last >= numel, huge = false;
            for (size_t d = 0; d < t.shape.size() && !outside; ++d) {
                last += static_cast<unsigned __int128>(uint64_t(t.shape[d] - 1)) * uint64_t(t.stride[d]);
                outside = last >= numel;
                if (!huge) { // elements < 2^65 here, so the product stays below 2^128
                    elements *= uint64_t(t.shape[d]);
                    huge = elements > static_cast<unsigned __int128>(numel) + kMaxBroadcast;
                }
            }
            if (huge && !outside)
                fail("a tensor view of size (" + sizeText() + ") has far more elements than its "
                     + std::to_string(numel) + "-element storage '" + storage.s + "'");
            if (outside)
                fail("a tensor view of size (" + sizeText() + ") reaches past the end of its " + std::to_string(numel) + "-element storage '" + storage.s + "'");
        }
        m_tensors.push_back(std::move(t));
        Obj o;
        o.kind = Kind::Tensor;
        o.i = int64_t(m_tensors.size() - 1);
        return make(std::move(o));
    }
    case Fn::RebuildParameter: // _rebuild_parameter(data, requires_grad, backward_hooks)
        if (args.size() != 3 || m_objs[args[0]].kind != Kind::Tensor)
            fail("_rebuild_parameter with arguments other than (tensor, requires_grad, backward_hooks)");
        return args[0];
    case Fn::StorageType:
        fail("a storage class called as a function");
    }
    fail("REDUCE of an unknown function");
}

uint32_t Unpickler::run()
{
    for (;;) {
        m_opPos = m_in.pos();
        const unsigned op = m_in.byte("an opcode");
        switch (op) {
        case 0x80: { // PROTO
            const unsigned v = m_in.byte("PROTO");
            if (v < 2 || v > 5)
                fail("pickle protocol " + std::to_string(v) + " (torch.save writes 2 to 5)");
            break;
        }
        case 0x95: // FRAME: a length hint only
            if (m_in.uint(8, "FRAME") > m_in.left())
                fail("a FRAME longer than the rest of the pickle");
            break;
        case '.': // STOP
            if (m_stack.size() != 1 || !m_marks.empty())
                fail("STOP with " + std::to_string(m_stack.size()) + " objects on the stack");
            return m_stack.back();
        case '(': // MARK
            if (m_marks.size() >= kMaxStack)
                fail("the pickle nests more than " + std::to_string(kMaxStack) + " MARKs");
            m_marks.push_back(m_stack.size());
            break;
        case '0': pop("POP"); break;
        case '1': popMark("POP_MARK"); break;
        case 'q': {
            const uint64_t slot = m_in.byte("BINPUT");
            memo(slot, top("BINPUT"));
            break;
        }
        case 'r': {
            const uint64_t slot = m_in.uint(4, "LONG_BINPUT");
            memo(slot, top("LONG_BINPUT"));
            break;
        }
        case 0x94: // MEMOIZE
            memo(m_memo.size(), top("MEMOIZE"));
            break;
        case 'h':
        case 'j': {
            const uint64_t k = op == 'h' ? m_in.byte("BINGET") : m_in.uint(4, "LONG_BINGET");
            const auto it = m_memo.find(k);
            if (it == m_memo.end())
                fail("BINGET of memo slot " + std::to_string(k) + ", which was never stored");
            push(it->second);
            break;
        }
        case 'N': push(make(Obj{})); break;
        case 0x88:
        case 0x89: {
            Obj o;
            o.kind = Kind::Bool;
            o.i = op == 0x88;
            push(make(std::move(o)));
            break;
        }
        case 'K': push(makeInt(int64_t(m_in.byte("BININT1")))); break;
        case 'M': push(makeInt(int64_t(m_in.uint(2, "BININT2")))); break;
        case 'J': push(makeInt(int64_t(int32_t(uint32_t(m_in.uint(4, "BININT")))))); break;
        case 0x8a: { // LONG1: n little-endian two's-complement bytes
            const unsigned n = m_in.byte("LONG1");
            const std::string b = readString(n, "LONG1");
            if (n <= 8) {
                uint64_t v = 0;
                for (unsigned k = n; k-- > 0;)
                    v = (v << 8) | static_cast<unsigned char>(b[k]);
                if (n > 0 && n < 8 && (static_cast<unsigned char>(b[n - 1]) & 0x80))
                    v |= ~uint64_t(0) << (8 * n); // sign-extend
                push(makeInt(int64_t(v)));
            } else {
                Obj o;
                o.kind = Kind::BigInt;
                o.s = b;
                push(make(std::move(o)));
            }
            break;
        }
        case 'G': { // BINFLOAT: big-endian IEEE 754 double
            const uint64_t bits = [&] {
                const char *p = m_in.take(8, "BINFLOAT");
                uint64_t v = 0;
                for (int k = 0; k < 8; ++k)
                    v = (v << 8) | static_cast<unsigned char>(p[k]);
                return v;
            }();
            Obj o;
            o.kind = Kind::Float;
            std::memcpy(&o.f, &bits, 8);
            push(make(std::move(o)));
            break;
        }
        // BINUNICODE, SHORT_BINUNICODE, BINUNICODE8; BINBYTES, SHORT_BINBYTES, BINBYTES8; and Python 2's
        // BINSTRING, SHORT_BINSTRING (str keys of files saved under Python 2), read as str.
        case 'X': case 0x8c: case 0x8d: case 'B': case 'C': case 0x8e: case 'T': case 'U': {
            const uint64_t n = op == 0x8c || op == 'C' || op == 'U' ? m_in.byte("a string length")
                               : op == 'X' || op == 'B' || op == 'T' ? m_in.uint(4, "a string length")
                                                                     : m_in.uint(8, "a string length");
            Obj o;
            o.kind = op == 'B' || op == 'C' || op == 0x8e ? Kind::Bytes : Kind::Str;
            o.s = readString(n, "a string");
            push(make(std::move(o)));
            break;
        }
        case ')': { Obj o; o.kind = Kind::Tuple; push(make(std::move(o))); break; }
        case 't': case 0x85: case 0x86: case 0x87: {
            Obj o;
            o.kind = Kind::Tuple;
            if (op == 't') {
                o.items = popMark("TUPLE");
                count(o.items.size());
            } else {
                const unsigned n = op - 0x84;
                o.items.resize(n);
                for (unsigned k = n; k-- > 0;)
                    o.items[k] = pop("TUPLE1/2/3");
            }
            push(make(std::move(o)));
            break;
        }
        case ']': case 'l': {
            Obj o;
            o.kind = Kind::List;
            if (op == 'l')
                o.items = popMark("LIST");
            count(o.items.size());
            push(make(std::move(o)));
            break;
        }
        case 'a': case 'e': {
            const std::vector<uint32_t> items = op == 'e' ? popMark("APPENDS") : std::vector<uint32_t>{pop("APPEND")};
            const uint32_t list = top(op == 'e' ? "APPENDS" : "APPEND");
            if (m_objs[list].kind != Kind::List)
                fail(std::string("APPEND to a ") + kindName(m_objs[list].kind) + ", not a list");
            count(items.size());
            m_objs[list].items.insert(m_objs[list].items.end(), items.begin(), items.end());
            break;
        }
        case '}': case 'd': {
            Obj o;
            o.kind = Kind::Dict;
            const uint32_t id = make(std::move(o));
            if (op == 'd')
                setItems(id, popMark("DICT"), "DICT");
            push(id);
            break;
        }
        case 's': {
            const uint32_t v = pop("SETITEM"), k = pop("SETITEM");
            setItems(top("SETITEM"), {k, v}, "SETITEM");
            break;
        }
        case 'u': {
            const std::vector<uint32_t> kv = popMark("SETITEMS");
            setItems(top("SETITEMS"), kv, "SETITEMS");
            break;
        }
        case 'c': { // GLOBAL "module\nname\n"
            const std::string module = readLine("a GLOBAL's module");
            const std::string name = readLine("a GLOBAL's name");
            push(global(module, name));
            break;
        }
        case 0x93: { // STACK_GLOBAL
            const uint32_t n = pop("STACK_GLOBAL"), m = pop("STACK_GLOBAL");
            if (m_objs[m].kind != Kind::Str || m_objs[n].kind != Kind::Str)
                fail("STACK_GLOBAL of something that is not two strings");
            push(global(m_objs[m].s, m_objs[n].s));
            break;
        }
        case 'i': { // INST "module\nname\n": instantiates a class
            const std::string module = readLine("an INST's module");
            const std::string name = readLine("an INST's name");
            (void)global(module, name); // refuses it, naming the class
            fail("INST of '" + module + "." + name + "': a weights file creates no objects");
        }
        case 'o': case 0x81: case 0x92: // OBJ, NEWOBJ, NEWOBJ_EX
            fail("the pickle creates an object (opcode " + hexByte(op) + "), which a weights file never does; the file "
                 "is refused and nothing in it is run", refusedHint());
        case 0x82: case 0x83: case 0x84: // EXT1/2/4
            fail("the pickle uses the copyreg extension registry (opcode " + hexByte(op) + "); the file is refused",
                 refusedHint());
        case 'R': {
            const uint32_t args = pop("REDUCE"), fn = pop("REDUCE");
            push(reduce(fn, args));
            break;
        }
        case 'b': { // BUILD: state dicts carry their _metadata this way
            const uint32_t state = pop("BUILD");
            const Obj &target = m_objs[top("BUILD")];
            if (target.kind != Kind::Dict || (m_objs[state].kind != Kind::Dict && m_objs[state].kind != Kind::None))
                fail(std::string("BUILD of a ") + kindName(target.kind) + " with a " + kindName(m_objs[state].kind)
                     + " (only an OrderedDict's attributes are read, and ignored)");
            break;
        }
        case 'Q': push(persistentLoad(pop("BINPERSID"))); break;
        default:
            fail("the pickle opcode " + hexByte(op) + " is not one torch.save writes for a state dict");
        }
    }
}

// --- the state dict ------------------------------------------------------------------------

/// Turns the unpickled object into the tensor table: a dict (OrderedDict or plain) of str → tensor.
std::vector<TorchTensorEntry> stateDictTensors(Unpickler &u, uint32_t root, const std::string &where)
{
    const Obj &d = u.obj(root);
    if (d.kind != Kind::Dict)
        throw Error(where, std::string("the file holds a ") + kindName(d.kind) + ", not a state dict (a dict of name → tensor)",
                    "save model.state_dict() itself: torch.save(model.state_dict(), 'pytorch_model.bin')");
    std::vector<TorchTensorEntry> out;
    std::map<std::string, size_t> index;
    for (size_t k = 0; k + 1 < d.items.size(); k += 2) {
        const Obj &key = u.obj(d.items[k]), &value = u.obj(d.items[k + 1]);
        if (key.kind != Kind::Str)
            throw Error(where, std::string("the state dict has a ") + kindName(key.kind) + " key, not a tensor name");
        if (value.kind != Kind::Tensor)
            throw Error(where + ": " + key.s, std::string("the state dict entry '") + key.s + "' is a " + kindName(value.kind)
                                                  + ", not a tensor",
                        "save model.state_dict() itself, not a dict that wraps it (e.g. {'model': …, 'optimizer': …})");
        TorchTensorEntry t = u.tensors()[size_t(value.i)];
        t.name = key.s;
        const auto [it, fresh] = index.emplace(key.s, out.size());
        if (fresh)
            out.push_back(std::move(t));
        else
            out[it->second] = std::move(t); // a repeated key: the later one wins, as in Python
    }
    return out;
}

/// A state dict's storages must exist in the file with exactly their elements.
void checkStorage(const std::string &path, const std::string &key, const TorchStorageEntry &s, uint64_t bytes,
                  uint64_t fileSize)
{
    const size_t elem = torchDtypeSize(s.dtype);
    if (s.numel > fileSize / elem || s.numel * elem != bytes)
        throw Error(path + ": storage " + key, "the storage holds " + std::to_string(bytes) + " bytes, but the state dict "
                        "needs " + std::to_string(s.numel) + " × " + std::to_string(elem) + " bytes",
                    "the file is truncated or corrupt; download or save it again");
    if (s.offset > fileSize || bytes > fileSize - s.offset)
        throw Error(path + ": storage " + key, "the storage runs past the end of the file",
                    "the file is truncated; download or save it again");
}

// --- zip format ----------------------------------------------------------------------------

struct ZipEntry
{
    uint16_t method = 0;
    uint16_t flags = 0;
    uint32_t crc = 0;
    uint64_t size = 0;     ///< uncompressed
    uint64_t csize = 0;    ///< compressed
    uint64_t header = 0;   ///< local header offset
};

std::map<std::string, ZipEntry> readZipDirectory(std::istream &in, uint64_t fileSize, const std::string &path)
{
    const auto corrupt = [&](const std::string &what) {
        return Error(path, "the zip archive is corrupt: " + what,
                     "the file is truncated or damaged; download or save it again");
    };
    // End of central directory record: within the last 22 + 65535 bytes (APPNOTE.TXT 4.3.16).
    const uint64_t tailSize = std::min<uint64_t>(fileSize, 22 + 65535);
    const std::string tail = readAt(in, fileSize, fileSize - tailSize, tailSize, path, "the end of the zip archive");
    size_t eocd = std::string::npos;
    for (size_t p = tail.size() >= 22 ? tail.size() - 22 + 1 : 0; p-- > 0;)
        if (tail.compare(p, 4, "PK\x05\x06") == 0 && p + 22 + le(tail, p + 20, 2) == tail.size()) {
            eocd = p;
            break;
        }
    if (eocd == std::string::npos)
        throw corrupt("no end-of-central-directory record (the file is cut short)");
    const uint64_t eocdAbs = fileSize - tailSize + eocd;
    uint64_t count = le(tail, eocd + 10, 2), cdSize = le(tail, eocd + 12, 4), cdOffset = le(tail, eocd + 16, 4);
    if (count == 0xFFFF || cdSize == 0xFFFFFFFF || cdOffset == 0xFFFFFFFF) {
        // ZIP64 end of central directory locator (20 bytes before) and record (APPNOTE.TXT 4.3.14-15).
        if (eocdAbs < 20)
            throw corrupt("a ZIP64 archive without its locator");
        const std::string loc = readAt(in, fileSize, eocdAbs - 20, 20, path, "the ZIP64 locator");
        if (loc.compare(0, 4, "PK\x06\x07") != 0)
            throw corrupt("a ZIP64 archive without its locator");
        const std::string rec = readAt(in, fileSize, le(loc, 8, 8), 56, path, "the ZIP64 end-of-central-directory record");
        if (rec.compare(0, 4, "PK\x06\x06") != 0)
            throw corrupt("the ZIP64 end-of-central-directory record is missing");
        count = le(rec, 32, 8);
        cdSize = le(rec, 40, 8);
        cdOffset = le(rec, 48, 8);
    }
    if (cdOffset > eocdAbs || cdSize > eocdAbs - cdOffset)
        throw corrupt("the central directory lies outside the file");
    if (cdSize > kMaxPickleBytes)
        throw corrupt("the central directory is " + std::to_string(cdSize) + " bytes, far more than torch.save writes");
    if (count > kMaxZipEntries || count > cdSize / 46)
        throw corrupt("the central directory claims " + std::to_string(count) + " entries in " + std::to_string(cdSize)
                      + " bytes");
    const std::string cd = readAt(in, fileSize, cdOffset, cdSize, path, "the central directory");
    std::map<std::string, ZipEntry> entries;
    size_t p = 0;
    for (uint64_t k = 0; k < count; ++k) {
        if (p + 46 > cd.size() || cd.compare(p, 4, "PK\x01\x02") != 0)
            throw corrupt("central directory entry " + std::to_string(k) + " is damaged");
        ZipEntry e;
        e.flags = uint16_t(le(cd, p + 8, 2));
        e.method = uint16_t(le(cd, p + 10, 2));
        e.crc = uint32_t(le(cd, p + 16, 4));
        e.csize = le(cd, p + 20, 4);
        e.size = le(cd, p + 24, 4);
        const size_t nameLen = le(cd, p + 28, 2), extraLen = le(cd, p + 30, 2), commentLen = le(cd, p + 32, 2);
        e.header = le(cd, p + 42, 4);
        if (p + 46 + nameLen + extraLen + commentLen > cd.size())
            throw corrupt("central directory entry " + std::to_string(k) + " runs past the directory");
        const std::string name = cd.substr(p + 46, nameLen);
        // ZIP64 extended information (header 0x0001): the fields that are 0xFFFFFFFF, in order.
        size_t x = p + 46 + nameLen;
        const size_t xEnd = x + extraLen;
        while (x + 4 <= xEnd) {
            const uint64_t id = le(cd, x, 2), len = le(cd, x + 2, 2);
            if (x + 4 + len > xEnd)
                throw corrupt("the extra field of '" + name + "' is damaged");
            if (id == 1) {
                size_t f = x + 4;
                for (uint64_t *field : {&e.size, &e.csize, &e.header})
                    if (*field == 0xFFFFFFFF) {
                        if (f + 8 > x + 4 + len)
                            throw corrupt("the ZIP64 field of '" + name + "' is too short");
                        *field = le(cd, f, 8);
                        f += 8;
                    }
            }
            x += 4 + len;
        }
        entries[name] = e;
        p += 46 + nameLen + extraLen + commentLen;
    }
    return entries;
}

/// Returns the absolute offset of an entry's data after checking its local header.
uint64_t zipDataOffset(std::istream &in, uint64_t fileSize, const std::string &name, const ZipEntry &e,
                       const std::string &path)
{
    const std::string h = readAt(in, fileSize, e.header, 30, path, "the zip header of '" + name + "'");
    if (h.compare(0, 4, "PK\x03\x04") != 0)
        throw Error(path, "the zip archive is corrupt: no local header for '" + name + "'",
                    "the file is truncated or damaged; download or save it again");
    if (e.flags & 1)
        throw Error(path, "the zip entry '" + name + "' is encrypted", "save the weights again without encryption");
    if (e.method != 0 || e.csize != e.size)
        throw Error(path, "the zip entry '" + name + "' is compressed (method " + std::to_string(e.method)
                              + "); torch.save stores its entries uncompressed",
                    "save the file again with torch.save, not re-zipped");
    const uint64_t off = e.header + 30 + le(h, 26, 2) + le(h, 28, 2);
    if (off > fileSize || e.size > fileSize - off)
        throw Error(path, "the zip entry '" + name + "' runs past the end of the file",
                    "the file is truncated; download or save it again");
    return off;
}

TorchCheckpoint parseZip(std::istream &in, uint64_t fileSize, const std::string &path)
{
    const std::map<std::string, ZipEntry> entries = readZipDirectory(in, fileSize, path);
    // The archive's top folder is named after the file (pytorch_model/…) or "archive".
    std::string prefix;
    for (const auto &[name, e] : entries) {
        const size_t slash = name.find('/');
        if (slash != std::string::npos && name.compare(slash, std::string::npos, "/data.pkl") == 0) {
            prefix = name.substr(0, slash + 1);
            break;
        }
    }
    if (prefix.empty())
        throw Error(path, "the zip archive has no <name>/data.pkl: it is not a torch.save file",
                    "pass a pytorch_model.bin written by torch.save, a safetensors file or a Hugging Face folder");
    if (const auto bo = entries.find(prefix + "byteorder"); bo != entries.end()) {
        const std::string order = readAt(in, fileSize, zipDataOffset(in, fileSize, bo->first, bo->second, path),
                                         std::min<uint64_t>(bo->second.size, 16), path, "the byteorder entry");
        if (order != "little")
            throw Error(path, "the tensors are stored in '" + order + "' byte order; only little-endian files are read",
                        "save the weights again on a little-endian machine (x86, ARM)");
    }
    const ZipEntry &pk = entries.at(prefix + "data.pkl");
    const std::string where = path + ": " + prefix + "data.pkl";
    if (pk.size > kMaxPickleBytes)
        throw Error(where, "the pickle is " + std::to_string(pk.size) + " bytes, far more than a state dict needs",
                    "the file is corrupt or not a state dict");
    const std::string pickle = readAt(in, fileSize, zipDataOffset(in, fileSize, prefix + "data.pkl", pk, path), pk.size,
                                      path, "data.pkl");
    if (crc32Update(0, reinterpret_cast<const unsigned char *>(pickle.data()), pickle.size()) != pk.crc)
        throw Error(where, "the CRC-32 of data.pkl does not match the archive's", "the file is corrupt; download it again");
    std::istringstream pin(pickle);
    Input input(pin, 0, pickle.size(), where);
    Unpickler u(input, where, true);
    const uint32_t root = u.run();
    TorchCheckpoint c;
    c.format = "zip";
    c.file_size = fileSize;
    c.tensors = stateDictTensors(u, root, where);
    for (const auto &[key, ref] : u.storages()) {
        const auto it = entries.find(prefix + "data/" + key);
        if (it == entries.end())
            throw Error(path + ": storage " + key, "the archive has no entry " + prefix + "data/" + key + " for a storage "
                                                   "the state dict uses",
                        "the file is incomplete; download or save it again");
        TorchStorageEntry s;
        s.dtype = ref.first;
        s.numel = ref.second;
        s.offset = zipDataOffset(in, fileSize, it->first, it->second, path);
        s.has_crc = true;
        s.crc32 = it->second.crc;
        checkStorage(path, key, s, it->second.size, fileSize);
        c.storages[key] = s;
    }
    return c;
}

// --- legacy format -------------------------------------------------------------------------

TorchCheckpoint parseLegacy(std::istream &in, uint64_t fileSize, const std::string &path)
{
    Input input(in, 0, fileSize, path);
    {
        Unpickler u(input, path, false);
        const Obj &magic = u.obj(u.run());
        // 0x1950a86a20f9469cfc6c, little-endian (torch/serialization.py MAGIC_NUMBER)
        if (magic.kind != Kind::BigInt || magic.s != std::string("\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 10))
            throw Error(path, "the file is a pickle but not a torch.save file (its first pickle is not torch's magic number)",
                        "pass a pytorch_model.bin written by torch.save, a safetensors file or a Hugging Face folder");
    }
    {
        Unpickler u(input, path, false);
        const Obj &version = u.obj(u.run());
        if (version.kind != Kind::Int || version.i != 1001)
            throw Error(path, "the torch.save protocol version is not 1001", "save the file again with a recent torch");
    }
    {
        Unpickler u(input, path, false);
        const Obj &info = u.obj(u.run());
        if (info.kind != Kind::Dict)
            throw Error(path, "torch.save's sys_info is not a dict", "the file is corrupt; download or save it again");
        for (size_t k = 0; k + 1 < info.items.size(); k += 2)
            if (u.obj(info.items[k]).kind == Kind::Str && u.obj(info.items[k]).s == "little_endian"
                && !(u.obj(info.items[k + 1]).kind == Kind::Bool && u.obj(info.items[k + 1]).i == 1))
                throw Error(path, "the file was saved on a big-endian machine; only little-endian files are read",
                            "save the weights again on a little-endian machine (x86, ARM)");
    }
    Unpickler u(input, path, true);
    const uint32_t root = u.run();
    TorchCheckpoint c;
    c.format = "legacy";
    c.file_size = fileSize;
    c.tensors = stateDictTensors(u, root, path);
    std::vector<std::string> keys;
    {
        Unpickler k(input, path, false);
        const Obj &list = k.obj(k.run());
        if (list.kind != Kind::List)
            throw Error(path, "the list of storage keys after the state dict is missing",
                        "the file is corrupt; download or save it again");
        for (uint32_t id : list.items) {
            if (k.obj(id).kind != Kind::Str)
                throw Error(path, "a storage key is not a string", "the file is corrupt; download or save it again");
            keys.push_back(k.obj(id).s);
        }
    }
    // Then per key: an int64 element count and the elements (torch/csrc/generic/serialization.cpp).
    uint64_t pos = input.pos();
    for (const std::string &key : keys) {
        const auto ref = u.storages().find(key);
        if (ref == u.storages().end())
            throw Error(path + ": storage " + key, "the file lists a storage that no tensor uses",
                        "the file is corrupt; download or save it again");
        const std::string n = readAt(in, fileSize, pos, 8, path, "the size of storage " + key);
        TorchStorageEntry s;
        s.dtype = ref->second.first;
        s.numel = ref->second.second;
        s.offset = pos + 8;
        if (le(n, 0, 8) != s.numel)
            throw Error(path + ": storage " + key, "the storage holds " + std::to_string(le(n, 0, 8))
                                                       + " elements, but the state dict says " + std::to_string(s.numel),
                        "the file is corrupt; download or save it again");
        const size_t elem = torchDtypeSize(s.dtype);
        if (s.numel > (fileSize - s.offset) / elem)
            throw Error(path + ": storage " + key, "the storage runs past the end of the " + std::to_string(fileSize)
                                                       + "-byte file",
                        "the file is truncated; download or save it again");
        checkStorage(path, key, s, s.numel * elem, fileSize);
        if (!c.storages.emplace(key, s).second)
            throw Error(path + ": storage " + key, "the storage is listed twice", "the file is corrupt; download or save it again");
        pos = s.offset + s.numel * elem;
    }
    for (const auto &[key, ref] : u.storages())
        if (!c.storages.count(key))
            throw Error(path + ": storage " + key, "the state dict uses a storage the file does not hold",
                        "the file is incomplete; download or save it again");
    return c;
}

} // namespace

const TorchTensorEntry *TorchCheckpoint::find(const std::string &name) const
{
    for (const auto &t : tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

size_t torchDtypeSize(const std::string &d)
{
    if (d == "F64" || d == "I64")
        return 8;
    if (d == "F32" || d == "I32")
        return 4;
    if (d == "F16" || d == "BF16" || d == "I16")
        return 2;
    if (d == "I8" || d == "U8" || d == "BOOL")
        return 1;
    return 0;
}

TorchCheckpoint readTorchCheckpoint(const std::string &path)
{
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        throw Error(path, "cannot open the PyTorch weights file", "check the path of --init_checkpoint");
    const auto size = in.tellg();
    if (size < 0)
        throw Error(path, "cannot determine the file size (is it a directory?)");
    in.seekg(0);
    return parseTorchCheckpoint(in, uint64_t(size), path);
}

TorchCheckpoint parseTorchCheckpoint(std::istream &in, uint64_t fileSize, const std::string &path)
{
    if (fileSize < 4)
        throw Error(path, "the file is " + std::to_string(fileSize) + " bytes, too short for a torch.save file",
                    "the file is truncated; download or save it again");
    const std::string head = readAt(in, fileSize, 0, 2, path, "the first bytes");
    if (head == "PK")
        return parseZip(in, fileSize, path);
    if (static_cast<unsigned char>(head[0]) == 0x80)
        return parseLegacy(in, fileSize, path);
    throw Error(path, "the file is neither a zip archive nor a pickle: it is not a torch.save file",
                "pass a pytorch_model.bin written by torch.save, a safetensors file or a Hugging Face folder");
}

void readTorchStorage(std::istream &in, const TorchCheckpoint &ckpt, const std::string &key, void *dst,
                      const std::string &path)
{
    const auto it = ckpt.storages.find(key);
    if (it == ckpt.storages.end())
        throw Error(path + ": storage " + key, "no such storage in the file");
    const TorchStorageEntry &s = it->second;
    const uint64_t bytes = s.numel * torchDtypeSize(s.dtype);
    in.clear();
    in.seekg(std::streamoff(s.offset));
    in.read(static_cast<char *>(dst), std::streamsize(bytes));
    if (!in || uint64_t(in.gcount()) != bytes)
        throw Error(path + ": storage " + key, "could not read the storage's " + std::to_string(bytes) + " bytes",
                    "the file is truncated; download or save it again");
    if (s.has_crc && crc32Update(0, static_cast<const unsigned char *>(dst), size_t(bytes)) != s.crc32)
        throw Error(path + ": storage " + key, "the CRC-32 of the storage does not match the archive's",
                    "the file is corrupt; download it again");
}

} // namespace wb
