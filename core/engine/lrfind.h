// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"
#include "core/events/trainingobserver.h"
#include "core/advice/lrfindanalysis.h"
#include "core/engine/preparedrun.h"

#include <functional>

namespace wb {

/// Runs the range test of `run` (prepareRun(options, RunPurpose::LrFind), which must be
/// ok()): builds the model (from --init_checkpoint when given; never from model_dir's
/// checkpoints) and trains a throwaway copy for at most lr_find_steps steps with the learning
/// rate rising from lr_find_start to lr_find_end, stopping when the smoothed loss diverges or
/// `stop` is requested. Writes only model_dir/lr_find.json (atomically); a test stopped before
/// its last step (not diverged) leaves an existing lr_find.json as it is (result.path empty).
/// On one device (the first GPU when num_gpus > 0, else the CPU) whatever the strategy. Log
/// lines and `progress(result so far)` after each step go to the caller's thread (this one).
/// Throws wb::Error when `run` did not pass its check (its first error) and for I/O failures.
/// Synchronous; call it from a worker thread in a GUI. Includes no Torch header.
LrFindResult findLearningRate(const PreparedRun &run, TrainingObserver &observer, const StopToken &stop,
                              const std::function<void(const LrFindResult &)> &progress = {});

} // namespace wb
