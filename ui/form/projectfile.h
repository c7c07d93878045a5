// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/diagnostics.h"
#include "core/config/trainingoptions.h"
#include "ui/form/formtask.h"

#include <QString>

#include <nlohmann/json.hpp>

namespace wb {

/// A saved GUI project: the whole configuration (strategy, files, hyperparameters) as one
/// JSON object `{"format":"bert-workbench-project","version":1,"options":{<flag>: value}}`
/// with the flag names of optionTable() (every option; an unset optional is left out), and the
/// form's task as `"task": "classify"|"pretrain"` (absent in older files: classify).
/// Relative paths in a project resolve against the project file's directory.
class ProjectFile
{
public:
    /// Returns the JSON form of `options` (every option of optionTable(), by flag name).
    static nlohmann::json toJson(const TrainingOptions &options, FormTask task = FormTask::Classify);
    /// The task `j` names ("task"; absent: Classify). Another value is an error naming "task".
    static FormTask taskFromJson(const nlohmann::json &j, Diagnostics &diag);

    /// Builds options from `j`; unknown keys are warnings ("options.<key>: unknown setting"),
    /// wrong types are errors naming the key. Missing keys keep their defaults. Old spellings
    /// (aliases such as intra_op_threads) are read as their option. `baseDir` resolves
    /// relative paths of path options.
    static TrainingOptions fromJson(const nlohmann::json &j, const QString &baseDir, Diagnostics &diag);

    /// Writes `options` to `path` atomically. Throws wb::Error naming the path on failure.
    static void save(const QString &path, const TrainingOptions &options, FormTask task = FormTask::Classify);

    /// Reads a project file; problems (missing file, bad JSON, wrong types) go to `diag`.
    /// `task`, when given, receives the file's task (taskFromJson).
    static TrainingOptions load(const QString &path, Diagnostics &diag, FormTask *task = nullptr);
};

} // namespace wb
