// SPDX-License-Identifier: Apache-2.0
// The only translation unit that includes the c10d headers (they are heavy).
#include "core/distribute/processgroup.h"

#include "core/config/optionwords.h"
#include "core/util/error.h"

#include <torch/torch.h>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#if defined(USE_C10D_NCCL)
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <sstream>
#include <thread>

namespace wb {

namespace {

using Clock = std::chrono::steady_clock;

std::string seconds(std::chrono::milliseconds ms)
{
    std::ostringstream s;
    s << double(ms.count()) / 1000.0 << " s";
    return s.str();
}

/// First line of an exception text (c10 errors append long backtraces).
std::string firstLine(const std::string &what)
{
    const auto nl = what.find('\n');
    return nl == std::string::npos ? what : what.substr(0, nl);
}

std::string joinKey(int rank) { return "wb/join/" + std::to_string(rank); }

} // namespace

struct ProcessGroup::Private
{
    ProcessGroupOptions options;
    c10::intrusive_ptr<c10d::TCPStore> store;
    c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo;
#if defined(USE_C10D_NCCL)
    c10::intrusive_ptr<c10d::ProcessGroupNCCL> nccl; ///< created on first use with CUDA tensors
#endif
    int port = 0;
    int64_t calls = 0;
    bool broken = false;

    std::string describe(int r) const
    {
        std::string s = "rank " + std::to_string(r);
        if (r >= 0 && r < int(options.addresses.size()))
            s += " (" + options.addresses[size_t(r)] + ")";
        else if (r == 0)
            s += " (" + options.master_addr + ":" + std::to_string(port) + ")";
        return s;
    }

    std::string describeList(const std::vector<int> &ranks) const
    {
        std::string s;
        for (size_t i = 0; i < ranks.size(); ++i)
            s += (i ? ", " : "") + describe(ranks[i]);
        return s;
    }

    /// Returns the ranks whose `keyFor(r)` is absent after waiting up to `budget`.
    std::vector<int> waitForKeys(const std::function<std::string(int)> &keyFor, std::chrono::milliseconds budget)
    {
        const auto deadline = Clock::now() + budget;
        std::vector<int> missing;
        auto pollInterval = std::chrono::milliseconds(5);
        while (true) {
            missing.clear();
            for (int r = 0; r < options.world_size; ++r)
                if (!store->check({keyFor(r)}))
                    missing.push_back(r);
            if (missing.empty() || Clock::now() >= deadline)
                return missing;
            std::this_thread::sleep_for(pollInterval);
            pollInterval = std::min(pollInterval * 2, std::chrono::milliseconds(100));
        }
    }

    /// A collective failed: find out which ranks are gone and throw a wb::Error naming them.
    [[noreturn]] void fail(const std::string &op, const std::string &what)
    {
        broken = true;
        const std::string reason = firstLine(what);
        // Every survivor of a failed collective lands here with the same call number: each
        // checks in, and whoever does not check in within a short grace period is named.
        const std::string prefix = "wb/alive/" + std::to_string(calls) + "/";
        std::vector<int> missing;
        try {
            store->set(prefix + std::to_string(options.rank), std::vector<uint8_t>{1});
            const auto grace = std::min(options.timeout, std::chrono::milliseconds(10000));
            missing = waitForKeys([&](int r) { return prefix + std::to_string(r); }, grace);
        } catch (const std::exception &) {
            if (options.rank != 0)
                throw Error("cluster",
                            "the chief " + describe(0) + " stopped responding during " + op + ": " + reason,
                            "check the chief's output for its own error; every worker stops when one fails");
        }
        if (!missing.empty())
            throw Error("cluster",
                        "worker " + describeList(missing) + " stopped responding during " + op + ": " + reason,
                        "check that worker's output for its own error; every worker stops when one fails");
        throw Error("cluster", op + " failed: " + reason,
                    "a worker may be overloaded or the network slow; raise " + optionName("worker_timeout")
                        + " or check the workers' output");
    }

    c10d::ProcessGroup &groupFor(const at::Tensor &t)
    {
#if defined(USE_C10D_NCCL)
        if (t.is_cuda()) {
            if (!nccl) {
                auto opts = c10d::ProcessGroupNCCL::Options::create();
                opts->timeout = options.timeout;
                nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(
                    c10::make_intrusive<c10d::PrefixStore>("nccl", store), options.rank, options.world_size, opts);
            }
            return *nccl;
        }
#else
        (void)t;
#endif
        return *gloo;
    }

    void run(const std::string &op, const std::function<c10::intrusive_ptr<c10d::Work>()> &start)
    {
        if (broken)
            throw Error("cluster", "the worker group is unusable after an earlier communication error");
        ++calls;
        try {
            auto work = start();
            work->wait(options.timeout);
        } catch (const Error &) {
            throw;
        } catch (const std::exception &e) {
            fail(op, e.what());
        }
    }

    /// Packs `tensors` into flat buckets (same dtype and device, ≤ bucket_bytes) and runs
    /// `collective` on each, then copies the results back (after `finish`, if any).
    void bucketed(const std::vector<at::Tensor> &tensors, const std::string &op,
                  const std::function<c10::intrusive_ptr<c10d::Work>(c10d::ProcessGroup &, std::vector<at::Tensor> &)> &collective,
                  const std::function<void(at::Tensor &)> &finish)
    {
        std::vector<bool> done(tensors.size(), false);
        for (size_t first = 0; first < tensors.size(); ++first) {
            if (done[first])
                continue;
            const auto dtype = tensors[first].scalar_type();
            const auto device = tensors[first].device();
            std::vector<size_t> bucket;
            int64_t bytes = 0;
            auto flushBucket = [&] {
                if (bucket.empty())
                    return;
                std::vector<at::Tensor> parts;
                parts.reserve(bucket.size());
                for (size_t i : bucket)
                    parts.push_back(tensors[i].reshape({-1}));
                std::vector<at::Tensor> flat{torch::cat(parts)};
                c10d::ProcessGroup &pg = groupFor(flat[0]);
                run(op, [&] { return collective(pg, flat); });
                if (finish)
                    finish(flat[0]);
                int64_t offset = 0;
                for (size_t i : bucket) {
                    const int64_t n = tensors[i].numel();
                    at::Tensor target = tensors[i];
                    torch::NoGradGuard noGrad;
                    target.copy_(flat[0].narrow(0, offset, n).view(target.sizes()));
                    offset += n;
                }
                bucket.clear();
                bytes = 0;
            };
            for (size_t i = first; i < tensors.size(); ++i) {
                if (done[i] || tensors[i].scalar_type() != dtype || tensors[i].device() != device)
                    continue;
                const int64_t size = tensors[i].numel() * int64_t(tensors[i].element_size());
                if (!bucket.empty() && bytes + size > options.bucket_bytes)
                    flushBucket();
                bucket.push_back(i);
                bytes += size;
                done[i] = true;
            }
            flushBucket();
        }
    }
};

ProcessGroup::ProcessGroup() : d(std::make_unique<Private>()) {}
ProcessGroup::~ProcessGroup() = default;

std::unique_ptr<ProcessGroup> ProcessGroup::connect(const ProcessGroupOptions &options)
{
    // c10d's TCPStore client reads the store's answers without a timeout of its own, so a
    // peer that accepts and then stays silent would block forever: a watchdog bounds it.
    struct Shared
    {
        std::mutex mutex;
        std::condition_variable done;
        bool finished = false;
        std::unique_ptr<ProcessGroup> result;
        std::exception_ptr error;
    };
    auto shared = std::make_shared<Shared>();
    std::thread([shared, options] {
        std::unique_ptr<ProcessGroup> pg;
        std::exception_ptr error;
        try {
            pg = connectBlocking(options);
        } catch (...) {
            error = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(shared->mutex);
        shared->result = std::move(pg);
        shared->error = error;
        shared->finished = true;
        shared->done.notify_all();
    }).detach();
    const auto limit = options.timeout + std::chrono::seconds(10);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::unique_lock<std::mutex> lock(shared->mutex);
    bool joined = false;
    while (!joined && std::chrono::steady_clock::now() < deadline) {
        if (options.stop && options.stop->stopRequested())
            throw StoppedByUser("cluster", "stopped while waiting for the cluster to form",
                          "press Train (or run the command) again to start over");
        joined = shared->done.wait_for(lock, std::chrono::milliseconds(100), [&] { return shared->finished; });
    }
    if (!joined) {
        const std::string chief = options.master_addr + ":" + std::to_string(options.master_port);
        throw Error("cluster",
                    "no answer from the chief " + chief + " within " + seconds(std::chrono::duration_cast<std::chrono::milliseconds>(limit))
                        + ": something accepts connections on that port but does not answer as a bert-workbench chief",
                    "check that the chief (rank 0) is running and not stuck, and that no other program uses the port");
    }
    if (shared->error)
        std::rethrow_exception(shared->error);
    return std::move(shared->result);
}

std::unique_ptr<ProcessGroup> ProcessGroup::connectBlocking(const ProcessGroupOptions &options)
{
    if (options.world_size < 1 || options.rank < 0 || options.rank >= options.world_size)
        throw Error("cluster", "rank " + std::to_string(options.rank) + " is out of range for world size "
                                   + std::to_string(options.world_size));
    std::unique_ptr<ProcessGroup> pg(new ProcessGroup());
    Private &p = *pg->d;
    p.options = options;
    const auto start = Clock::now();

    // 1. Rendezvous store: rank 0 hosts it, the others connect (the client retries until
    //    the timeout, so workers may start before the chief).
    c10d::TCPStoreOptions storeOptions;
    storeOptions.port = uint16_t(options.master_port);
    storeOptions.isServer = options.rank == 0;
    storeOptions.waitWorkers = false; // we wait ourselves, to name the missing ranks
    storeOptions.timeout = options.timeout;
    try {
        p.store = c10::make_intrusive<c10d::TCPStore>(options.rank == 0 ? std::string("127.0.0.1") : options.master_addr,
                                                       storeOptions);
    } catch (const std::exception &e) {
        if (options.rank == 0)
            throw Error("cluster",
                        "the chief could not listen for workers on port " + std::to_string(options.master_port) + ": "
                            + firstLine(e.what()),
                        "choose a free port for the chief (MASTER_PORT, or the port of the first address)");
        throw Error("cluster",
                    "could not reach the chief " + p.describe(0) + " within " + seconds(options.timeout) + ": "
                        + firstLine(e.what()),
                    "start the chief (rank 0), check the address and port, and that no firewall blocks it");
    }
    p.port = p.store->getPort();
    if (options.rank == 0 && options.on_listening)
        options.on_listening(p.port);

    // 2. Everybody registers and waits for the full roster.
    try {
        p.store->set(joinKey(options.rank), std::vector<uint8_t>(options.local_host.begin(), options.local_host.end()));
        const auto left = std::max(std::chrono::milliseconds(0),
                                   options.timeout - std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start));
        const auto missing = p.waitForKeys(joinKey, left);
        if (!missing.empty())
            throw Error("cluster",
                        std::to_string(missing.size()) + " of " + std::to_string(options.world_size)
                            + " worker(s) did not join within " + seconds(options.timeout) + ": " + p.describeList(missing),
                        "start every worker with the same cluster settings (or raise " + optionName("worker_timeout")
                            + "); each needs its own rank");
    } catch (const Error &) {
        throw;
    } catch (const std::exception &e) {
        throw Error("cluster", "lost the connection to the chief " + p.describe(0) + " while waiting for the workers: "
                                   + firstLine(e.what()),
                    "check the chief's output for its own error");
    }

    // 3. The Gloo full mesh, over a prefixed view of the same store.
    try {
        auto glooOptions = c10d::ProcessGroupGloo::Options::create(options.timeout);
        if (!options.local_host.empty())
            glooOptions->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(options.local_host));
        else if (const char *iface = std::getenv("GLOO_SOCKET_IFNAME"); iface && *iface)
            glooOptions->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(iface));
        else
            glooOptions->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
        glooOptions->threads = 2;
        p.gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(c10::make_intrusive<c10d::PrefixStore>("gloo", p.store),
                                                             options.rank, options.world_size, glooOptions);
    } catch (const std::exception &e) {
        throw Error("cluster", "could not connect the workers to each other: " + firstLine(e.what()),
                    "every worker must reach every other one on TCP (set GLOO_SOCKET_IFNAME to the interface to use)");
    }
    return pg;
}

int ProcessGroup::rank() const { return d->options.rank; }
int ProcessGroup::worldSize() const { return d->options.world_size; }
int ProcessGroup::storePort() const { return d->port; }
int64_t ProcessGroup::collectiveCalls() const { return d->calls; }

void ProcessGroup::broadcast(const std::vector<at::Tensor> &tensors, int root)
{
    if (d->options.world_size == 1)
        return;
    d->bucketed(
        tensors, "the broadcast of the initial parameters",
        [root](c10d::ProcessGroup &pg, std::vector<at::Tensor> &flat) {
            c10d::BroadcastOptions o;
            o.rootRank = root;
            return pg.broadcast(flat, o);
        },
        {});
}

void ProcessGroup::allReduceMean(const std::vector<at::Tensor> &tensors)
{
    for (const auto &t : tensors)
        if (!t.defined() || !t.is_floating_point())
            throw Error("cluster", "allReduceMean needs defined floating-point tensors");
    if (d->options.world_size == 1)
        return;
    const double world = double(d->options.world_size);
    d->bucketed(
        tensors, "the gradient all-reduce",
        [](c10d::ProcessGroup &pg, std::vector<at::Tensor> &flat) { return pg.allreduce(flat); },
        [world](at::Tensor &flat) { flat.div_(world); });
}

void ProcessGroup::allReduceSum(at::Tensor &t)
{
    if (d->options.world_size == 1)
        return;
    std::vector<at::Tensor> v{t.is_contiguous() ? t : t.contiguous()};
    d->run("the all-reduce of the evaluation sums", [&] { return d->groupFor(v[0]).allreduce(v); });
    if (!v[0].is_same(t))
        t.copy_(v[0]);
}

at::Tensor ProcessGroup::allGatherConcat(const at::Tensor &t)
{
    if (d->options.world_size == 1)
        return t;
    const int world = d->options.world_size;
    // Sizes first, then the padded payloads.
    std::vector<at::Tensor> sizeIn{torch::tensor({t.size(0)}, torch::kInt64)};
    std::vector<std::vector<at::Tensor>> sizeOut(1);
    for (int r = 0; r < world; ++r)
        sizeOut[0].push_back(torch::empty({1}, torch::kInt64));
    d->run("the gather of the evaluation results", [&] { return d->gloo->allgather(sizeOut, sizeIn); });
    int64_t longest = 0;
    std::vector<int64_t> rows;
    for (auto &s : sizeOut[0]) {
        rows.push_back(s.item<int64_t>());
        longest = std::max(longest, rows.back());
    }
    auto shape = t.sizes().vec();
    if (longest == 0) { // every rank is empty (Gloo divides by the element count)
        shape[0] = 0;
        return torch::empty(shape, t.options());
    }
    shape[0] = longest;
    std::vector<at::Tensor> in{torch::zeros(shape, t.options())};
    if (t.size(0) > 0)
        in[0].narrow(0, 0, t.size(0)).copy_(t);
    std::vector<std::vector<at::Tensor>> out(1);
    for (int r = 0; r < world; ++r)
        out[0].push_back(torch::empty(shape, t.options()));
    d->run("the gather of the evaluation results", [&] { return d->groupFor(in[0]).allgather(out, in); });
    std::vector<at::Tensor> parts;
    for (int r = 0; r < world; ++r)
        parts.push_back(out[0][size_t(r)].narrow(0, 0, rows[size_t(r)]));
    return torch::cat(parts);
}

void ProcessGroup::barrier()
{
    if (d->options.world_size == 1)
        return;
    // A tiny all-reduce: Gloo's barrier takes no per-call timeout in this version.
    std::vector<at::Tensor> v{torch::zeros({1})};
    d->run("a barrier", [&] { return d->gloo->allreduce(v); });
}

} // namespace wb
