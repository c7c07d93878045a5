// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>

namespace wb {

/// A cooperative stop request: the one way to cancel long work in the core. The Trainer
/// checks it between steps (then finishes the step, writes a checkpoint and ends as
/// Cancelled); data preparation, the example download and the local launcher poll it too.
/// Thread rules: any thread (and a signal handler) may call requestStop(); lock-free.
class StopToken
{
public:
    void requestStop() noexcept { m_stop.store(true, std::memory_order_relaxed); }
    bool stopRequested() const noexcept { return m_stop.load(std::memory_order_relaxed); }
    void reset() noexcept { m_stop.store(false, std::memory_order_relaxed); }
    /// The flag itself, for prepareData (core/data/dataprep.h), which still takes a
    /// `const std::atomic<bool> *`; remove once it takes a StopToken.
    const std::atomic<bool> *flag() const noexcept { return &m_stop; }

private:
    std::atomic<bool> m_stop{false};
};

} // namespace wb
