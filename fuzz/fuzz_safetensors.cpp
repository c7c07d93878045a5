// SPDX-License-Identifier: Apache-2.0
// Fuzzes the safetensors header and tensor table (--init_checkpoint model.safetensors):
// parseSafetensorsHeader on the input as a whole file (8-byte length, JSON header, dtype,
// shape and data_offsets of every tensor, gaps, overlaps, trailing bytes).
#include "core/weights/safetensors.h"
#include "core/util/error.h"

#include <cstdlib>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    std::istringstream in(std::string(reinterpret_cast<const char *>(data), size));
    try {
        const wb::SafetensorsHeader h = wb::parseSafetensorsHeader(in, size, "fuzz.safetensors");
        uint64_t covered = 0;
        for (const auto &e : h.tensors) {
            if (e.begin > e.end || e.end > size - h.data_start)
                std::abort(); // accepted a tensor outside the file
            covered += e.end - e.begin;
            (void)h.find(e.name);
        }
        if (covered != size - h.data_start)
            std::abort(); // accepted gaps, overlaps or trailing bytes
    } catch (const wb::Error &e) {
        if (std::string(e.what()).empty() || e.field().empty())
            std::abort();
    }
    return 0;
}
