// SPDX-License-Identifier: Apache-2.0
#include "core/weights/torchpickle.h"

#include "core/util/error.h"
#include "core/weights/safetensors.h"
#include "core/weights/weightsfile.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <istream>
#include <sstream>
#include <unordered_map>

#include "core/weights/torchunpickler.h"

namespace wb {

namespace {

using namespace torchpickle_detail;

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

/// Runs the pickle of `u` (a state dict) and returns the checkpoint of its tensors, before
/// their storages are located in the file (`format`: "zip" or "legacy").
TorchCheckpoint unpickleStateDict(Unpickler &u, const std::string &where, const char *format, uint64_t fileSize)
{
    const uint32_t root = u.run();
    TorchCheckpoint c;
    c.format = format;
    c.file_size = fileSize;
    c.tensors = stateDictTensors(u, root, where);
    return c;
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

/// The error for a zip archive that is corrupt; `what` says how.
Error zipCorrupt(const std::string &path, const std::string &what)
{
    return Error(path, "the zip archive is corrupt: " + what, "the file is truncated or damaged; download or save it again");
}

/// Where the central directory lies, as the end-of-central-directory record says.
struct ZipDirectoryExtent
{
    uint64_t eocd = 0;     ///< the end-of-central-directory record's offset in the file
    uint64_t count = 0;    ///< entries
    uint64_t size = 0;     ///< bytes
    uint64_t offset = 0;
};

/// Replaces `d`'s count, size and offset with those of the ZIP64 end-of-central-directory record,
/// found through its locator 20 bytes before the end-of-central-directory record (APPNOTE.TXT 4.3.14-15).
void readZip64EndOfDirectory(std::istream &in, uint64_t fileSize, const std::string &path, ZipDirectoryExtent &d)
{
    if (d.eocd < 20)
        throw zipCorrupt(path, "a ZIP64 archive without its locator");
    const std::string loc = readAt(in, fileSize, d.eocd - 20, 20, path, "the ZIP64 locator");
    if (loc.compare(0, 4, "PK\x06\x07") != 0)
        throw zipCorrupt(path, "a ZIP64 archive without its locator");
    const std::string rec = readAt(in, fileSize, le(loc, 8, 8), 56, path, "the ZIP64 end-of-central-directory record");
    if (rec.compare(0, 4, "PK\x06\x06") != 0)
        throw zipCorrupt(path, "the ZIP64 end-of-central-directory record is missing");
    d.count = le(rec, 32, 8);
    d.size = le(rec, 40, 8);
    d.offset = le(rec, 48, 8);
}

/// Finds the end of central directory record (within the last 22 + 65535 bytes, APPNOTE.TXT
/// 4.3.16) and returns the central directory's extent from it or from its ZIP64 record.
ZipDirectoryExtent readEndOfDirectory(std::istream &in, uint64_t fileSize, const std::string &path)
{
    const uint64_t tailSize = std::min<uint64_t>(fileSize, 22 + 65535);
    const std::string tail = readAt(in, fileSize, fileSize - tailSize, tailSize, path, "the end of the zip archive");
    size_t eocd = std::string::npos;
    for (size_t p = tail.size() >= 22 ? tail.size() - 22 + 1 : 0; p-- > 0;)
        if (tail.compare(p, 4, "PK\x05\x06") == 0 && p + 22 + le(tail, p + 20, 2) == tail.size()) {
            eocd = p;
            break;
        }
    if (eocd == std::string::npos)
        throw zipCorrupt(path, "no end-of-central-directory record (the file is cut short)");
    ZipDirectoryExtent d;
    d.eocd = fileSize - tailSize + eocd;
    d.count = le(tail, eocd + 10, 2);
    d.size = le(tail, eocd + 12, 4);
    d.offset = le(tail, eocd + 16, 4);
    if (d.count == 0xFFFF || d.size == 0xFFFFFFFF || d.offset == 0xFFFFFFFF)
        readZip64EndOfDirectory(in, fileSize, path, d);
    return d;
}

/// Applies the ZIP64 extended information (extra field header 0x0001) in cd[x, xEnd) of the
/// entry `name`: it holds the fields of `e` that are 0xFFFFFFFF, in order.
void readZip64Extra(const std::string &cd, size_t x, size_t xEnd, const std::string &name, ZipEntry &e,
                    const std::string &path)
{
    while (x + 4 <= xEnd) {
        const uint64_t id = le(cd, x, 2), len = le(cd, x + 2, 2);
        if (x + 4 + len > xEnd)
            throw zipCorrupt(path, "the extra field of '" + name + "' is damaged");
        if (id == 1) {
            size_t f = x + 4;
            for (uint64_t *field : {&e.size, &e.csize, &e.header})
                if (*field == 0xFFFFFFFF) {
                    if (f + 8 > x + 4 + len)
                        throw zipCorrupt(path, "the ZIP64 field of '" + name + "' is too short");
                    *field = le(cd, f, 8);
                    f += 8;
                }
        }
        x += 4 + len;
    }
}

/// Reads central directory entry `k`, at offset `p` of the directory `cd`, into `name` and `e`.
/// Returns the entry's length in bytes.
size_t readCentralEntry(const std::string &cd, size_t p, uint64_t k, const std::string &path, std::string &name,
                        ZipEntry &e)
{
    if (p + 46 > cd.size() || cd.compare(p, 4, "PK\x01\x02") != 0)
        throw zipCorrupt(path, "central directory entry " + std::to_string(k) + " is damaged");
    e.flags = uint16_t(le(cd, p + 8, 2));
    e.method = uint16_t(le(cd, p + 10, 2));
    e.crc = uint32_t(le(cd, p + 16, 4));
    e.csize = le(cd, p + 20, 4);
    e.size = le(cd, p + 24, 4);
    const size_t nameLen = le(cd, p + 28, 2), extraLen = le(cd, p + 30, 2), commentLen = le(cd, p + 32, 2);
    e.header = le(cd, p + 42, 4);
    if (p + 46 + nameLen + extraLen + commentLen > cd.size())
        throw zipCorrupt(path, "central directory entry " + std::to_string(k) + " runs past the directory");
    name = cd.substr(p + 46, nameLen);
    readZip64Extra(cd, p + 46 + nameLen, p + 46 + nameLen + extraLen, name, e, path);
    return 46 + nameLen + extraLen + commentLen;
}

std::map<std::string, ZipEntry> readZipDirectory(std::istream &in, uint64_t fileSize, const std::string &path)
{
    const ZipDirectoryExtent d = readEndOfDirectory(in, fileSize, path);
    if (d.offset > d.eocd || d.size > d.eocd - d.offset)
        throw zipCorrupt(path, "the central directory lies outside the file");
    if (d.size > kMaxPickleBytes)
        throw zipCorrupt(path, "the central directory is " + std::to_string(d.size)
                                   + " bytes, far more than torch.save writes");
    if (d.count > kMaxZipEntries || d.count > d.size / 46)
        throw zipCorrupt(path, "the central directory claims " + std::to_string(d.count) + " entries in "
                                   + std::to_string(d.size) + " bytes");
    const std::string cd = readAt(in, fileSize, d.offset, d.size, path, "the central directory");
    std::map<std::string, ZipEntry> entries;
    size_t p = 0;
    for (uint64_t k = 0; k < d.count; ++k) {
        std::string name;
        ZipEntry e;
        p += readCentralEntry(cd, p, k, path, name, e);
        entries[name] = e;
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
    TorchCheckpoint c = unpickleStateDict(u, where, "zip", fileSize);
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
    TorchCheckpoint c = unpickleStateDict(u, path, "legacy", fileSize);
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
    return entryNamed(tensors, name);
}

size_t torchDtypeSize(const std::string &d)
{
    // The storage dtypes are named as safetensors names them; torch 1.13 has no U16, U32, U64.
    return d == "U16" || d == "U32" || d == "U64" ? 0 : safetensorsDtypeSize(d);
}

TorchCheckpoint readTorchCheckpoint(const std::string &path)
{
    uint64_t size = 0;
    std::ifstream in = openWeightsFile(path, "the PyTorch weights file", &size);
    return parseTorchCheckpoint(in, size, path);
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
