// SPDX-License-Identifier: Apache-2.0
#include "core/distribute/strategy.h"

#include "core/distribute/processgroup.h"
#include "core/config/optionwords.h"
#include "core/util/error.h"

#include <torch/torch.h>

#include <cstdlib>

namespace wb {

namespace {

/// cuda:<index> when this libtorch sees that many CUDA devices, else a clear error.
c10::Device cudaDevice(int index)
{
    const int count = torch::cuda::is_available() ? int(torch::cuda::device_count()) : 0;
    if (index >= count)
        throw Error("num_gpus",
                    "cuda:" + std::to_string(index) + " is not available: this libtorch sees " + std::to_string(count)
                        + " CUDA device(s)" + (count == 0 ? " (it is a CPU build, or no driver is loaded)" : ""),
                    "set " + optionSetting("num_gpus", "0") + " to train on the CPU");
    return c10::Device(c10::DeviceType::CUDA, c10::DeviceIndex(index));
}

/// A strategy with one replica in this process, on one device: one_device, mirrored (its
/// one-replica cases) and the base of each multi_worker_mirrored worker.
class OneReplicaStrategy : public Strategy
{
public:
    OneReplicaStrategy(std::string name, c10::Device device) : m_device(device), m_name(std::move(name)) {}
    std::string name() const override { return m_name; }
    c10::Device device() const override { return m_device; }

protected:
    c10::Device m_device;

private:
    std::string m_name;
};

/// mirrored's device: num_gpus == 0 is one CPU replica (tensorflow/models' ["device:CPU:0"]),
/// 1 is cuda:0; more GPUs is an error that says how to run them.
c10::Device mirroredDevice(int numGpus)
{
    if (numGpus == 1)
        return cudaDevice(0);
    if (numGpus > 1) {
        // The CLI and the window run this as one process per GPU (planLocalWorkers); a
        // Trainer called directly gets here and is told how.
        cudaDevice(numGpus - 1); // a CPU build fails here with the clearer message
        // Flags follow each other as on a command line; the window's settings are a list.
        const std::string separator = optionWording() == OptionWording::Window ? ", " : " ";
        throw Error("num_gpus",
                    "mirrored over " + std::to_string(numGpus) + " GPUs runs one process per GPU, not in this process",
                    "run it with bert-workbench-cli or the window (they start the processes), or use "
                        + optionSetting("distribution_strategy", "multi_worker_mirrored") + separator
                        + optionSetting("num_local_workers", std::to_string(numGpus)) + separator
                        + optionSetting("num_gpus", "1"));
    }
    return c10::Device(c10::kCPU);
}

class MultiWorkerMirroredStrategy : public OneReplicaStrategy
{
public:
    MultiWorkerMirroredStrategy(const ClusterSpec &cluster, const TrainingOptions &options, const StopToken *stop)
        : OneReplicaStrategy("multi_worker_mirrored", c10::kCPU)
    {
        if (options.num_gpus > 1)
            throw Error("num_gpus", "multi_worker_mirrored uses one GPU per worker process",
                        "set " + optionSetting("num_gpus", "1") + " and start one worker per GPU ("
                            + optionSetting("num_local_workers", "<GPUs>") + ")");
        if (options.num_gpus == 1) {
            // One GPU per local worker: LOCAL_RANK (set by the local launcher) picks it.
            int local = 0;
            if (const char *lr = std::getenv("LOCAL_RANK"); lr && *lr)
                local = std::atoi(lr);
            const int count = torch::cuda::is_available() ? int(torch::cuda::device_count()) : 0;
            m_device = cudaDevice(count > 0 ? local % count : 0);
        }
        m_rank = cluster.rank;
        m_world = cluster.world_size;
        if (m_world > 1) {
            ProcessGroupOptions o;
            o.master_addr = cluster.master_addr;
            o.master_port = cluster.master_port;
            o.rank = cluster.rank;
            o.world_size = cluster.world_size;
            o.local_host = cluster.local_host;
            o.addresses = cluster.addresses;
            o.timeout = std::chrono::seconds(std::max(1, options.worker_timeout));
            o.stop = stop;
            m_group = ProcessGroup::connect(o);
        }
    }
    int rank() const override { return m_rank; }
    int worldSize() const override { return m_world; }

    void prepare(const std::vector<at::Tensor> &tensors) override
    {
        if (!m_group)
            return;
        torch::NoGradGuard guard;
        m_group->broadcast(tensors, 0);
    }

    bool reduceGradients(const std::vector<at::Tensor> &parameters, bool stopRequested, double *loss) override
    {
        if (!m_group)
            return stopRequested;
        std::vector<at::Tensor> grads;
        grads.reserve(parameters.size() + 1);
        // Parameters without a gradient are left out, as the optimizer skips them; the same
        // model and code give every rank the same set, so the buckets line up.
        for (const at::Tensor &p : parameters)
            if (p.requires_grad() && p.grad().defined())
                grads.push_back(p.grad());
        // The stop vote and the loss ride along in the last bucket (float64: the loss keeps
        // its precision): vote mean > 0 ⇔ someone asked to stop.
        at::Tensor extras = torch::tensor({stopRequested ? 1.0 : 0.0, loss ? *loss : 0.0},
                                          torch::TensorOptions().dtype(torch::kFloat64).device(m_device));
        grads.push_back(extras);
        m_group->allReduceMean(grads);
        const auto values = extras.cpu();
        if (loss)
            *loss = values[1].item<double>();
        return values[0].item<double>() > 0.0;
    }

    void reduceSums(at::Tensor &sums) override
    {
        if (m_group)
            m_group->allReduceSum(sums);
    }

    at::Tensor gather(const at::Tensor &rows) override { return m_group ? m_group->allGatherConcat(rows) : rows; }

    void barrier() override
    {
        if (m_group)
            m_group->barrier();
    }

    ProcessGroup *processGroup() override { return m_group.get(); }

private:
    int m_rank = 0;
    int m_world = 1;
    std::unique_ptr<ProcessGroup> m_group;
};

} // namespace

Strategy::~Strategy() = default;

int64_t Strategy::perReplicaBatch(int64_t global) const
{
    const int replicas = numReplicas();
    if (global <= 0 || global % replicas != 0)
        throw Error("train_batch_size",
                    "the global batch " + std::to_string(global) + " is not divisible by the " + std::to_string(replicas)
                        + " replicas",
                    "use a multiple of " + std::to_string(replicas) + ", e.g. "
                        + std::to_string((std::max<int64_t>(global, 0) / replicas + 1) * replicas));
    return global / replicas;
}

bool Strategy::reduceGradients(const std::vector<at::Tensor> &parameters, bool stopRequested, double *loss)
{
    (void)parameters;
    (void)loss;
    return stopRequested;
}

void Strategy::sumAcrossWorkers(std::vector<double> &values)
{
    if (worldSize() == 1 || values.empty())
        return;
    at::Tensor t = torch::tensor(values, torch::kFloat64);
    reduceSums(t);
    const double *p = t.data_ptr<double>();
    values.assign(p, p + t.numel());
}

namespace {

template <typename T>
void gatherVector(Strategy &s, std::vector<T> &items, c10::ScalarType type)
{
    if (s.worldSize() == 1)
        return;
    at::Tensor local = torch::from_blob(items.data(), {int64_t(items.size())}, type).clone();
    at::Tensor all = s.gather(local).contiguous();
    const T *p = all.data_ptr<T>();
    items.assign(p, p + all.numel());
}

} // namespace

void Strategy::gatherAcrossWorkers(std::vector<int64_t> &items) { gatherVector(*this, items, torch::kInt64); }
void Strategy::gatherAcrossWorkers(std::vector<double> &items) { gatherVector(*this, items, torch::kFloat64); }

std::unique_ptr<Strategy> makeStrategy(const DistributionStrategy &strategy, const ClusterSpec &cluster,
                                       const TrainingOptions &options, const StopToken *stop)
{
    switch (strategy.kind) {
    case StrategyKind::OneDevice:
        return std::make_unique<OneReplicaStrategy>("one_device",
                                                    strategy.num_gpus == 0 ? c10::Device(c10::kCPU) : cudaDevice(0));
    case StrategyKind::Mirrored: return std::make_unique<OneReplicaStrategy>("mirrored", mirroredDevice(strategy.num_gpus));
    case StrategyKind::MultiWorkerMirrored:
        if (cluster.source == ClusterSource::LocalLauncher)
            throw Error("num_local_workers", "this process launches the local workers and cannot train itself",
                        "run the local launcher (bert-workbench-cli train --num_local_workers=N)");
        return std::make_unique<MultiWorkerMirroredStrategy>(cluster, options, stop);
    case StrategyKind::None: break;
    }
    throw Error("distribution_strategy", kNoStrategyMessage,
                "choose one of: one_device, mirrored, multi_worker_mirrored");
}

std::unique_ptr<Strategy> makeStrategy(const TrainingOptions &options, const StopToken *stop)
{
    Diagnostics diag;
    const DistributionStrategy ds = DistributionStrategy::parse(options.distribution_strategy, options.num_gpus, diag);
    ClusterSpec cluster;
    if (ds.kind == StrategyKind::MultiWorkerMirrored)
        cluster = resolveClusterSpec(options, diag, processEnvironment());
    for (const Diagnostic &d : diag.items())
        if (d.severity == Severity::Error)
            throw Error(d.field, d.message, d.hint);
    return makeStrategy(ds, cluster, options, stop);
}

bool ncclAvailable()
{
#if defined(USE_C10D_NCCL)
    return torch::cuda::is_available();
#else
    return false;
#endif
}

} // namespace wb
