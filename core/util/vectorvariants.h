// SPDX-License-Identifier: Apache-2.0
// One vector loop compiled for AVX-512, AVX2 and the x86-64 baseline, and called in the variant
// cpuCapability() names (core/util/cpucapability.h). Unlike GCC's target_clones, whose loader picks
// the variant once per process from the CPU alone, this lets tests run every variant on one
// machine and benchmarks time a lower one.
//
// Usage, in a .cpp file: the loop is a function `nameBody` marked WB_VECTOR_BODY (and every helper
// it calls WB_VECTOR_BODY too, so that each is compiled inside each variant), then
//     WB_VECTOR_VARIANTS(void, name, (const float *__restrict x, int64_t n), (x, n))
// defines `void name(const float *x, int64_t n)` with that signature. The variants use the same
// source order of operations and neither enables FMA contraction, so they give the same bits.
#pragma once

#include "core/util/cpucapability.h"

#define WB_VECTOR_BODY [[gnu::always_inline]] static inline

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define WB_VECTOR_VARIANTS(ret, name, params, args)                                                                    \
    [[gnu::target("avx512f")]] static ret name##Avx512 params { return name##Body args; }                            \
    [[gnu::target("avx2")]] static ret name##Avx2 params { return name##Body args; }                                 \
    static ret name##Baseline params { return name##Body args; }                                                       \
    ret name params                                                                                                    \
    {                                                                                                                  \
        switch (::wb::cpuCapability()) {                                                                               \
        case ::wb::CpuCapability::Avx512:                                                                              \
            return name##Avx512 args;                                                                                  \
        case ::wb::CpuCapability::Avx2:                                                                                \
            return name##Avx2 args;                                                                                    \
        case ::wb::CpuCapability::Baseline:                                                                            \
            break;                                                                                                     \
        }                                                                                                              \
        return name##Baseline args;                                                                                    \
    }
#else
#define WB_VECTOR_VARIANTS(ret, name, params, args)                                                                    \
    ret name params { return name##Body args; }
#endif
