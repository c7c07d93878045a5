// SPDX-License-Identifier: Apache-2.0
#include "core/export/prepareexport.h"

#include "core/config/optionwords.h"
#include "core/formats/onnxruntimeweb.h"
#include "core/formats/runidentity.h"
#include "core/util/errortext.h"

namespace wb {

const char *PreparedExport::stepField() const
{
    switch (step) {
    case ExportStep::RecordedRun: return "model_dir";
    case ExportStep::PretrainedModel: return "pretrained_model";
    case ExportStep::PreFlight: return "run";
    case ExportStep::DemoRuntime: return "demo";
    case ExportStep::Ready: break;
    }
    return "export";
}

RunFinished PreparedExport::failure() const
{
    if (ok())
        return RunFinished{};
    if (step == ExportStep::PreFlight && !run.ok())
        return failedValidation(run.validation.diagnostics);
    try {
        if (error)
            std::rethrow_exception(error);
        return failedRun(ErrorText{stepField(), "the export could not be prepared", ""});
    } catch (...) {
        return failedRun(describeCurrentException(stepField()));
    }
}

PreparedExport prepareExport(TrainingOptions options, const ExportFrontEnd &frontEnd, const StopToken &stop)
{
    PreparedExport r;
    const auto note = [&frontEnd](const std::string &n) {
        if (frontEnd.note)
            frontEnd.note(n);
    };
    options.mode = "export_only";
    try { // what the run recorded fills the options not given, as for classify
        for (const auto &n : fillFromRecordedRun(options))
            note(n);
    } catch (...) {
        r.error = std::current_exception();
        return r;
    }
    // Export reads one checkpoint on this machine: the strategy means nothing to it.
    if (options.distribution_strategy.empty()) {
        options.distribution_strategy = "one_device";
        note(optionName("distribution_strategy") + " not given: one_device (export runs in this process)");
    }
    r.step = ExportStep::PretrainedModel;
    try {
        if (frontEnd.fetch)
            frontEnd.fetch(options, stop);
        else
            fetchPretrainedModel(options, frontEnd.progress, stop);
    } catch (...) {
        r.error = std::current_exception();
        return r;
    }
    r.step = ExportStep::PreFlight;
    r.run = prepareRun(options, RunPurpose::Export); // the one pre-flight check
    if (!r.run.ok())
        return r;
    // --demo: onnxruntime-web's files, from --onnxruntime_web_dir or the npm cache (fetched once
    // from the registry); a failure is bad input and leaves the target as it was.
    r.step = ExportStep::DemoRuntime;
    try {
        if (const std::string n = resolveDemoRuntime(r.run.options, &stop); !n.empty())
            note(n);
    } catch (...) {
        r.error = std::current_exception();
        return r;
    }
    r.step = ExportStep::Ready;
    return r;
}

} // namespace wb
