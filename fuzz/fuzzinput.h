// SPDX-License-Identifier: Apache-2.0
#pragma once

// Shared helpers of the libFuzzer targets in fuzz/.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
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

/// For readers that take a folder and open a fixed file name in it (run_config.json,
/// best/best.json, labels.txt beside input_meta_data.json): one temporary folder per
/// process (under /dev/shm where it exists, so the writes stay in memory), removed at exit.
/// Thread rules: libFuzzer's single fuzzing thread.
class ScratchDir
{
public:
    ScratchDir()
    {
        namespace fs = std::filesystem;
        const fs::path base = fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
        std::string tmpl = (base / "wb-fuzz-XXXXXX").string();
        if (!::mkdtemp(tmpl.data()))
            std::abort();
        m_dir = tmpl;
    }
    ~ScratchDir()
    {
        std::error_code ec;
        std::filesystem::remove_all(m_dir, ec);
    }
    ScratchDir(const ScratchDir &) = delete;
    ScratchDir &operator=(const ScratchDir &) = delete;

    const std::string &path() const { return m_dir; }

    /// Writes `size` bytes at `data` to `<folder>/<name>` (sub-folders created); returns its path.
    std::string write(const std::string &name, const uint8_t *data, size_t size) const
    {
        namespace fs = std::filesystem;
        const fs::path file = fs::path(m_dir) / name;
        fs::create_directories(file.parent_path());
        FILE *f = std::fopen(file.c_str(), "wb");
        if (!f || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0)
            std::abort();
        return file.string();
    }

    /// Removes `<folder>/<name>` if it exists.
    void remove(const std::string &name) const
    {
        std::error_code ec;
        std::filesystem::remove(std::filesystem::path(m_dir) / name, ec);
    }

private:
    std::string m_dir;
};

} // namespace wb::fuzz
