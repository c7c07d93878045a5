// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/diagnostics.h"

#include <string>
#include <vector>

namespace wb {

/// The distribution strategies of tensorflow/models (official/common/distribute_utils.py
/// get_distribution_strategy).
enum class StrategyKind {
    None,                ///< not specified (or `off`): refused before anything runs
    OneDevice,           ///< one replica: CPU, or cuda:0
    Mirrored,            ///< one replica per local GPU, or one CPU replica
    MultiWorkerMirrored, ///< one process per worker, c10d all-reduce
};

/// The exact message of run_bert's guard when no strategy is chosen (official/legacy/bert/run_classifier.py).
inline constexpr const char *kNoStrategyMessage = "Distribution strategy has not been specified.";

/// A parsed and checked `--distribution_strategy` + `--num_gpus` pair.
struct DistributionStrategy
{
    StrategyKind kind = StrategyKind::None;
    int num_gpus = 0;

    /// Returns the canonical name: "one_device", "mirrored", "multi_worker_mirrored" or "" (None).
    std::string name() const;
    /// Returns the number of local replicas: max(num_gpus, 1) for mirrored, else 1.
    int localReplicas() const;

    /// Parses `name` (case-insensitive, surrounding blanks ignored) with `num_gpus`.
    ///
    /// Errors (field "distribution_strategy" or "num_gpus"), checked in the order of
    /// tensorflow/models' get_distribution_strategy: negative num_gpus; empty or `off`
    /// (kNoStrategyMessage, or distribute_utils' "When n GPUs are specified…" for off with >1 GPU);
    /// `tpu` and `parameter_server` (recognised, unsupported here); one_device with >1 GPU;
    /// anything else ("Unrecognized distribution strategy: 'x'"). Each error has a hint with
    /// the valid names. Thread-safe.
    static DistributionStrategy parse(const std::string &name, int num_gpus, Diagnostics &diag);

    /// Returns the names a user can choose, in picker order.
    static std::vector<std::string> validNames();
};

} // namespace wb
