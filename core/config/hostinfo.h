// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace wb {

/// Returns the machine's physical memory in bytes (sysconf(_SC_PHYS_PAGES) ×
/// sysconf(_SC_PAGE_SIZE)), or 0 when the system does not say. Thread-safe.
int64_t physicalMemoryBytes();

/// Returns the CPU feature flags of the first processor in `cpuinfoPath` (the "flags"
/// line on x86, "Features" on ARM), e.g. {"avx2", "avx512_bf16", …}; empty when the file
/// is missing or has no such line. Reads the file; thread-safe.
std::set<std::string> cpuFlags(const std::string &cpuinfoPath = "/proc/cpuinfo");

/// Whether the CPU computes bfloat16 matmuls natively: x86 avx512_bf16 or amx_bf16, ARM
/// bf16. Nothing when the flags cannot be read (then no warning should be given).
std::optional<bool> cpuHasNativeBf16(const std::string &cpuinfoPath = "/proc/cpuinfo");

} // namespace wb
