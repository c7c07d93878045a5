// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/bertconfig.h"
#include "core/config/diagnostics.h"
#include "core/config/distributionstrategy.h"
#include "core/config/inputmetadata.h"
#include "core/config/memoryestimate.h"
#include "core/config/schedule.h"
#include "core/config/trainingoptions.h"

#include <optional>

namespace wb {

/// What the pre-flight check found and loaded.
struct ValidationResult
{
    Diagnostics diagnostics;                 ///< all findings, the strategy finding first
    DistributionStrategy strategy;
    std::optional<BertConfig> bert_config;
    std::optional<InputMetaData> meta_data;
    std::optional<Schedule> schedule;
    /// train_and_eval with a loaded config and meta data: the estimated peak memory of one
    /// worker (core/config/memoryestimate.h).
    std::optional<MemoryEstimate> memory;

    bool ok() const { return !diagnostics.hasErrors(); }
};

/// Which checks to run. Data-file and checkpoint checks read files and take longer.
struct ValidationScope
{
    bool check_data_files = true;   ///< globs match, records readable and consistent
    bool check_init_checkpoint = true;
};

/// Runs every check that needs no training (DESIGN.md §6) and reports all problems at
/// once, the strategy problem first: strategy + num_gpus, bert config, meta data,
/// cross-checks (max_seq_length ≤ max_position_embeddings), schedule, mode-specific
/// required flags, data files and init checkpoint (through the registered hooks).
/// Thread-safe; reads files; never throws for bad input.
ValidationResult validateRun(const TrainingOptions &options, const ValidationScope &scope = {});

/// Returns the number of CUDA devices the linked libtorch can use (0 on CPU builds).
int cudaDeviceCount();

/// Returns the number of workers the cluster settings describe: TF_CONFIG's worker list
/// (+ chief), --worker_hosts, --num_local_workers, or WORLD_SIZE; 1 when none is set.
/// Problems (bad TF_CONFIG JSON, index out of range, duplicates) go to `diag`.
int clusterWorkerCount(const TrainingOptions &options, Diagnostics &diag);

/// Checks the data files named in `options` (train/eval paths: globs match, records
/// readable and consistent with meta data and config). Implemented in core/data.
void checkDataFiles(const TrainingOptions &options, const BertConfig &config, const InputMetaData &meta,
                    Diagnostics &diag);

/// Checks `options.init_checkpoint` (readable safetensors, names and shapes match the
/// config). Implemented in core/model.
void checkInitCheckpoint(const TrainingOptions &options, const BertConfig &config, const InputMetaData &meta,
                         Diagnostics &diag);

} // namespace wb
