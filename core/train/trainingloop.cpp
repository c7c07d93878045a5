// SPDX-License-Identifier: Apache-2.0
#include "core/train/trainingloop.h"

#include "core/train/blascheck.h"
#include "core/util/error.h"

#include <chrono>
#include <filesystem>
#include <mutex>

namespace fs = std::filesystem;

namespace wb {

void configureThreads(const TrainingOptions &spec, TrainingObserver &obs)
{
    if (spec.num_threads > 0) {
        torch::set_num_threads(spec.num_threads);
        obs.logMessage("intra-op threads: " + std::to_string(spec.num_threads) + " (--num_threads)");
    } else {
        // Automatic: keep libtorch's own choice (one thread per physical core as it counts
        // them); BLAS brings its own pool. Raising torch's OpenMP threads on top made
        // training slower here (docs/benchmarks.md).
        obs.logMessage("intra-op threads: " + std::to_string(torch::get_num_threads())
                       + " (automatic; --num_threads overrides)");
    }
}

void setUpLoop(LoopParts &parts, const TrainingOptions &spec, TrainingObserver &obs, const StopToken &stop,
               const std::function<torch::nn::Module &()> &makeModel)
{
    configureThreads(spec, obs);
    // multi_worker_mirrored: joins the cluster here (waits for every worker, bounded by
    // --worker_timeout). Only the chief writes checkpoints, metrics and the summary.
    parts.strategy = makeStrategy(spec, &stop); // a Stop while the cluster forms ends the wait
    parts.chief = parts.strategy->isChief();
    const int64_t perReplica = parts.strategy->perReplicaBatch(spec.train_batch_size); // throws when not divisible
    parts.microBatches = spec.gradient_accumulation_steps;
    if (parts.microBatches < 1 || perReplica % parts.microBatches != 0)
        throw Error("gradient_accumulation_steps",
                    "the per-replica batch " + std::to_string(perReplica) + " is not divisible into "
                        + std::to_string(parts.microBatches) + " micro-batches",
                    "choose a train_batch_size that is a multiple of replicas × gradient_accumulation_steps");
    parts.format = parseNumberFormat(spec.dtype);
    if (parts.strategy->worldSize() > 1)
        obs.logMessage("multi_worker_mirrored: worker rank " + std::to_string(parts.strategy->rank()) + " of "
                       + std::to_string(parts.strategy->worldSize()) + (parts.chief ? " (chief)" : ""));
    for (const auto &w : checkBlas())
        obs.logMessage(w);
    std::error_code ec;
    fs::create_directories(spec.model_dir, ec);
    if (ec)
        throw Error(spec.model_dir, "cannot create the model_dir: " + ec.message(), "choose a writable --model_dir");
    torch::nn::Module &model = makeModel();
    if (spec.activation_checkpointing) // the task's model checkpoints its encoder blocks in training passes
        obs.logMessage("activation checkpointing: each encoder block is recomputed in the backward pass "
                       "(--activation_checkpointing)");
    // The optimizer's slots are created beside the parameters: move the model first.
    parts.device = parts.strategy->device();
    model.to(parts.device);
    model.train();
    if (parts.format == NumberFormat::Fp16) {
        if (!parts.device.is_cuda())
            throw Error("dtype", "fp16 needs a CUDA GPU; this run trains on the CPU",
                        "use --dtype=bf16 (or fp32) on the CPU, or --num_gpus=1 on a CUDA machine");
        parts.scaler.emplace();
    }
    if (parts.format != NumberFormat::Fp32 || parts.microBatches > 1)
        obs.logMessage("number format " + spec.dtype + " (float32 weights, optimizer state and checkpoints)"
                       + (parts.microBatches > 1 ? ", " + std::to_string(parts.microBatches) + " micro-batches of "
                                                       + std::to_string(perReplica / parts.microBatches)
                                                       + " examples per step"
                                                 : std::string()));
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (auto &p : model.named_parameters())
        named.emplace_back(p.key(), p.value());
    parts.opt = std::make_unique<AdamW>(std::move(named), AdamWOptions{spec.weight_decay_rate});
}

void removeStaleTemporaries(const std::string &modelDir)
{
    std::error_code ec;
    std::vector<fs::path> stale;
    for (fs::directory_iterator it(modelDir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const auto dot = name.rfind(".tmp");
        if (dot == std::string::npos)
            continue;
        const std::string rest = name.substr(dot + 4);
        const bool ours = (rest.empty() && name.rfind("ckpt-", 0) == 0)
                          || (rest.size() > 1 && rest[0] == '.'
                              && rest.find_first_not_of("0123456789", 1) == std::string::npos);
        if (ours)
            stale.push_back(it->path());
    }
    for (const auto &p : stale)
        fs::remove(p, ec);
}

void openRunDirectory(const TrainingOptions &spec, int64_t start, std::optional<MetricsWriter> &metrics)
{
    removeStaleTemporaries(spec.model_dir);
    const std::string metricsPath = spec.metricsPath();
    MetricsWriter::truncateAfterStep(metricsPath, start); // drop what was logged after the checkpoint
    metrics.emplace(metricsPath);
}

void agreeOnTheStart(LoopParts &parts, int64_t start, const std::vector<torch::Tensor> &parameters,
                     at::Generator &generator, int64_t seed)
{
    Strategy &strategy = *parts.strategy;
    if (strategy.worldSize() <= 1)
        return;
    // Every worker resumes from the chief's checkpoint, then starts from its parameters.
    std::vector<int64_t> starts{start};
    strategy.gatherAcrossWorkers(starts);
    for (size_t k = 1; k < starts.size(); ++k)
        if (starts[k] != starts[0])
            throw Error("model_dir",
                        "worker rank " + std::to_string(k) + " would resume at step " + std::to_string(starts[k])
                            + " but the chief at step " + std::to_string(starts[0]),
                        "every worker must see the chief's model_dir (a shared folder), or start all in a new one");
    strategy.prepare(parameters);
    // Own dropout masks per worker (deterministic, so a resumed run repeats them); the chief
    // keeps its stream, which its checkpoints record.
    if (strategy.rank() > 0) {
        std::lock_guard<std::mutex> lock(generator.mutex());
        generator.set_current_seed(uint64_t(seed) + 7919 * uint64_t(strategy.rank()) + uint64_t(start));
    }
}

RunStarted runStartedInfo(const LoopParts &parts, const Schedule &schedule, int64_t start, torch::nn::Module &model,
                          const std::string &modelDir)
{
    RunStarted info;
    info.total_steps = schedule.total_steps;
    info.steps_per_epoch = schedule.steps_per_epoch;
    info.warmup_steps = schedule.warmup_steps;
    info.eval_steps = schedule.eval_steps;
    info.start_step = start;
    for (auto &p : model.parameters())
        info.parameter_count += p.numel();
    info.model_dir = modelDir;
    info.device = parts.device.str();
    info.wall_time =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return info;
}

} // namespace wb
