// SPDX-License-Identifier: Apache-2.0
#include "core/data/parallelfor.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace wb {

bool parallelFor(size_t n, int threads, const std::function<void(size_t)> &body,
                 const std::function<bool()> &stopRequested, const std::function<void(size_t)> &progress)
{
    std::atomic<size_t> next{0}, done{0};
    std::atomic<bool> halt{false};
    std::mutex mu;
    std::condition_variable cv;
    std::exception_ptr error;
    int live = 0;
    auto worker = [&] {
        try {
            while (!halt.load()) {
                const size_t i = next.fetch_add(1);
                if (i >= n)
                    break;
                body(i);
                done.fetch_add(1);
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(mu);
            if (!error)
                error = std::current_exception();
            halt = true;
        }
        std::lock_guard<std::mutex> lock(mu);
        --live;
        cv.notify_all();
    };
    const int count = int(std::max<size_t>(1, std::min<size_t>(size_t(std::max(1, threads)), n)));
    std::vector<std::thread> pool;
    live = count;
    for (int t = 0; t < count; ++t)
        pool.emplace_back(worker);
    bool stopped = false;
    {
        std::unique_lock<std::mutex> lock(mu);
        while (live > 0) {
            cv.wait_for(lock, std::chrono::milliseconds(100));
            if (!stopped && stopRequested && stopRequested()) {
                stopped = true;
                halt = true;
            }
            if (progress) {
                lock.unlock();
                progress(done.load());
                lock.lock();
            }
        }
    }
    for (auto &t : pool)
        t.join();
    if (error)
        std::rethrow_exception(error);
    if (progress)
        progress(done.load());
    return !stopped && done.load() == n;
}

} // namespace wb
