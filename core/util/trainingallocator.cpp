// SPDX-License-Identifier: Apache-2.0
#include "core/util/trainingallocator.h"

#include <atomic>
#include <cstdlib> // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace wb {

void keepFreedMemoryForTraining() noexcept
{
#if defined(__GLIBC__)
    static std::atomic<bool> done{false};
    if (done.exchange(true))
        return;
    // No block gets a mapping of its own (M_MMAP_MAX 0: the pretraining logits, 78 MiB at batch
    // 32, are above the largest mmap threshold glibc accepts, 32 MiB); all come from the heap
    // (a thread's own arena, or the main heap for blocks larger than an arena's 64 MiB heaps),
    // and up to 1 GiB of freed memory at its top stays there. Setting these also ends glibc's
    // dynamic adjustment of the thresholds.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

} // namespace wb
