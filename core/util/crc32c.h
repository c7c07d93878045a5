// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>

namespace wb {

/// Returns the CRC32C (Castagnoli, reflected polynomial 0x82F63B78, init and final XOR
/// 0xFFFFFFFF) of `size` bytes, continuing from `crc` (0 for a fresh checksum).
/// crc32c("123456789") = 0xE3069283. Uses the SSE4.2 instruction when the CPU has it,
/// else a slicing-by-8 table. Thread-safe.
uint32_t crc32c(const void *data, size_t size, uint32_t crc = 0);

/// Same as crc32c() but always the portable table implementation (for tests).
uint32_t crc32cPortable(const void *data, size_t size, uint32_t crc = 0);

/// TFRecord's masked CRC (tensorflow/core/lib/hash/crc32c.h Mask): ((crc >> 15) | (crc << 17)) + 0xa282ead8, mod 2^32.
inline uint32_t maskCrc(uint32_t crc)
{
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

/// Inverse of maskCrc().
inline uint32_t unmaskCrc(uint32_t masked)
{
    const uint32_t rot = masked - 0xa282ead8u;
    return (rot >> 17) | (rot << 15);
}

} // namespace wb
