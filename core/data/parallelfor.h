// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <functional>

namespace wb {

/// Runs `body(i)` for every i in [0, n) on up to `threads` worker threads (each index once,
/// in no particular order) while the calling thread waits and calls `progress(done)` about
/// every 100 ms and once at the end (on the calling thread; may be empty).
///
/// `body` must be safe to call concurrently for different indices. The first exception a
/// body throws stops the loop (no new indices start) and is rethrown here after all threads
/// have ended. When `stopRequested()` returns true, no new indices start and parallelFor()
/// returns false; otherwise it returns true once all n bodies have run.
bool parallelFor(size_t n, int threads, const std::function<void(size_t)> &body,
                 const std::function<bool()> &stopRequested = {},
                 const std::function<void(size_t done)> &progress = {});

} // namespace wb
