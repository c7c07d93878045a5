// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"
#include "core/events/trainingobserver.h"

#include <memory>

namespace wb {

struct PreparedRun;

/// Fine-tunes a BertForSequenceClassification (train_and_eval), predicts or exports,
/// as run_classifier does, with libtorch. Facade over a pimpl: this header pulls in no
/// Torch header, so the UI can include it.
///
/// Thread rules: run() is synchronous and creates no threads of its own besides libtorch's
/// intra-op pool and the data prefetch thread; call it from a worker thread in a GUI. One
/// run at a time per Trainer object. Other jobs may use libtorch on other threads of the
/// same process meanwhile (the window's Try it and learning-rate finder, another run):
/// - Random state: a run owns its generator, nn::makeGenerator(--seed), the only source of
///   its parameter initialisation and dropout masks, saved in and restored from its
///   checkpoints (rng_state); the data order comes from the dataset's own engine seeded by
///   --seed. Nothing in core seeds or draws from libtorch's default generator, so nothing
///   another thread does changes a run: the same options give the same run.
/// - Thread count: libtorch's intra-op thread count is process-wide. A run sets it
///   (torch::set_num_threads, on this thread before its first step) only when
///   --num_threads > 0, and then it applies to every job in the process; nothing else in
///   core sets it. Results are reproducible at a fixed --num_threads.
/// (docs/architecture.md, "Threading" and "Random state".)
class Trainer
{
public:
    Trainer();
    ~Trainer();
    Trainer(const Trainer &) = delete;
    Trainer &operator=(const Trainer &) = delete;

    /// Runs `run` (prepareRun's result, core/engine/preparedrun.h) in this process: train
    /// (resuming from the latest checkpoint in model_dir), predict or export, by run.purpose.
    /// Logs the check's warnings; a run that did not pass its check ends as
    /// failedValidation(). Reports through `observer` and polls `stop` between steps, but
    /// never calls observer.runFinished(): the caller reports the returned end (the window's
    /// TrainingWorker, the CLI). Never throws: bad input, NaN loss and I/O errors end Failed.
    /// Local workers are the front-end's business (run.local_workers): this runs one process.
    RunFinished execute(const PreparedRun &run, TrainingObserver &observer, const StopToken &stop);

    /// For tests and embedders: prepareRun(spec, runPurposeForMode(spec.mode)), execute(),
    /// then observer.runFinished() exactly once with the returned end.
    RunFinished run(const TrainingOptions &spec, TrainingObserver &observer, const StopToken &stop);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace wb
