// SPDX-License-Identifier: Apache-2.0
#include "core/weights/torchunpickler.h"

#include "core/util/hex.h"

#include <cstring>

namespace wb::torchpickle_detail {

std::string hexByte(unsigned v)
{
    std::string out = "0x";
    appendHexByte(out, static_cast<unsigned char>(v & 255));
    return out;
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
    case Fn::OrderedDict:
        return orderedDict(args);
    case Fn::RebuildTensorV2:
    case Fn::RebuildTensor:
        return rebuildTensor(args, Fn(fn.i) == Fn::RebuildTensorV2);
    case Fn::RebuildParameter: // _rebuild_parameter(data, requires_grad, backward_hooks)
        if (args.size() != 3 || m_objs[args[0]].kind != Kind::Tensor)
            fail("_rebuild_parameter with arguments other than (tensor, requires_grad, backward_hooks)");
        return args[0];
    case Fn::StorageType:
        fail("a storage class called as a function");
    }
    fail("REDUCE of an unknown function");
}

uint32_t Unpickler::orderedDict(const std::vector<uint32_t> &args)
{
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

/// The last element the view `t` touches must lie inside its storage of `numel` elements
/// (overflow-checked), and the view must not have far more elements than the storage.
void Unpickler::checkView(const TorchTensorEntry &t, uint64_t numel)
{
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
                 + std::to_string(numel) + "-element storage '" + t.storage + "'");
        if (outside)
            fail("a tensor view of size (" + sizeText() + ") reaches past the end of its " + std::to_string(numel) + "-element storage '" + t.storage + "'");
    }
}

uint32_t Unpickler::rebuildTensor(const std::vector<uint32_t> &args, bool v2)
{
    // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
    // _rebuild_tensor(storage, storage_offset, size, stride) (torch/_utils.py)
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
    checkView(t, m_storages.at(storage.s).second);
    m_tensors.push_back(std::move(t));
    Obj o;
    o.kind = Kind::Tensor;
    o.i = int64_t(m_tensors.size() - 1);
    return make(std::move(o));
}

bool Unpickler::frameOrMemoOp(unsigned op)
{
    // PROTO, FRAME, MARK, POP, the memo
    switch (op) {
    case 0x80: { // PROTO
        const unsigned v = m_in.byte("PROTO");
        if (v < 2 || v > 5)
            fail("pickle protocol " + std::to_string(v) + " (torch.save writes 2 to 5)");
        return true;
    }
    case 0x95: // FRAME: a length hint only
        if (m_in.uint(8, "FRAME") > m_in.left())
            fail("a FRAME longer than the rest of the pickle");
        return true;
    case '(': // MARK
        if (m_marks.size() >= kMaxStack)
            fail("the pickle nests more than " + std::to_string(kMaxStack) + " MARKs");
        m_marks.push_back(m_stack.size());
        return true;
    case '0': pop("POP"); return true;
    case '1': popMark("POP_MARK"); return true;
    case 'q': {
        const uint64_t slot = m_in.byte("BINPUT");
        memo(slot, top("BINPUT"));
        return true;
    }
    case 'r': {
        const uint64_t slot = m_in.uint(4, "LONG_BINPUT");
        memo(slot, top("LONG_BINPUT"));
        return true;
    }
    case 0x94: // MEMOIZE
        memo(m_memo.size(), top("MEMOIZE"));
        return true;
    case 'h':
    case 'j': {
        const uint64_t k = op == 'h' ? m_in.byte("BINGET") : m_in.uint(4, "LONG_BINGET");
        const auto it = m_memo.find(k);
        if (it == m_memo.end())
            fail("BINGET of memo slot " + std::to_string(k) + ", which was never stored");
        push(it->second);
        return true;
    }
    default:
        return false;
    }
}

bool Unpickler::scalarOp(unsigned op)
{
    // None, bool, int, float, str and bytes
    switch (op) {
    case 'N': push(make(Obj{})); return true;
    case 0x88:
    case 0x89: {
        Obj o;
        o.kind = Kind::Bool;
        o.i = op == 0x88;
        push(make(std::move(o)));
        return true;
    }
    case 'K': push(makeInt(int64_t(m_in.byte("BININT1")))); return true;
    case 'M': push(makeInt(int64_t(m_in.uint(2, "BININT2")))); return true;
    case 'J': push(makeInt(int64_t(int32_t(uint32_t(m_in.uint(4, "BININT")))))); return true;
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
        return true;
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
        return true;
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
        return true;
    }
    default:
        return false;
    }
}

bool Unpickler::containerOp(unsigned op)
{
    // tuple, list, dict and their items
    switch (op) {
    case ')': { Obj o; o.kind = Kind::Tuple; push(make(std::move(o))); return true; }
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
        return true;
    }
    case ']': case 'l': {
        Obj o;
        o.kind = Kind::List;
        if (op == 'l')
            o.items = popMark("LIST");
        count(o.items.size());
        push(make(std::move(o)));
        return true;
    }
    case 'a': case 'e': {
        const std::vector<uint32_t> items = op == 'e' ? popMark("APPENDS") : std::vector<uint32_t>{pop("APPEND")};
        const uint32_t list = top(op == 'e' ? "APPENDS" : "APPEND");
        if (m_objs[list].kind != Kind::List)
            fail(std::string("APPEND to a ") + kindName(m_objs[list].kind) + ", not a list");
        count(items.size());
        m_objs[list].items.insert(m_objs[list].items.end(), items.begin(), items.end());
        return true;
    }
    case '}': case 'd': {
        Obj o;
        o.kind = Kind::Dict;
        const uint32_t id = make(std::move(o));
        if (op == 'd')
            setItems(id, popMark("DICT"), "DICT");
        push(id);
        return true;
    }
    case 's': {
        const uint32_t v = pop("SETITEM"), k = pop("SETITEM");
        setItems(top("SETITEM"), {k, v}, "SETITEM");
        return true;
    }
    case 'u': {
        const std::vector<uint32_t> kv = popMark("SETITEMS");
        setItems(top("SETITEMS"), kv, "SETITEMS");
        return true;
    }
    default:
        return false;
    }
}

bool Unpickler::callOp(unsigned op)
{
    // globals (only those of a state dict), REDUCE, BUILD, storages; object creation is refused
    switch (op) {
    case 'c': { // GLOBAL "module\nname\n"
        const std::string module = readLine("a GLOBAL's module");
        const std::string name = readLine("a GLOBAL's name");
        push(global(module, name));
        return true;
    }
    case 0x93: { // STACK_GLOBAL
        const uint32_t n = pop("STACK_GLOBAL"), m = pop("STACK_GLOBAL");
        if (m_objs[m].kind != Kind::Str || m_objs[n].kind != Kind::Str)
            fail("STACK_GLOBAL of something that is not two strings");
        push(global(m_objs[m].s, m_objs[n].s));
        return true;
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
        return true;
    }
    case 'b': { // BUILD: state dicts carry their _metadata this way
        const uint32_t state = pop("BUILD");
        const Obj &target = m_objs[top("BUILD")];
        if (target.kind != Kind::Dict || (m_objs[state].kind != Kind::Dict && m_objs[state].kind != Kind::None))
            fail(std::string("BUILD of a ") + kindName(target.kind) + " with a " + kindName(m_objs[state].kind)
                 + " (only an OrderedDict's attributes are read, and ignored)");
        return true;
    }
    case 'Q': push(persistentLoad(pop("BINPERSID"))); return true;
    default:
        return false;
    }
}

uint32_t Unpickler::run()
{
    for (;;) {
        m_opPos = m_in.pos();
        const unsigned op = m_in.byte("an opcode");
        if (op == '.') { // STOP
            if (m_stack.size() != 1 || !m_marks.empty())
                fail("STOP with " + std::to_string(m_stack.size()) + " objects on the stack");
            return m_stack.back();
        }
        if (!frameOrMemoOp(op) && !scalarOp(op) && !containerOp(op) && !callOp(op))
            fail("the pickle opcode " + hexByte(op) + " is not one torch.save writes for a state dict");
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

} // namespace wb::torchpickle_detail
