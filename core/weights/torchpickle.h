// SPDX-License-Identifier: Apache-2.0
#pragma once

// The weights-only reader of PyTorch's torch.save files (pytorch_model.bin, .pt, .pth):
// torch-free, so that it can be fuzzed (fuzz/fuzz_torchpickle.cpp). It executes nothing: the
// pickle is run by a restricted machine that knows only what a state dict needs, the same
// guarantee as torch.load(weights_only=True) (pytorch/pytorch torch/_weights_only_unpickler.py).

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace wb {

/// One tensor of a torch.save state dict: a strided view of a storage.
struct TorchTensorEntry
{
    std::string name;
    std::string dtype;            ///< the storage's element type, in safetensors spelling: "F32", "F16", "BF16", "F64", "I64", "I32", "I16", "I8", "U8", "BOOL"
    std::vector<int64_t> shape;   ///< [] is a scalar
    std::vector<int64_t> stride;  ///< in elements, one per dimension, ≥ 0
    int64_t storage_offset = 0;   ///< in elements
    std::string storage;          ///< key into TorchCheckpoint::storages
};

/// Where one storage's raw little-endian elements lie in the file.
struct TorchStorageEntry
{
    std::string dtype;      ///< as TorchTensorEntry::dtype
    uint64_t numel = 0;     ///< elements
    uint64_t offset = 0;    ///< absolute byte offset of the first element
    bool has_crc = false;   ///< zip format: the archive entry's CRC-32 is checked when read
    uint32_t crc32 = 0;
};

/// The parsed and bounds-checked table of a torch.save file, without the tensor data.
struct TorchCheckpoint
{
    std::string format;                              ///< "zip" (torch.save since 1.6) or "legacy" (_use_new_zipfile_serialization=False)
    std::vector<TorchTensorEntry> tensors;           ///< in state-dict order
    std::map<std::string, TorchStorageEntry> storages;
    uint64_t file_size = 0;

    /// Returns the tensor named `name`, or nullptr.
    const TorchTensorEntry *find(const std::string &name) const;
};

/// Reads and checks the table of the torch.save file `path` (both formats) without reading
/// the storages: see parseTorchCheckpoint(). Throws wb::Error with `path` as field. Thread-safe.
TorchCheckpoint readTorchCheckpoint(const std::string &path);

/// The parsing half of readTorchCheckpoint(), without file access (the fuzz target feeds it
/// memory): `in` is a file of `fileSize` bytes.
///  * zip (pytorch/pytorch caffe2/serialize/inline_container.h): `<archive>/data.pkl`,
///    `<archive>/data/<key>` stored (uncompressed) entries, optional `<archive>/byteorder`
///    ("little"); ZIP64 records are read; data.pkl's CRC-32 is checked.
///  * legacy (torch/serialization.py _legacy_save): the pickles of the magic number
///    0x1950a86a20f9469cfc6c, the protocol version 1001 and sys_info (little_endian must be
///    true), the state dict, the list of storage keys, then per key an int64 element count
///    and the elements.
/// The pickle (protocols 2–5) may use only collections.OrderedDict,
/// torch._utils._rebuild_tensor_v2 / _rebuild_tensor / _rebuild_parameter and the storage
/// classes torch.{Float,Half,BFloat16,Double,Long,Int,Short,Char,Byte,Bool}Storage and
/// torch.UntypedStorage; any other global (GLOBAL, STACK_GLOBAL, INST), object creation
/// (OBJ, NEWOBJ) or extension code is refused before anything is built, with an error naming
/// the global. The result must be a dict of name → tensor; every view must lie inside its
/// storage and every storage inside the file. Sizes are checked against `fileSize` before
/// anything is allocated. Throws wb::Error (field `path`, or `path: tensor`). Thread-safe.
TorchCheckpoint parseTorchCheckpoint(std::istream &in, uint64_t fileSize, const std::string &path);

/// Returns the byte size of one element of a storage dtype ("F32" → 4), or 0 when unknown.
size_t torchDtypeSize(const std::string &dtype);

/// Reads the `numel` elements of storage `key` of `ckpt` from `in` (the file it was parsed
/// from) into `dst` (numel × element size bytes); checks the zip entry's CRC-32. Throws
/// wb::Error naming `path` and the storage on a short read or a checksum mismatch.
void readTorchStorage(std::istream &in, const TorchCheckpoint &ckpt, const std::string &key, void *dst,
                      const std::string &path);

} // namespace wb
