// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

// The training engine (docs/architecture.md, "The engine"): one TrainingLoop, written once,
// over a TrainingTask that says what is trained. Fine-tuning (finetuningtask.cpp) and
// masked-LM pretraining (pretrainingtask.cpp) are its two tasks.

#include "core/config/schedule.h"
#include "core/config/trainingoptions.h"
#include "core/distribute/strategy.h"
#include "core/events/stoptoken.h"
#include "core/events/trainingobserver.h"
#include "core/io/metricswriter.h"
#include "core/engine/adamw.h"
#include "core/engine/checkpointio.h"
#include "core/advice/coach.h"
#include "core/engine/evalextras.h"
#include "core/formats/trainingsummary.h"
#include "core/engine/precision.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
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
    int64_t evaluated_step = 0;                  ///< in TrainingTask::evaluate: the global step being evaluated
    int64_t training_step = 0;                   ///< in nextBatch and microBatchLoss: the step being trained, 0-based
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

/// Named scalars in the order they are written: what a task adds to a metrics.jsonl line
/// (its fields) and to TensorBoard (its tags).
using NamedScalars = std::vector<std::pair<std::string, double>>;

/// One evaluation as a task reports it to the loop.
struct TaskEvaluation
{
    /// The metrics every view reads (the observer, the coach, best checkpoint, early stopping):
    /// eval_loss and eval_accuracy are the task's main loss and accuracy.
    EvalMetrics metrics;
    NamedScalars fields;      ///< metrics.jsonl fields beyond MetricsWriter::evalJson (may be empty)
    NamedScalars tensorboard; ///< the validation tags, in order
    std::string log_line;     ///< the "Eval: …" log line
};

/// What is trained (docs/architecture.md, "The engine"): the model and its heads, its
/// batches, its loss, its evaluation and its words. The TrainingLoop owns everything else.
/// A task is used by one loop on the loop's thread; the loop calls, in order: buildModel
/// (inside setUpLoop), checkpointModel, initialWeights (a new run only), describe and
/// announcement, openData, then per step nextBatch and microBatchLoss, reportFields at each
/// report, evaluate at each epoch boundary, beforeCheckpoint before each checkpoint, and
/// finishSummary once at the end.
class TrainingTask
{
public:
    virtual ~TrainingTask() = default;

    /// "training" or "pretraining": the loop's words ("the training loss became NaN …",
    /// "training completed at step N").
    virtual std::string noun() const = 0;
    /// Builds the model from its own seeded generator (nn::makeGenerator(--seed)) and returns it.
    virtual torch::nn::Module &buildModel() = 0;
    /// The model as the checkpoint format saves it; valid after buildModel.
    virtual CheckpointModel checkpointModel() = 0;
    /// The meta data each checkpoint records (for export and classify).
    virtual const InputMetaData &checkpointMeta() const = 0;
    /// The weights of a new run (model_dir has no checkpoint): an init checkpoint, continued
    /// pretraining or random weights; logs which. Throws wb::Error for a checkpoint that does not fit.
    virtual void initialWeights(TrainingObserver &obs) = 0;
    /// Adds the task's facts to the observer's RunStarted and the coach's set-up.
    virtual void describe(RunStarted &info, CoachSetup &coach) const = 0;
    /// The first words of the start's log line: "Training N parameters" (the loop adds the schedule).
    virtual std::string announcement(const RunStarted &info) const = 0;
    /// Opens this worker's train and eval data; the train data positioned `start` batches in
    /// (the same seeded order as an uninterrupted run).
    virtual void openData(const LoopParts &parts, int64_t start) = 0;
    /// Whether eval_examples.jsonl is written (EvalExtras' single-worker case).
    virtual bool writesEvalExamples(const LoopParts &parts) const = 0;
    /// Reads the step's batch and moves this worker's rows to the device; returns the global
    /// batch's example count.
    virtual int64_t nextBatch(const LoopParts &parts) = 0;
    /// The loss of micro-batch `k` of parts.microBatches of the current batch (forward in the
    /// number format's autocast), a scalar not yet divided by the micro-batch count.
    virtual torch::Tensor microBatchLoss(const LoopParts &parts, int64_t k) = 0;
    /// The task's train fields since the last report (pretraining: mlm_loss, mlm_accuracy,
    /// nsp_*), then forgets them. They go to metrics.jsonl and TensorBoard after `loss`.
    virtual NamedScalars reportFields() { return {}; }
    /// Evaluates on this worker's eval shard (combined across workers); `extras` gives the
    /// eval_examples.jsonl sink. The loop sets step and wall_time.
    virtual TaskEvaluation evaluate(const LoopParts &parts, EvalExtras &extras) = 0;
    /// What the task adds to training_summary.json and the log at the end (fine-tuning: the
    /// bag-of-words comparison). `chief`: only the chief logs.
    virtual void finishSummary(TrainingSummary &summary, bool chief, TrainingObserver &obs) {}
    /// Called on every worker just before the chief writes the checkpoint of global step `step`
    /// (a collective may be used): what the task keeps beside the checkpoint is written here,
    /// so that a resume from that checkpoint finds it (fine-tuning: training_dynamics.jsonl).
    virtual void beforeCheckpoint(const LoopParts &parts, int64_t step) {}
};

/// The training loop, written once for every task: threads, the strategy and a cluster's
/// agreement on the start, micro-batches, the number format and fp16's loss scaler, AdamW and
/// the schedule, resume (latest checkpoint, data position, an already-complete run),
/// checkpoints (run_config.json first, ckpt-N, the index, keep_checkpoint_max, a killed run's
/// temporaries removed), the best checkpoint and early stopping, reports (StepMetrics every
/// --steps_per_loop steps or 50 ms, --log_steps' TimeHistory, metrics.jsonl, TensorBoard),
/// the coach, the NaN stop, the user's stop and training_summary.json. Evaluation and a
/// checkpoint every steps_per_epoch steps (tensorflow/models
/// official/nlp/bert/model_training_utils.py). Thread rules: one thread, synchronous.
class TrainingLoop
{
public:
    /// `progress` is kept up to date (last step, checkpoint, train loss) so that a throw still
    /// says how far the run got; all references must outlive the loop.
    TrainingLoop(const TrainingOptions &spec, const BertConfig &cfg, const InputMetaData &meta,
                 const Schedule &schedule, TrainingObserver &obs, const StopToken &stop, RunFinished &progress);
    ~TrainingLoop();

    /// Trains `task` to the end, to the user's stop (Cancelled, a checkpoint written), to a
    /// non-finite loss (Failed, field learning_rate) or to an early stop. Throws wb::Error,
    /// c10::Error and whatever the task throws.
    RunFinished run(TrainingTask &task);

private:
    struct State;

    bool restore(State &s);
    RunFinished alreadyComplete(const State &s);
    void openOutputs(State &s);
    void announce(State &s);
    bool trainStep(State &s, int64_t step);
    void report(State &s, bool force);
    void evaluateAndCheckpoint(State &s);
    void saveCheckpointAt(State &s, int64_t step);
    void tell(State &s, const std::vector<CoachNote> &notes);
    RunFinished finish(State &s);

    const TrainingOptions &m_spec;
    const BertConfig &m_cfg;
    const InputMetaData &m_meta;
    const Schedule &m_sched;
    TrainingObserver &m_obs;
    const StopToken &m_stop;
    RunFinished &m_progress;
};

} // namespace wb
