// SPDX-License-Identifier: Apache-2.0
#pragma once

// Torch types appear in this header: include it only from wb_core sources and tests that
// link torch (never from the UI or the CLI). The c10d headers stay in processgroup.cpp.
#include <ATen/core/Tensor.h>

#include "core/events/stoptoken.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace wb {

/// How to join a c10d process group (torch.distributed's c10d: TCPStore rendezvous, Gloo; docs/multi-worker.md).
struct ProcessGroupOptions
{
    std::string master_addr = "127.0.0.1"; ///< the chief's host (TCPStore server)
    int master_port = 0;                 ///< the chief's port; 0 on rank 0 = any free port (see on_listening)
    int rank = 0;
    int world_size = 1;
    std::string local_host;              ///< host/address the Gloo transport binds to; "" = GLOO_SOCKET_IFNAME or hostname
    std::vector<std::string> addresses;  ///< "host:port" per rank, only used to name ranks in errors
    std::chrono::milliseconds timeout{std::chrono::seconds(300)}; ///< join timeout and per-collective timeout
    int64_t bucket_bytes = 4 << 20;      ///< gradient bucket size in bytes (a few MB)
    /// Rank 0 only: called with the port the rendezvous listens on, before waiting for the others.
    std::function<void(int port)> on_listening;
    /// Polled about every 100 ms while joining (optional; must outlive connect()): a stop
    /// request ends the wait at once with wb::StoppedByUser.
    const StopToken *stop = nullptr;
};

/// A c10d process group: TCPStore rendezvous hosted by rank 0 + ProcessGroupGloo (CPU
/// tensors; NCCL for CUDA tensors when the linked libtorch has it).
///
/// Every collective blocks until all ranks took part. Errors: wb::Error, never a hang —
/// a rank that does not join within `timeout`, a peer that dies or stops responding during
/// a collective (the Gloo timeout), or an unreachable chief; the message names the missing
/// ranks and their addresses. After an error the group is unusable.
/// Thread rules: one thread uses a ProcessGroup at a time.
class ProcessGroup
{
public:
    /// Rendezvous: rank 0 listens on master_port, every rank registers and waits until all
    /// world_size ranks have joined, then the Gloo full mesh is connected. Throws wb::Error
    /// (field "cluster") naming the ranks that did not join, or the chief that could not be
    /// reached, after `timeout`. A chief that accepts the connection but never answers (a
    /// hung process, another program on the port) ends the wait after `timeout` + 10 s
    /// too: the rendezvous runs on a helper thread that is abandoned then. So is a stop
    /// request on `options.stop` (wb::StoppedByUser, field "cluster"). `on_listening` is called on
    /// that thread.
    static std::unique_ptr<ProcessGroup> connect(const ProcessGroupOptions &options);
    ~ProcessGroup();
    ProcessGroup(const ProcessGroup &) = delete;
    ProcessGroup &operator=(const ProcessGroup &) = delete;

    int rank() const;
    int worldSize() const;
    /// The port the rendezvous store listens on (the chosen one when master_port was 0).
    int storePort() const;

    /// Replaces every tensor's values by rank `root`'s, in place. Tensors are packed into
    /// flat buckets of ≤ bucket_bytes per dtype: one c10d broadcast per bucket.
    void broadcast(const std::vector<at::Tensor> &tensors, int root = 0);

    /// Replaces every tensor by the element-wise mean over all ranks, in place:
    /// flatten into buckets of ≤ bucket_bytes (per dtype), one all-reduce (sum) per bucket,
    /// divide by world size, copy back. Tensors must be defined, floating point and
    /// contiguous-able; shapes must match across ranks.
    void allReduceMean(const std::vector<at::Tensor> &tensors);

    /// Replaces `t` by its element-wise sum over all ranks, in place (one all-reduce).
    void allReduceSum(at::Tensor &t);

    /// Returns every rank's `t` (1-D or more; the first dimension may differ between ranks,
    /// the rest must match), concatenated in rank order along dimension 0.
    at::Tensor allGatherConcat(const at::Tensor &t);

    /// Waits until every rank reached this call.
    void barrier();

    /// Number of c10d collective calls made so far (tests check the bucketing with it).
    int64_t collectiveCalls() const;

private:
    ProcessGroup();
    /// The rendezvous itself; may block in a socket read when the peer never answers.
    static std::unique_ptr<ProcessGroup> connectBlocking(const ProcessGroupOptions &options);
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace wb
