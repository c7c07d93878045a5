// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

// The training engine's parts that do not depend on what is trained (docs/architecture.md,
// "The engine"): the set-up of a run and its model_dir, written once for fine-tuning
// (Run::train, trainloop.cpp) and masked-LM pretraining (PretrainRun, pretrainloop.cpp).
// The first step towards one TrainingLoop over TrainingTasks.

#include "core/config/schedule.h"
#include "core/config/trainingoptions.h"
#include "core/distribute/strategy.h"
#include "core/events/stoptoken.h"
#include "core/events/trainingobserver.h"
#include "core/io/metricswriter.h"
#include "core/train/adamw.h"
#include "core/train/precision.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// What the loop owns whatever the task: filled by setUpLoop, in this order.
struct LoopParts
{
    std::unique_ptr<Strategy> strategy;          ///< joined (multi_worker_mirrored: the cluster formed)
    bool chief = true;                           ///< writes checkpoints, metrics.jsonl and the summary
    c10::Device device = c10::Device(c10::kCPU); ///< the model's and the optimizer state's
    NumberFormat format = NumberFormat::Fp32;    ///< --dtype
    std::optional<LossScaler> scaler;            ///< fp16 only
    int64_t microBatches = 1;                    ///< --gradient_accumulation_steps
    std::unique_ptr<AdamW> opt;                  ///< over the model's named_parameters(), in their order
};

/// Sets libtorch's intra-op threads to --num_threads (0: keeps libtorch's own choice) and logs
/// the count ("intra-op threads: N (--num_threads)" or "… (automatic; --num_threads overrides)").
/// Process-wide (torch::set_num_threads); call on the run's thread before any torch work.
void configureThreads(const TrainingOptions &spec, TrainingObserver &obs);

/// A training run's set-up, in this order (the order of the log lines and of the random
/// numbers drawn): threads (configureThreads); the strategy (makeStrategy: joins a
/// multi_worker_mirrored cluster, a Stop ends the wait); the per-replica batch split into
/// --gradient_accumulation_steps micro-batches; --dtype; the worker's rank line; the BLAS
/// check's warnings (checkBlas); model_dir created; the task's model (`makeModel`, which
/// builds it from its own seeded generator and returns it); the activation-checkpointing line;
/// the model moved to the strategy's device in training mode; fp16's loss scaler (CUDA only);
/// the number-format line; AdamW (--weight_decay_rate) over the model's named parameters.
/// The model must outlive `parts`. Throws wb::Error naming the field (train_batch_size or
/// gradient_accumulation_steps not divisible, dtype fp16 on the CPU, an unwritable model_dir)
/// and whatever makeStrategy and `makeModel` throw (wb::StoppedByUser included).
void setUpLoop(LoopParts &parts, const TrainingOptions &spec, TrainingObserver &obs, const StopToken &stop,
               const std::function<torch::nn::Module &()> &makeModel);

/// Removes the temporary files a killed run can leave in `modelDir`: "ckpt-N.tmp"
/// (saveCheckpoint's staging file) and writeFileAtomic's "<name>.tmp.<pid>". Only names this
/// program writes; best effort (a file that cannot be removed stays, no error).
void removeStaleTemporaries(const std::string &modelDir);

/// The chief's run directory at the start of training from step `start`: the stale
/// temporaries removed, metrics.jsonl (spec.metricsPath()) cut after `start` (what a killed run
/// logged past its checkpoint) and opened for appending into `metrics`. Throws wb::Error
/// naming metrics.jsonl when it cannot be read or written.
void openRunDirectory(const TrainingOptions &spec, int64_t start, std::optional<MetricsWriter> &metrics);

/// multi_worker_mirrored (no-op on one worker): every worker must resume at the chief's step
/// `start` (else wb::Error on model_dir); then the strategy takes the chief's `parameters`
/// (Strategy::prepare) and ranks above 0 reseed `generator` with seed + 7919·rank + start, so
/// each worker has its own dropout masks and a resumed run repeats them.
void agreeOnTheStart(LoopParts &parts, int64_t start, const std::vector<torch::Tensor> &parameters,
                     at::Generator &generator, int64_t seed);

/// The run's start as the observer's runStarted hears it: the schedule, the first step
/// (`start`, > 0 when resumed), the parameter count of `model`, model_dir, the loop's device and
/// the wall time now (seconds since the Unix epoch). num_labels stays 0; the task sets its own.
RunStarted runStartedInfo(const LoopParts &parts, const Schedule &schedule, int64_t start, torch::nn::Module &model,
                          const std::string &modelDir);

} // namespace wb
