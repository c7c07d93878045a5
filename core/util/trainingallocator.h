// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace wb {

/// Tells the C library's allocator (glibc malloc) to keep freed memory for reuse during
/// training, instead of handing large blocks back to the kernel after each use.
///
/// A training step allocates and frees the same large tensors every step (BERT-Mini at batch
/// 32: 16 MiB activations; masked-LM pretraining: 78 MiB of logits over the 30522-word
/// vocabulary). With glibc's defaults such blocks are mapped fresh and unmapped again (its mmap
/// threshold and heap trimming), so every step pays a page fault per 4 KiB of them: measured
/// 21 % of a BERT-Mini fine-tuning step and most of a BERT-Tiny pretraining step on a VM
/// (docs/benchmarks.md, "Memory reuse"). This sets mallopt(M_MMAP_MAX, 0) (no block gets its own
/// mapping), M_MMAP_THRESHOLD 32 MiB and M_TRIM_THRESHOLD 1 GiB: blocks come from the heap and
/// freed memory stays with the process for the next step, so its resident size stays near its
/// peak after a run (docs/troubleshooting.md).
///
/// Every run calls it (core/launch/trainer.cpp), and so does TextClassifier (classify, Try it):
/// inference allocates the same activations pass after pass.
///
/// Process-wide and idempotent; thread-safe (mallopt takes glibc's arena locks). Call before a
/// run's first step. Does nothing where the C library is not glibc. Never throws.
void keepFreedMemoryForTraining() noexcept;

} // namespace wb
