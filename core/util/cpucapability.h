// SPDX-License-Identifier: Apache-2.0
// Torch-free: which instruction-set variant of the workbench's own vector loops runs
// (core/kernels/rowkernels.cpp, core/engine/adamwupdate.cpp), and a way to pick a lower one so that
// every variant can be tested, and timed, on one machine.
#pragma once

#include <optional>
#include <string>

namespace wb {

/// The instruction sets the vector loops are compiled for, lowest first. `Baseline` is the x86-64
/// baseline (SSE2), and the only variant on other architectures.
enum class CpuCapability { Baseline = 0, Avx2 = 1, Avx512 = 2 };

/// The highest variant this CPU and its operating system support (cpuid and the saved vector state,
/// as GCC's __builtin_cpu_supports reads them). Thread-safe.
CpuCapability detectedCpuCapability();

/// The variant the vector loops use: detectedCpuCapability(), or lower where the environment
/// variable WB_CPU_CAPABILITY asks for it (`default`, `avx2` or `avx512`, the names ATen's
/// ATEN_CPU_CAPABILITY uses, in any letter case), or where a ScopedCpuCapability is alive. A request above what the CPU
/// supports is lowered to what it supports; an unknown name is reported once on stderr and ignored.
/// Read once, on first use. Thread-safe; a relaxed atomic load after the first call.
CpuCapability cpuCapability();

/// What WB_CPU_CAPABILITY = `requested` gives on a CPU whose best is `detected` (cpuCapability()'s
/// rule): `requested` null or empty gives `detected`; a name gives the lower of it and `detected`;
/// any other string gives `detected` and, where `warning` is not null, a sentence saying so.
CpuCapability resolveCpuCapability(const char *requested, CpuCapability detected, std::string *warning = nullptr);

/// "default", "avx2" or "avx512": the names WB_CPU_CAPABILITY takes.
const char *cpuCapabilityName(CpuCapability capability);

/// The capability of a name as cpuCapabilityName writes it, in any letter case ("AVX2" as
/// ONEDNN_MAX_CPU_ISA spells it); nullopt for any other string.
std::optional<CpuCapability> parseCpuCapability(const std::string &name);

/// For tests and benchmarks: makes cpuCapability() return min(capability, detectedCpuCapability())
/// while the object lives, then what it returned before. Thread rule: create and destroy it while no
/// other thread runs the vector loops.
class ScopedCpuCapability
{
public:
    explicit ScopedCpuCapability(CpuCapability capability);
    ~ScopedCpuCapability();
    ScopedCpuCapability(const ScopedCpuCapability &) = delete;
    ScopedCpuCapability &operator=(const ScopedCpuCapability &) = delete;

    /// What cpuCapability() returns while this object lives.
    CpuCapability active() const;

private:
    CpuCapability m_previous;
};

} // namespace wb
