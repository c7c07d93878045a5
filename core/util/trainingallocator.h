// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace wb {

/// Tells the C library's allocator (glibc malloc) to keep freed memory for reuse during
/// training, instead of handing large blocks back to the kernel after each use.
///
/// A training step allocates and frees the same large tensors every step (BERT-Mini at batch
/// 32: 16 MiB activations and gradients). With glibc's defaults such blocks are mapped fresh and
/// unmapped again (mmap threshold and heap trimming), so every step pays a page fault per 4 KiB
/// of them: measured 21 % of a BERT-Mini step (docs/benchmarks.md, "Where a training step's time
/// goes"). This sets mallopt(M_MMAP_THRESHOLD, 32 MiB) (glibc's largest) and
/// mallopt(M_TRIM_THRESHOLD, 1 GiB): blocks up to 32 MiB come from the heap and freed memory
/// stays with the process, so its resident size stays near its peak after a run.
///
/// Process-wide and idempotent; thread-safe (mallopt takes glibc's arena locks). Call before a
/// run's first step. Does nothing where the C library is not glibc. Never throws.
void keepFreedMemoryForTraining() noexcept;

} // namespace wb
