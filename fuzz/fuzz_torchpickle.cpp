// SPDX-License-Identifier: Apache-2.0
// Fuzzes the weights-only reader of torch.save files (--init_checkpoint pytorch_model.bin):
// parseTorchCheckpoint on the input as a whole file (zip directory and ZIP64 records, local
// headers, data.pkl's CRC, the legacy format's five pickles, every pickle opcode, persistent
// ids, rebuild calls, views against their storages, storages against the file).
#include "core/weights/torchpickle.h"
#include "core/util/error.h"

#include <cstdlib>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    std::istringstream in(std::string(reinterpret_cast<const char *>(data), size));
    try {
        const wb::TorchCheckpoint c = wb::parseTorchCheckpoint(in, size, "fuzz.bin");
        for (const auto &[key, s] : c.storages) {
            const size_t elem = wb::torchDtypeSize(s.dtype);
            if (elem == 0 || s.offset > size || s.numel > (size - s.offset) / elem)
                std::abort(); // accepted a storage outside the file
        }
        for (const auto &t : c.tensors) {
            const auto it = c.storages.find(t.storage);
            if (it == c.storages.end() || it->second.dtype != t.dtype || t.shape.size() != t.stride.size())
                std::abort(); // accepted a tensor without its storage
            bool empty = false;
            for (int64_t d : t.shape)
                empty |= d == 0;
            if (empty)
                continue;
            unsigned __int128 last = uint64_t(t.storage_offset);
            for (size_t d = 0; d < t.shape.size(); ++d)
                last += static_cast<unsigned __int128>(uint64_t(t.shape[d] - 1)) * uint64_t(t.stride[d]);
            if (t.storage_offset < 0 || last >= it->second.numel)
                std::abort(); // accepted a view outside its storage
            (void)c.find(t.name);
        }
    } catch (const wb::Error &e) {
        if (std::string(e.what()).empty() || e.field().empty())
            std::abort();
    }
    return 0;
}
