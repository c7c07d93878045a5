// SPDX-License-Identifier: Apache-2.0
#pragma once

// Everything an export does before it writes (docs/architecture.md, "The engine", step 7): one
// path for `bert-workbench-cli export` and the window's Export Model… dialog. Torch-free header
// (the window includes it).

#include "core/events/stoptoken.h"
#include "core/events/trainingobserver.h"
#include "core/hub/pretrainedmodel.h"
#include "core/engine/preparedrun.h"

#include <exception>
#include <functional>
#include <optional>
#include <string>

namespace wb {

/// The steps of prepareExport, in order; Ready when all went through.
enum class ExportStep
{
    RecordedRun,     ///< the run's run_config.json fills the options not given (fillFromRecordedRun)
    PretrainedModel, ///< options.pretrained_model made available on disk (a download)
    PreFlight,       ///< prepareRun(options, RunPurpose::Export)
    DemoRuntime,     ///< --demo: onnxruntime-web's files (resolveDemoRuntime)
    Ready,
};

/// How a front-end takes part in prepareExport. Every member may be empty.
struct ExportFrontEnd
{
    /// Each note as it arises, without "note: " ("--bert_config_file not given: using the run's …",
    /// "--distribution_strategy not given: one_device (export runs in this process)", the web
    /// demo's runtime), on the calling thread.
    std::function<void(const std::string &)> note;
    /// The pretrained model's download progress (fetchPretrainedModel's).
    DownloadProgressFn progress;
    /// Makes options.pretrained_model available in place of fetchPretrainedModel(options,
    /// progress, stop) (the CLI: its download printer); throws to fail the step.
    std::function<void(const TrainingOptions &, const StopToken &)> fetch;
};

/// An export ready to run, or the step that failed. A plain value (the exception aside).
struct PreparedExport
{
    /// From PreFlight on: the prepared run (its diagnostics when the pre-flight check failed);
    /// Ready: run it with Trainer::execute.
    PreparedRun run;
    ExportStep step = ExportStep::RecordedRun; ///< Ready, or the step that failed
    /// The failure of RecordedRun, PretrainedModel or DemoRuntime (wb::Error, HubError,
    /// StoppedByUser, or what ExportFrontEnd::fetch threw); null otherwise.
    std::exception_ptr error;

    bool ok() const { return step == ExportStep::Ready; }
    /// The field a failure is about when the error names none: "model_dir", "pretrained_model",
    /// "run" (pre-flight) or "demo".
    const char *stepField() const;
    /// The failure as a run's end (status Failed), the same words for every front-end: the
    /// pre-flight check's failedValidation, else the error's field (or stepField()), message
    /// and hint. Completed when ok().
    RunFinished failure() const;
};

/// Prepares an export of options.model_dir to options.model_export_path (mode export_only):
/// what the run recorded fills the options not given (fillFromRecordedRun), the strategy is
/// one_device when not given (an export reads one checkpoint in this process), the pretrained
/// model is made available (frontEnd.fetch, else fetchPretrainedModel with frontEnd.progress),
/// the one pre-flight check runs (prepareRun, RunPurpose::Export), and for --demo
/// onnxruntime-web's files are found or fetched (resolveDemoRuntime), before the folder is
/// touched. Stops at the first step that fails (result.step, result.error); never throws.
/// `stop` ends a download (StoppedByUser). Reads files and the network: never on a GUI thread.
PreparedExport prepareExport(TrainingOptions options, const ExportFrontEnd &frontEnd, const StopToken &stop);

} // namespace wb
