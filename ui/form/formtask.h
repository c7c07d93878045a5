// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/preparedrun.h"

#include <optional>
#include <string>

namespace wb {

/// The form's task (issue 24): classify text (fine-tuning, `bert-workbench-cli train`) or
/// pretrain on text (masked-LM pretraining, `bert-workbench-cli pretrain`). A project file
/// keeps it as "task": "classify" | "pretrain" (absent: classify).
enum class FormTask
{
    Classify,
    Pretrain,
};

/// "classify" or "pretrain" (the project file's "task").
inline const char *formTaskName(FormTask t) { return t == FormTask::Pretrain ? "pretrain" : "classify"; }

/// The task named `name` ("classify", "pretrain"); nothing for any other name.
inline std::optional<FormTask> parseFormTask(const std::string &name)
{
    if (name == "classify")
        return FormTask::Classify;
    if (name == "pretrain")
        return FormTask::Pretrain;
    return std::nullopt;
}

/// The run a task's Train starts: RunPurpose::Train or RunPurpose::Pretrain.
inline RunPurpose formTaskPurpose(FormTask t) { return t == FormTask::Pretrain ? RunPurpose::Pretrain : RunPurpose::Train; }

/// The CLI command of a task's run: "train" or "pretrain".
inline const char *formTaskCommand(FormTask t) { return runPurposeName(formTaskPurpose(t)); }

} // namespace wb
