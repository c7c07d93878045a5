// SPDX-License-Identifier: Apache-2.0
#include "core/train/preparedrun.h"

#include <algorithm>

namespace wb {

namespace {

struct PurposeRow
{
    RunPurpose purpose;
    const char *name;
    const char *mode; ///< "" keeps options.mode
    ValidationScope scope;
};

ValidationScope scopeOf(bool dataFiles, bool initCheckpoint, bool evalData, bool learningRate, bool modelDirRun,
                        bool lrFindRange)
{
    ValidationScope s;
    s.check_data_files = dataFiles;
    s.check_init_checkpoint = initCheckpoint;
    s.require_eval_data = evalData;
    s.check_learning_rate = learningRate;
    s.check_model_dir_run = modelDirRun;
    s.check_lr_find_range = lrFindRange;
    return s;
}

// One row per purpose: its mode and the checks it needs.
//                                    data  init  eval  lr    run   range
const PurposeRow kPurposes[] = {
    {RunPurpose::Train, "train", "train_and_eval", scopeOf(true, true, true, true, true, false)},
    {RunPurpose::LrFind, "lr_find", "train_and_eval", scopeOf(true, true, false, false, false, true)},
    {RunPurpose::Predict, "predict", "predict", scopeOf(true, true, true, true, true, false)},
    {RunPurpose::Export, "export", "export_only", scopeOf(true, true, true, true, true, false)},
    {RunPurpose::Validate, "validate", "", scopeOf(true, true, true, true, true, true)},
};

const PurposeRow &rowOf(RunPurpose purpose)
{
    for (const PurposeRow &row : kPurposes)
        if (row.purpose == purpose)
            return row;
    return kPurposes[0];
}

} // namespace

const char *runPurposeName(RunPurpose purpose) { return rowOf(purpose).name; }

RunPurpose runPurposeForMode(const std::string &mode)
{
    if (mode == "predict")
        return RunPurpose::Predict;
    if (mode == "export_only")
        return RunPurpose::Export;
    return RunPurpose::Train;
}

ValidationScope runPurposeScope(RunPurpose purpose) { return rowOf(purpose).scope; }

PreparedRun prepareRun(const TrainingOptions &options, RunPurpose purpose)
{
    const PurposeRow &row = rowOf(purpose);
    PreparedRun run;
    run.purpose = purpose;
    run.options = options;
    if (*row.mode)
        run.options.mode = row.mode;
    run.validation = validateRun(run.options, row.scope);
    if (purpose == RunPurpose::Train && run.ok())
        run.local_workers = planLocalWorkers(run.options);
    return run;
}

RunFinished failedValidation(const Diagnostics &diagnostics)
{
    RunFinished f;
    f.status = RunStatus::Failed;
    const auto &items = diagnostics.items();
    const auto first =
        std::find_if(items.begin(), items.end(), [](const Diagnostic &d) { return d.severity == Severity::Error; });
    if (first == items.end()) {
        f.message = "the configuration check failed";
        return f;
    }
    const int more = diagnostics.errorCount() - 1;
    f.field = first->field;
    f.message = first->message + (more > 0 ? " (and " + std::to_string(more) + " more problem(s))" : std::string());
    f.hint = first->hint;
    return f;
}

} // namespace wb
