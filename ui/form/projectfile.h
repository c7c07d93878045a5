// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/diagnostics.h"
#include "core/config/trainingoptions.h"

#include <QString>

#include <nlohmann/json.hpp>

namespace wb {

/// A saved GUI project: the whole configuration (strategy, files, hyperparameters) as one
/// JSON object `{"format":"bert-workbench-project","version":1,"options":{<flag>: value}}`
/// with the flag names of optionTable() (every option; an unset optional is left out).
/// Relative paths in a project resolve against the project file's directory.
class ProjectFile
{
public:
    /// Returns the JSON form of `options` (every option of optionTable(), by flag name).
    static nlohmann::json toJson(const TrainingOptions &options);

    /// Builds options from `j`; unknown keys are warnings ("options.<key>: unknown setting"),
    /// wrong types are errors naming the key. Missing keys keep their defaults. Old spellings
    /// (aliases such as intra_op_threads) are read as their option. `baseDir` resolves
    /// relative paths of path options.
    static TrainingOptions fromJson(const nlohmann::json &j, const QString &baseDir, Diagnostics &diag);

    /// Writes `options` to `path` atomically. Throws wb::Error naming the path on failure.
    static void save(const QString &path, const TrainingOptions &options);

    /// Reads a project file; problems (missing file, bad JSON, wrong types) go to `diag`.
    static TrainingOptions load(const QString &path, Diagnostics &diag);
};

} // namespace wb
