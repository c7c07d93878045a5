// SPDX-License-Identifier: Apache-2.0
#include "core/util/cpucapability.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace wb {

namespace {

constexpr int kUnset = -1;
std::atomic<int> g_capability{kUnset};

CpuCapability lowerOf(CpuCapability a, CpuCapability b)
{
    return static_cast<CpuCapability>(std::min(static_cast<int>(a), static_cast<int>(b)));
}

CpuCapability capabilityFromEnvironment()
{
    std::string warning;
    const CpuCapability c = resolveCpuCapability(std::getenv("WB_CPU_CAPABILITY"), detectedCpuCapability(), &warning);
    if (!warning.empty())
        std::fprintf(stderr, "bert-workbench: %s\n", warning.c_str());
    return c;
}

} // namespace

CpuCapability detectedCpuCapability()
{
#if defined(__x86_64__) && defined(__GNUC__)
    static const CpuCapability detected = [] {
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f"))
            return CpuCapability::Avx512;
        if (__builtin_cpu_supports("avx2"))
            return CpuCapability::Avx2;
        return CpuCapability::Baseline;
    }();
    return detected;
#else
    return CpuCapability::Baseline;
#endif
}

CpuCapability resolveCpuCapability(const char *requested, CpuCapability detected, std::string *warning)
{
    if (!requested || !*requested)
        return detected;
    if (const auto parsed = parseCpuCapability(requested))
        return lowerOf(*parsed, detected);
    if (warning)
        *warning = std::string("WB_CPU_CAPABILITY=") + requested +
                   " is not one of default, avx2, avx512; it is ignored and the vector loops use " +
                   cpuCapabilityName(detected) + ".";
    return detected;
}

CpuCapability cpuCapability()
{
    int value = g_capability.load(std::memory_order_relaxed);
    if (value == kUnset) {
        int expected = kUnset;
        g_capability.compare_exchange_strong(expected, static_cast<int>(capabilityFromEnvironment()));
        value = g_capability.load(std::memory_order_relaxed);
    }
    return static_cast<CpuCapability>(value);
}

const char *cpuCapabilityName(CpuCapability capability)
{
    switch (capability) {
    case CpuCapability::Avx512:
        return "avx512";
    case CpuCapability::Avx2:
        return "avx2";
    case CpuCapability::Baseline:
        break;
    }
    return "default";
}

std::optional<CpuCapability> parseCpuCapability(const std::string &name)
{
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char ch) { return char(std::tolower(ch)); });
    for (const CpuCapability c : {CpuCapability::Baseline, CpuCapability::Avx2, CpuCapability::Avx512})
        if (lower == cpuCapabilityName(c))
            return c;
    return std::nullopt;
}

ScopedCpuCapability::ScopedCpuCapability(CpuCapability capability) : m_previous(cpuCapability())
{
    g_capability.store(static_cast<int>(lowerOf(capability, detectedCpuCapability())), std::memory_order_relaxed);
}

ScopedCpuCapability::~ScopedCpuCapability()
{
    g_capability.store(static_cast<int>(m_previous), std::memory_order_relaxed);
}

CpuCapability ScopedCpuCapability::active() const
{
    return static_cast<CpuCapability>(g_capability.load(std::memory_order_relaxed));
}

} // namespace wb
