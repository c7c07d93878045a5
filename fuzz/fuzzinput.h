// SPDX-License-Identifier: Apache-2.0
#pragma once

// Shared helpers of the libFuzzer targets in fuzz/.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace wb::fuzz {

/// Presents fuzz input to readers that take a path: an in-memory file (memfd_create), reached
/// as /proc/self/fd/<n>, rewritten for every input. No disk I/O, one descriptor per process.
/// Thread rules: libFuzzer's single fuzzing thread.
class MemoryFile
{
public:
    MemoryFile()
    {
        m_fd = ::memfd_create("wb-fuzz", 0);
        if (m_fd < 0)
            std::abort();
        m_path = "/proc/self/fd/" + std::to_string(m_fd);
    }

    /// Replaces the file's contents with `size` bytes at `data`; returns its path.
    const std::string &write(const uint8_t *data, size_t size)
    {
        if (::ftruncate(m_fd, 0) != 0)
            std::abort();
        size_t done = 0;
        while (done < size) {
            const ssize_t n = ::pwrite(m_fd, data + done, size - done, off_t(done));
            if (n <= 0)
                std::abort();
            done += size_t(n);
        }
        return m_path;
    }

private:
    int m_fd = -1;
    std::string m_path;
};

} // namespace wb::fuzz
