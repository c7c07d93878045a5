// SPDX-License-Identifier: Apache-2.0
// A download's SHA-256 on a worker thread (core/hub/hubclient.cpp): hashing overlaps receiving.
#pragma once

#include "core/util/digest.h"

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace wb {

constexpr size_t kHashBlock = 4 << 20; // bytes per block handed to the hashing thread

/// SHA-256 (core/util/digest.h) computed on a worker thread in blocks of kHashBlock bytes, so
/// that hashing overlaps receiving and writing (one block is filled while the other is hashed).
/// A wb::Error of the digest on the worker is thrown again by hex(). Thread rules: one caller thread.
class BackgroundSha256
{
public:
    BackgroundSha256()
    {
        m_fill.reserve(kHashBlock);
        m_work.reserve(kHashBlock);
        m_worker = std::thread([this] { run(); });
    }
    ~BackgroundSha256()
    {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_quit = true;
        }
        m_cv.notify_all();
        m_worker.join();
    }
    void reset()
    {
        drain();
        m_digest.reset();
        m_failure = nullptr;
        m_fill.clear();
        m_bytes = 0;
    }
    void update(const char *data, size_t n)
    {
        m_fill.insert(m_fill.end(), data, data + n);
        m_bytes += int64_t(n);
        if (m_fill.size() >= kHashBlock)
            handOver();
    }
    int64_t bytes() const { return m_bytes; }
    std::string hex()
    {
        handOver();
        drain();
        if (m_failure)
            std::rethrow_exception(m_failure);
        return m_digest.finishHex();
    }

private:
    void handOver()
    {
        if (m_fill.empty())
            return;
        std::unique_lock<std::mutex> lock(m_mutex);
        m_cv.wait(lock, [this] { return !m_busy; });
        std::swap(m_fill, m_work);
        m_fill.clear();
        m_busy = true;
        m_cv.notify_all();
    }
    void drain()
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_cv.wait(lock, [this] { return !m_busy; });
    }
    void run()
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        for (;;) {
            m_cv.wait(lock, [this] { return m_busy || m_quit; });
            if (!m_busy)
                return;
            lock.unlock();
            std::exception_ptr failure;
            try {
                m_digest.update(m_work.data(), m_work.size());
            } catch (...) {
                failure = std::current_exception();
            }
            lock.lock();
            if (failure && !m_failure)
                m_failure = failure;
            m_busy = false;
            m_cv.notify_all();
        }
    }

    Digest m_digest{DigestKind::Sha256}; ///< updated by the worker while m_busy, else by the caller
    std::exception_ptr m_failure;         ///< the worker's first error since reset() (under m_mutex)
    int64_t m_bytes = 0;
    std::vector<char> m_fill; ///< filled by update() (caller thread)
    std::vector<char> m_work; ///< hashed by the worker while m_busy
    std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_busy = false;
    bool m_quit = false;
    std::thread m_worker; // last: starts after the members it uses
};

} // namespace wb
