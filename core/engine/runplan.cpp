// SPDX-License-Identifier: Apache-2.0
#include "core/engine/runplan.h"

#include "core/config/optionwords.h"
#include "core/hub/huberror.h"
#include "core/formats/onnxruntimeweb.h"
#include "core/formats/runidentity.h"
#include "core/util/error.h"
#include "core/util/errortext.h"

namespace wb {

namespace {

/// The failure of a step before the pre-flight check, as its one error (the field the error
/// names, else the step's).
Diagnostics failureDiagnostics(const std::exception_ptr &error, const char *stepField)
{
    Diagnostics d;
    try {
        std::rethrow_exception(error);
    } catch (...) {
        const ErrorText e = describeCurrentException(stepField);
        d.error(e.field.empty() ? stepField : e.field, e.message, e.hint);
    }
    return d;
}

} // namespace

bool RunPlan::stopped() const
{
    if (!error)
        return false;
    try {
        std::rethrow_exception(error);
    } catch (const HubError &e) {
        return e.kind() == HubErrorKind::Stopped;
    } catch (const StoppedByUser &) {
        return true;
    } catch (...) {
        return false;
    }
}

const char *RunPlan::stepField() const
{
    switch (step) {
    case PlanStep::RecordedRun: return "model_dir";
    case PlanStep::PretrainedModel: return "pretrained_model";
    case PlanStep::PreFlight: return "run";
    case PlanStep::DemoRuntime: return "demo";
    case PlanStep::Ready: break;
    }
    return "run";
}

RunFinished RunPlan::failure() const
{
    if (ok())
        return RunFinished{};
    if (stopped()) {
        RunFinished r;
        r.status = RunStatus::Cancelled;
        r.field = stepField();
        r.message = run.validation.diagnostics.hasErrors() ? run.validation.diagnostics.items().front().message
                                                          : std::string("stopped by the user");
        return r;
    }
    if (run.validation.diagnostics.hasErrors())
        return failedValidation(run.validation.diagnostics);
    return failedRun(ErrorText{stepField(), "the run could not be prepared", ""});
}

RunPlan planRun(TrainingOptions options, RunPurpose purpose, const PlanFrontEnd &frontEnd, const StopToken &stop)
{
    RunPlan r;
    r.run.purpose = purpose;
    const auto failed = [&r, &options]() {
        r.error = std::current_exception();
        r.run.options = options;
        r.run.validation.diagnostics = failureDiagnostics(r.error, r.stepField());
        return r;
    };
    const auto note = [&frontEnd](const std::string &n) {
        if (frontEnd.note)
            frontEnd.note(n);
    };
    const bool exporting = purpose == RunPurpose::Export;
    if (exporting)
        options.mode = "export_only";
    // predict and export read a run: what it recorded fills the options not given, as for
    // classify (one rule: fillFromRecordedRun).
    if (purpose == RunPurpose::Predict || exporting) {
        try {
            for (const auto &n : fillFromRecordedRun(options))
                note(n);
        } catch (...) {
            return failed();
        }
    }
    // An export reads one checkpoint on this machine: the strategy means nothing to it.
    if (exporting && options.distribution_strategy.empty()) {
        options.distribution_strategy = "one_device";
        note(optionName("distribution_strategy") + " not given: one_device (export runs in this process)");
    }
    r.step = PlanStep::PretrainedModel;
    try { // "Start from" a pretrained model: on disk first (once; the Hugging Face cache)
        if (frontEnd.fetch)
            frontEnd.fetch(options, stop);
        else
            fetchPretrainedModel(options, frontEnd.progress, stop);
    } catch (...) {
        return failed();
    }
    r.step = PlanStep::PreFlight;
    r.run = prepareRun(options, purpose); // the one pre-flight check; plans local workers
    if (!r.run.ok())
        return r;
    if (exporting) {
        // --demo: onnxruntime-web's files, from --onnxruntime_web_dir or the npm cache (fetched
        // once from the registry); a failure is bad input and leaves the target as it was.
        r.step = PlanStep::DemoRuntime;
        try {
            if (const std::string n = resolveDemoRuntime(r.run.options, &stop); !n.empty())
                note(n);
        } catch (...) {
            r.error = std::current_exception();
            r.run.validation.diagnostics = failureDiagnostics(r.error, r.stepField());
            return r;
        }
    }
    r.step = PlanStep::Ready;
    return r;
}

} // namespace wb
