// SPDX-License-Identifier: Apache-2.0
#pragma once

// POSIX only; no torch, no Qt.

#include <unistd.h>
#include <utility>

namespace wb {

/// Owns one POSIX file descriptor and closes it when destroyed (or on reset()).
/// Move-only. Thread rules: a plain value; one owner thread.
class UniqueFd
{
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) noexcept : m_fd(fd) {}
    ~UniqueFd() { reset(); }
    UniqueFd(UniqueFd &&other) noexcept : m_fd(other.release()) {}
    UniqueFd &operator=(UniqueFd &&other) noexcept
    {
        if (this != &other)
            reset(other.release());
        return *this;
    }
    UniqueFd(const UniqueFd &) = delete;
    UniqueFd &operator=(const UniqueFd &) = delete;

    int get() const noexcept { return m_fd; }
    bool valid() const noexcept { return m_fd >= 0; }
    /// Gives up ownership without closing; returns the descriptor.
    int release() noexcept { return std::exchange(m_fd, -1); }
    /// Closes the owned descriptor (if any) and takes `fd`.
    void reset(int fd = -1) noexcept
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = fd;
    }

private:
    int m_fd = -1;
};

} // namespace wb
