// SPDX-License-Identifier: Apache-2.0
#include "core/engine/preparedrun.h"

#include "core/config/optionwords.h"
#include "core/prepare/preparereport.h"
#include "core/hub/huberror.h"
#include "core/engine/pretrainpreflight.h"
#include "core/formats/runidentity.h"
#include "core/util/digest.h"
#include "core/util/error.h"

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
    {RunPurpose::Pretrain, "pretrain", "train_and_eval", scopeOf(true, true, true, true, true, false)},
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

void applyPretrainedModel(TrainingOptions &o, const PretrainedModel &model)
{
    if (o.bert_config_file.empty())
        o.bert_config_file = model.config_file;
    if (o.vocab_file.empty())
        o.vocab_file = model.vocab_file;
    if (o.do_lower_case.empty())
        o.do_lower_case = model.do_lower_case ? "true" : "false";
    if (o.init_checkpoint.empty())
        o.init_checkpoint = model.folder; // the loaders read a Hugging Face folder (any weights format)
}

std::optional<PretrainedModel> fetchPretrainedModel(const TrainingOptions &options, const DownloadProgressFn &progress,
                                                    const StopToken &stop)
{
    if (options.pretrained_model.empty())
        return std::nullopt;
    return resolvePretrainedModel(options.pretrained_model, HubSettings::fromEnvironment(), progress, stop);
}

namespace {

/// The data must have been prepared as the model reads text: its vocabulary and casing
/// (prepare_report.json beside the meta data; data from elsewhere has none and is not checked).
void checkDataMatchesModel(const TrainingOptions &o, const PretrainedModel &model, Diagnostics &diag)
{
    if (o.input_meta_data_path.empty())
        return;
    std::optional<PrepareReport> report;
    try {
        report = readPrepareReport(o.input_meta_data_path);
    } catch (const Error &) {
        return; // the pre-flight check reports an unreadable report where it reads it
    }
    if (!report)
        return;
    const std::string modelVocabSha = sha256FileHex(model.vocab_file);
    if (!report->vocab_sha256.empty() && !modelVocabSha.empty() && report->vocab_sha256 != modelVocabSha)
        diag.error("pretrained_model",
                   "the data was prepared with another vocabulary than " + o.pretrained_model + "'s: prepare used "
                       + (report->vocab_file.empty() ? std::string("a vocab.txt") : report->vocab_file)
                       + " (sha256 " + report->vocab_sha256.substr(0, 12) + "…), the model has " + model.vocab_file
                       + " (sha256 " + modelVocabSha.substr(0, 12) + "…); its word pieces would be read as other words",
                   "prepare the data again with " + optionSetting("pretrained_model", o.pretrained_model) + " (or "
                       + optionSetting("vocab_file", model.vocab_file) + ")");
    // The casing the run reads text with: the user's --do_lower_case when given (it wins over
    // the model's, which may only be guessed), else the model's.
    const bool runLowerCase = o.do_lower_case.empty() ? model.do_lower_case : o.do_lower_case == "true";
    if (report->do_lower_case != runLowerCase)
        diag.error("pretrained_model",
                   std::string("the data was prepared ") + (report->do_lower_case ? "lower-cased" : "cased") + ", but "
                       + (o.do_lower_case.empty()
                              ? o.pretrained_model + " is " + (model.do_lower_case ? "uncased (it lower-cases)" : "cased")
                                    + " (from its " + model.do_lower_case_source + ")"
                              : optionName("do_lower_case") + " is " + o.do_lower_case),
                   "prepare the data again with " + optionSetting("do_lower_case", model.do_lower_case ? "true" : "false")
                       + " (or " + optionSetting("pretrained_model", o.pretrained_model) + ", which sets it)");
}

/// Puts the strategy's findings first (run_classifier's first guard), then `first`, then the
/// rest, leaving out the errors in `dropped` fields (a pretrained model that is missing makes
/// "no model config was given" a consequence, not a second problem).
Diagnostics ordered(const Diagnostics &all, const Diagnostics &first, const std::vector<std::string> &dropped)
{
    Diagnostics out;
    const auto isStrategy = [](const Diagnostic &d) { return d.field == "distribution_strategy" || d.field == "num_gpus"; };
    for (const Diagnostic &d : all.items())
        if (isStrategy(d))
            out.add(d);
    out.append(first);
    for (const Diagnostic &d : all.items())
        if (!isStrategy(d)
            && !(d.severity == Severity::Error && std::find(dropped.begin(), dropped.end(), d.field) != dropped.end()))
            out.add(d);
    return out;
}

/// A Hub model whose files failed a check (a weights file that does not parse, a config that
/// does not read): when the cause is a cached file that no longer matches its blob name (a byte
/// changed by a disk or a copy, a truncation that kept no size record), that is said first, with
/// the fix (`models download --refresh`), so it is not taken for a bad model or a bad download.
/// Hashes every file of the snapshot: only on this error path.
void nameDamagedCachedFile(const std::string &source, const PretrainedModel &model, Diagnostics &diag)
{
    if (model.repo_id.empty())
        return; // a local folder: no digest to check its files against
    HubSettings settings = HubSettings::fromEnvironment();
    settings.verify = true;
    try {
        findCachedPretrainedModel(source, settings);
    } catch (const HubError &e) {
        if (e.kind() == HubErrorKind::Checksum)
            diag.error(e.field().empty() ? "pretrained_model" : e.field(), e.what(), e.hint());
    } catch (const Error &) {
        // other failures are reported where the files are read
    }
}

} // namespace

PreparedRun prepareRun(const TrainingOptions &options, RunPurpose purpose)
{
    const PurposeRow &row = rowOf(purpose);
    PreparedRun run;
    run.purpose = purpose;
    run.options = options;
    if (*row.mode)
        run.options.mode = row.mode;
    Diagnostics pretrained;
    std::vector<std::string> dropped;
    std::string casingGiven; // --do_lower_case as the user gave it ("" when the model's is used)
    if (!run.options.pretrained_model.empty()) {
        try {
            run.pretrained = findCachedPretrainedModel(run.options.pretrained_model, HubSettings::fromEnvironment());
            if (!run.pretrained)
                pretrained.error("pretrained_model",
                                 "'" + run.options.pretrained_model + "' is not downloaded yet (not in the Hugging Face cache)",
                                 "train, lr_find and the window's Train download it first; or run "
                                     + commandName("models download " + run.options.pretrained_model));
        } catch (const Error &e) {
            pretrained.error(e.field().empty() ? "pretrained_model" : e.field(), e.what(), e.hint());
        }
        if (run.pretrained) {
            const std::string givenCasing = run.options.do_lower_case;
            applyPretrainedModel(run.options, *run.pretrained);
            casingGiven = givenCasing;
        }
        else if (run.options.bert_config_file.empty())
            dropped.push_back("bert_config_file");
    }
    const std::string learningRateNote = resolveLearningRate(run.options);
    run.validation = validateRun(run.options, row.scope);
    if (!learningRateNote.empty()
        && (purpose == RunPurpose::Train || purpose == RunPurpose::Pretrain || purpose == RunPurpose::Validate))
        run.validation.diagnostics.info("learning_rate", learningRateNote);
    if (run.pretrained) {
        TrainingOptions asGiven = run.options;
        asGiven.do_lower_case = casingGiven;
        checkDataMatchesModel(asGiven, *run.pretrained, pretrained);
        if (!run.validation.ok())
            nameDamagedCachedFile(run.options.pretrained_model, *run.pretrained, pretrained);
    }
    if (!pretrained.empty() || !dropped.empty())
        run.validation.diagnostics = ordered(run.validation.diagnostics, pretrained, dropped);
    checkPretrainingPurpose(run.options, purpose, run.validation);
    if ((purpose == RunPurpose::Train || purpose == RunPurpose::Pretrain) && run.ok())
        run.local_workers = planLocalWorkers(run.options); // pretrain --num_local_workers as train's
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
    for (auto d = first + 1; d != items.end(); ++d) // the others, one a line: nothing is lost
        if (d->severity == Severity::Error)
            f.message += "\n" + d->field + ": " + d->message;
    f.hint = first->hint;
    return f;
}

} // namespace wb
