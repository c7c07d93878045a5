// SPDX-License-Identifier: Apache-2.0
#pragma once

// The pre-flight check: everything that can be known before training starts. It sits in
// core/train because it reads the data (core/data), the init checkpoint (core/model), the
// devices and the chief's port (core/distribute, core/util); config stays pure.
// Torch-free header: the window includes it.

#include "core/config/bertconfig.h"
#include "core/config/clusterspec.h"
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
    /// train_and_eval needs --eval_data_path and eval_data_size; the learning-rate range
    /// test (lr_find), which never evaluates, turns this off.
    bool require_eval_data = true;
    /// learning_rate must be usable; off for lr_find, which exists to find it.
    bool check_learning_rate = true;
    /// The run already in model_dir (run_config.json, checkpoints) must be the same run;
    /// off for lr_find, which writes only lr_find.json and leaves the run alone.
    bool check_model_dir_run = true;
    /// lr_find_steps, lr_find_start and lr_find_end must describe a usable range test.
    bool check_lr_find_range = false;
};

/// Runs every check that needs no training (front-ends call it through prepareRun,
/// core/engine/preparedrun.h, which picks the scope from the run's purpose) (docs/ lists them in the man page's "validate"
/// command) and reports all problems at once, the strategy problem first: strategy + num_gpus, bert config, meta data,
/// cross-checks (max_seq_length ≤ max_position_embeddings), schedule, mode-specific
/// required flags, data files (checkDataFiles) and init checkpoint (checkInitCheckpoint).
/// Thread-safe; reads files; never throws for bad input.
ValidationResult validateRun(const TrainingOptions &options, const ValidationScope &scope = {});

/// The checks of a training run's option values alone, as validateRun makes them (the
/// hyperparameters such as a learning rate ≤ 0, then every option's range): no file is
/// read. The window runs them before it asks about a model_dir that holds a run, so an
/// obvious form error comes first. Pure; thread-safe.
void checkOptionValues(const TrainingOptions &options, Diagnostics &diag);

/// Returns the number of workers the cluster settings describe: TF_CONFIG's worker list
/// (+ chief), --worker_hosts, --num_local_workers, or WORLD_SIZE; 1 when none is set.
/// Problems (bad TF_CONFIG JSON, index out of range, duplicates) go to `diag`.
int clusterWorkerCount(const TrainingOptions &options, Diagnostics &diag);

/// Reports (as an error on spec.master_port_field) a chief whose rendezvous port is already
/// in use on this machine; nothing for other ranks, a single worker or port 0.
void checkChiefPort(const ClusterSpec &spec, Diagnostics &diag);

} // namespace wb
