// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/stoptoken.h"

namespace wb::cli {

/// Ctrl+C for the lifetime of the guard: the first SIGINT requests `token` to stop and writes
/// `message` (a static string) to stderr; a second one exits at once with kExitStopped (130).
/// The previous handler is restored on destruction. One guard at a time (main thread).
class InterruptGuard
{
public:
    InterruptGuard(StopToken &token, const char *message);
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard &) = delete;
    InterruptGuard &operator=(const InterruptGuard &) = delete;

private:
    void (*m_old)(int) = nullptr;
};

} // namespace wb::cli
