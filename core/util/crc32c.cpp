// SPDX-License-Identifier: Apache-2.0
#include "core/util/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define WB_CRC32C_SSE42 1
#endif

namespace wb {

namespace {

using Tables = std::array<std::array<uint32_t, 256>, 8>;

Tables makeTables()
{
    Tables t{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int k = 0; k < 8; ++k)
            c = (c & 1u) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
        for (size_t k = 1; k < 8; ++k)
            t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFFu];
    return t;
}

const Tables &tables()
{
    static const Tables t = makeTables();
    return t;
}

#ifdef WB_CRC32C_SSE42
__attribute__((target("sse4.2"))) uint32_t crc32cHardware(const unsigned char *p, size_t n, uint32_t crc)
{
    uint64_t c = ~crc;
    while (n >= 8) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
        p += 8;
        n -= 8;
    }
    uint32_t c32 = static_cast<uint32_t>(c);
    while (n--)
        c32 = _mm_crc32_u8(c32, *p++);
    return ~c32;
}

bool hasSse42()
{
    static const bool has = __builtin_cpu_supports("sse4.2");
    return has;
}
#endif

} // namespace

uint32_t crc32cPortable(const void *data, size_t size, uint32_t crc)
{
    const Tables &t = tables();
    const auto *p = static_cast<const unsigned char *>(data);
    uint32_t c = ~crc;
    while (size >= 8) {
        uint32_t lo, hi;
        std::memcpy(&lo, p, 4);
        std::memcpy(&hi, p + 4, 4);
        lo ^= c;
        c = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24]
            ^ t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF] ^ t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
        p += 8;
        size -= 8;
    }
    while (size--)
        c = (c >> 8) ^ t[0][(c ^ *p++) & 0xFF];
    return ~c;
}

uint32_t crc32c(const void *data, size_t size, uint32_t crc)
{
#ifdef WB_CRC32C_SSE42
    if (hasSse42())
        return crc32cHardware(static_cast<const unsigned char *>(data), size, crc);
#endif
    return crc32cPortable(data, size, crc);
}

} // namespace wb
