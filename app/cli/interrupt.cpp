// SPDX-License-Identifier: Apache-2.0
#include "app/cli/interrupt.h"

#include "app/cli/commands.h"

#include <atomic>
#include <csignal>
#include <cstring>
#include <unistd.h>

namespace wb::cli {

namespace {

std::atomic<StopToken *> g_token{nullptr};
std::atomic<const char *> g_message{nullptr};
std::atomic<int> g_count{0};

extern "C" void onSigint(int)
{
    if (g_count.fetch_add(1) >= 1)
        _exit(kExitStopped);
    if (StopToken *t = g_token.load())
        t->requestStop();
    if (const char *m = g_message.load())
        (void)!::write(STDERR_FILENO, m, std::strlen(m));
}

} // namespace

InterruptGuard::InterruptGuard(StopToken &token, const char *message)
{
    g_count = 0;
    g_message = message;
    g_token = &token;
    m_old = std::signal(SIGINT, onSigint);
}

InterruptGuard::~InterruptGuard()
{
    std::signal(SIGINT, m_old == SIG_ERR ? SIG_DFL : m_old);
    g_token = nullptr;
}

} // namespace wb::cli
