// SPDX-License-Identifier: Apache-2.0
#pragma once

// Everything a run does before it trains or writes (docs/architecture.md, "Starting a run: one
// entry point"): one path for `bert-workbench-cli train` / `pretrain` / `predict` / `export`
// and the window's Train, Resume and Export Model…. Torch-free header (the window includes it).
// What runs the plan is runPlanned (core/launch/runplanned.h).

#include "core/config/diagnostics.h"
#include "core/events/stoptoken.h"
#include "core/events/trainingobserver.h"
#include "core/hub/pretrainedmodel.h"
#include "core/engine/preparedrun.h"

#include <exception>
#include <functional>
#include <string>

namespace wb {

/// The steps of planRun, in order; Ready when all went through.
enum class PlanStep
{
    RecordedRun,     ///< Predict and Export: the run's run_config.json fills the options not given
    PretrainedModel, ///< options.pretrained_model made available on disk (a download)
    PreFlight,       ///< prepareRun(options, purpose): the one pre-flight check
    DemoRuntime,     ///< Export with --demo: onnxruntime-web's files (resolveDemoRuntime)
    Ready,
};

/// How a front-end takes part in planRun. Every member may be empty.
struct PlanFrontEnd
{
    /// Each note as it arises, without "note: " (the recorded run's options, an export's
    /// strategy, the web demo's runtime), on the calling thread.
    std::function<void(const std::string &)> note;
    /// The pretrained model's download progress (fetchPretrainedModel's), on the calling thread.
    DownloadProgressFn progress;
    /// Makes options.pretrained_model available in place of fetchPretrainedModel(options,
    /// progress, stop) (the CLI: its download printer); throws to fail the step.
    std::function<void(const TrainingOptions &, const StopToken &)> fetch;
};

/// A run ready to start, or the step that failed. A plain value (the exception aside): copy it
/// to the thread that runs it.
struct RunPlan
{
    /// From PreFlight on: the prepared run (its diagnostics when the pre-flight check failed);
    /// before it, the options as far as they were filled, the purpose, and the failure as one
    /// error in run.validation.diagnostics (the error's field, else stepField(); its message
    /// and hint). Ready: start it with runPlanned.
    PreparedRun run;
    PlanStep step = PlanStep::RecordedRun; ///< Ready, or the step that failed
    /// The failure of RecordedRun, PretrainedModel or DemoRuntime (wb::Error, HubError,
    /// StoppedByUser, or what PlanFrontEnd::fetch threw); null otherwise.
    std::exception_ptr error;

    bool ok() const { return step == PlanStep::Ready; }
    /// True when `stop` ended the plan (a download stopped: HubError Stopped, StoppedByUser):
    /// not a failure of the options; front-ends report it as a stopped run (exit 130).
    bool stopped() const;
    /// The field a failure is about when the error names none: "model_dir", "pretrained_model",
    /// "run" (pre-flight) or "demo".
    const char *stepField() const;
    /// The failure as a run's end, the same words for every front-end: Cancelled when
    /// stopped(); else Failed, the pre-flight check's failedValidation. Completed when ok().
    RunFinished failure() const;
};

/// Plans a run of `options` for `purpose` (Train, Pretrain, Predict or Export; any purpose
/// works): for Predict and Export what the run in model_dir recorded fills the options not
/// given (fillFromRecordedRun, each note through frontEnd.note); an Export is mode
/// export_only, one_device when no strategy is given (it reads one checkpoint in this
/// process); the pretrained model is made available (frontEnd.fetch, else
/// fetchPretrainedModel with frontEnd.progress); then the one pre-flight check (prepareRun),
/// which also plans local workers; last, for an Export with --demo, onnxruntime-web's files
/// are found or fetched (resolveDemoRuntime) before the export folder is touched. Stops at the
/// first step that fails (result.step, result.error, result.run.validation.diagnostics); never
/// throws. `stop` ends a download (result.stopped()). Reads files and the network: never on a
/// GUI thread.
RunPlan planRun(TrainingOptions options, RunPurpose purpose, const PlanFrontEnd &frontEnd, const StopToken &stop);

} // namespace wb
