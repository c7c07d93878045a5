// SPDX-License-Identifier: Apache-2.0
// Fuzzes TFRecord framing (length, masked CRC32C of the length, payload, masked CRC32C of
// the payload) in plain, GZIP and ZLIB files. The first byte picks the mode: 0 the rest is
// the file as is (plain, or a damaged compressed stream); 1 the rest is an uncompressed
// record stream that the target GZIP-compresses; 2 the same, ZLIB-compressed; 3 as 0 but
// with skip(false) (length CRC only, payload not read) instead of read().
#include "core/data/tfrecordreader.h"
#include "core/util/error.h"
#include "fuzz/fuzzinput.h"

#include <cstdlib>
#include <string>
#include <zlib.h>

namespace {

std::string compress(const uint8_t *data, size_t size, bool gzip)
{
    z_stream zs{};
    if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, gzip ? 15 + 16 : 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        std::abort();
    std::string out(deflateBound(&zs, uLong(size)) + 32, '\0');
    zs.next_in = const_cast<Bytef *>(data);
    zs.avail_in = uInt(size);
    zs.next_out = reinterpret_cast<Bytef *>(out.data());
    zs.avail_out = uInt(out.size());
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
        std::abort();
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::MemoryFile file;
    if (size < 1)
        return 0;
    const int mode = data[0] % 4;
    ++data;
    --size;
    std::string packed;
    if (mode == 1 || mode == 2) {
        packed = compress(data, size, mode == 1);
        data = reinterpret_cast<const uint8_t *>(packed.data());
        size = packed.size();
    }
    try {
        wb::TFRecordReader reader(file.write(data, size));
        std::string payload;
        int64_t records = 0;
        while (mode == 3 ? reader.skip(false) : reader.read(payload)) {
            if (payload.size() > size * 1100 + 64) // zlib expands at most ~1032:1
                std::abort();
            ++records;
        }
        (void)reader.location();
        (void)records;
    } catch (const wb::Error &e) {
        if (std::string(e.what()).empty() || e.field().empty())
            std::abort(); // every error must say what and where
    }
    return 0;
}
