// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/stoptoken.h"

// Torch types appear here: only wb_core sources (the Trainer) and torch-linked tests
// include this header.
#include "core/config/distributionstrategy.h"
#include "core/config/trainingoptions.h"
#include "core/config/clusterspec.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wb {

class ProcessGroup;

/// Which part of the training records this worker reads (DatasetOptions::num_shards /
/// shard_index): record i goes to worker i % num_shards.
struct ShardSpec
{
    int num_shards = 1;
    int shard_index = 0;
};

/// The interface the Trainer trains through (names as tensorflow/models: one_device, mirrored,
/// multi_worker_mirrored).
///
/// Synchronous data parallelism without DistributedDataParallel: after prepare() every
/// replica holds rank 0's parameters; after each backward, reduceGradients() replaces the
/// gradients by their mean over all replicas, so identical optimizer steps keep the
/// replicas identical. Every rank must make the same sequence of calls.
///
/// Errors: wb::Error (field "cluster") when a worker is missing or fails; never a hang
/// (bounded by TrainingOptions::worker_timeout). Thread rules: use from the
/// training thread only.
class Strategy
{
public:
    virtual ~Strategy();

    /// "one_device", "mirrored" or "multi_worker_mirrored".
    virtual std::string name() const = 0;
    /// The device of this process's (first) replica: CPU, or cuda:0 / cuda:<local gpu>.
    virtual c10::Device device() const = 0;
    /// This worker's rank (0 = chief) and the number of workers (processes).
    virtual int rank() const { return 0; }
    virtual int worldSize() const { return 1; }
    /// Replicas in this process (mirrored: one per GPU) and in the whole cluster.
    virtual int localReplicas() const { return 1; }
    int numReplicas() const { return worldSize() * localReplicas(); }
    /// Only the chief writes checkpoints, metrics.jsonl, summaries and predictions.
    bool isChief() const { return rank() == 0; }

    /// The shard of the records this worker reads when records are sharded (the Trainer
    /// shards evaluation; training reads every global batch and keeps rank's rows).
    ShardSpec dataShard() const { return {worldSize(), rank()}; }
    /// Per-replica batch = global batch / replicas. Throws wb::Error(field
    /// "train_batch_size") when the global batch is not divisible by numReplicas().
    int64_t perReplicaBatch(int64_t global_batch) const;
    /// Examples this process reads per step: perReplicaBatch × localReplicas.
    int64_t perWorkerBatch(int64_t global_batch) const { return perReplicaBatch(global_batch) * localReplicas(); }

    /// Makes every replica start from rank 0's values of `tensors` (parameters and
    /// buffers): a bucketed broadcast. No-op for one worker.
    virtual void prepare(const std::vector<at::Tensor> &tensors) { (void)tensors; }

    /// Averages the gradients of `parameters` over all replicas, in place (bucketed
    /// all-reduce; parameters without a gradient are skipped, as by the optimizer, and must
    /// be the same on every rank). Also agrees on
    /// stopping: returns true when `stop_requested` is true on any worker, so all workers
    /// stop after the same step. When `loss` is given, it is replaced by the mean of every
    /// worker's value (the global batch's loss); it rides in the same all-reduce.
    virtual bool reduceGradients(const std::vector<at::Tensor> &parameters, bool stop_requested,
                                 double *loss = nullptr);

    /// Sums `sums` (a 1-D float64 CPU tensor of metric sums) over all workers, in place.
    virtual void reduceSums(at::Tensor &sums) { (void)sums; }

    /// Concatenates every worker's `rows` in rank order (sharded evaluation: predictions
    /// and labels). Returns `rows` for one worker.
    virtual at::Tensor gather(const at::Tensor &rows) { return rows; }

    /// Torch-free helpers for sharded evaluation (identity for one worker): sums `values`
    /// element-wise over all workers; appends the other workers' items so that every
    /// worker ends up with all of them, in rank order.
    void sumAcrossWorkers(std::vector<double> &values);
    void gatherAcrossWorkers(std::vector<int64_t> &items);
    void gatherAcrossWorkers(std::vector<double> &items);

    /// Waits until every worker reached this call.
    virtual void barrier() {}

    /// The process group (multi_worker_mirrored), else nullptr. For benchmarks and tests.
    virtual ProcessGroup *processGroup() { return nullptr; }
};

/// Builds the strategy for a validated run: one_device (cpu, or cuda:0 when num_gpus ==
/// 1), mirrored (one CPU replica when num_gpus == 0; see docs/multi-worker.md for GPUs),
/// multi_worker_mirrored (joins the cluster described by `cluster`: blocks until every
/// worker joined, up to options.worker_timeout, or until `stop` (optional) is requested:
/// then wb::StoppedByUser). Throws wb::Error on failure.
std::unique_ptr<Strategy> makeStrategy(const DistributionStrategy &strategy, const ClusterSpec &cluster,
                                       const TrainingOptions &options, const StopToken *stop = nullptr);

/// Convenience: resolves the cluster from options/environment and builds the strategy;
/// throws wb::Error with the first cluster problem.
std::unique_ptr<Strategy> makeStrategy(const TrainingOptions &options, const StopToken *stop = nullptr);

/// True when this libtorch can run CUDA collectives (NCCL); false on CPU builds.
bool ncclAvailable();

} // namespace wb
