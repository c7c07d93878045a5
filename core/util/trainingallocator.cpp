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
    // glibc refuses an mmap threshold above HEAP_MAX_SIZE / 2 (32 MiB on 64-bit); setting either
    // value also ends glibc's dynamic adjustment of both, so they are set together.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

} // namespace wb
