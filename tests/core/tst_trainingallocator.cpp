// SPDX-License-Identifier: Apache-2.0
// keepFreedMemoryForTraining (core/util/trainingallocator.h): after it, a 16 MiB block (a
// BERT-Mini activation at batch 32) comes from malloc's heap instead of a fresh mapping, and
// freeing it keeps the memory with the process, so the next step's block needs no page faults.
#include "core/util/trainingallocator.h"

#include <QtTest>

#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <vector>

class tst_TrainingAllocator : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void largeBlocksComeFromTheHeapAndStay();
};

namespace {

constexpr size_t kBlock = size_t(16) << 20;
constexpr int kBlocks = 8; // 128 MiB: a step's activations, freed together at its end

/// Allocates kBlocks blocks, touches them, frees them all; returns malloc's free bytes after.
size_t oneStep()
{
    std::vector<void *> blocks;
    for (int i = 0; i < kBlocks; ++i) {
        blocks.push_back(std::malloc(kBlock));
        if (!blocks.back())
            return 0;
        std::memset(blocks.back(), i, kBlock);
    }
    for (void *b : blocks)
        std::free(b);
    return mallinfo2().fordblks;
}

} // namespace

void tst_TrainingAllocator::largeBlocksComeFromTheHeapAndStay()
{
#ifdef __SANITIZE_ADDRESS__
    // AddressSanitizer's allocator replaces glibc's malloc: mallopt and mallinfo2 describe a heap
    // the process no longer uses (make sanitize).
    QSKIP("AddressSanitizer replaces glibc's malloc: its mallopt settings do not apply");
#endif
    // glibc's default: a step's worth of freed blocks goes back to the kernel (mapped blocks
    // unmapped, or the heap's top trimmed), so the next step faults its pages in again.
    oneStep();
    QVERIFY2(oneStep() < size_t(kBlocks) * kBlock, "glibc's default kept the freed blocks: this test shows nothing");

    wb::keepFreedMemoryForTraining();
    wb::keepFreedMemoryForTraining(); // idempotent
    oneStep();
    const size_t mapped = mallinfo2().hblkhd, heap = mallinfo2().arena;
    for (int step = 0; step < 3; ++step) {
        // The freed blocks stay with the process, and the next step reuses them: no new
        // mapping, no growth of the heap.
        QVERIFY2(oneStep() >= size_t(kBlocks) * kBlock, "the freed blocks were handed back to the kernel");
        QCOMPARE(mallinfo2().hblkhd, mapped);
        QCOMPARE(mallinfo2().arena, heap);
    }
}

QTEST_APPLESS_MAIN(tst_TrainingAllocator)
#include "tst_trainingallocator.moc"
