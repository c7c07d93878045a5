// SPDX-License-Identifier: Apache-2.0
#pragma once

// Pure configuration: whether a run trains in this process or as local worker processes.
// Torch-free and Qt-free; the run entry point (core/engine/preparedrun.h) decides with it, the
// launcher (core/launch/locallauncher.h) carries it out.

#include "core/config/trainingoptions.h"

namespace wb {

/// How a front-end (CLI or window) runs a spec: in its own process, or as local workers.
struct LocalWorkerPlan
{
    int num_workers = 0;    ///< 0: train in this process; N > 0: start N local workers
    TrainingOptions worker; ///< the options every worker runs (num_local_workers cleared)
};

/// Decides whether `o` runs as local worker processes (train_and_eval only):
///  - multi_worker_mirrored with num_local_workers = N > 0: N workers with `o`'s options;
///  - mirrored with num_gpus = N > 1: N workers, each multi_worker_mirrored with num_gpus=1
///    (worker r trains on cuda:r, gradients averaged by NCCL): one replica per GPU, as
///    TensorFlow's MirroredStrategy, one process per replica as PyTorch does it;
///  - anything else: in this process (num_workers 0).
/// Pure function; thread-safe.
LocalWorkerPlan planLocalWorkers(const TrainingOptions &o);

} // namespace wb
