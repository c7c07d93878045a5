// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one entry point of every run (docs/architecture.md, "Starting a run"): the window, the
// CLI and local workers all start here. Torch-free header: the window includes it.

#include "core/config/localworkerplan.h"
#include "core/events/trainingobserver.h"
#include "core/hub/pretrainedmodel.h"
#include "core/engine/preflight.h"

#include <string>

namespace wb {

/// What a run is for. Each purpose has one validation scope (runPurposeScope) and one
/// `mode`; adding a kind of run is one value here and its row in preparedrun.cpp.
enum class RunPurpose
{
    Train,    ///< train_and_eval (`train`, the window's Train and Resume, local workers)
    LrFind,   ///< the learning-rate range test (`lr_find`, Find Learning Rate): no evaluation
              ///< data, no learning rate, leaves the run in model_dir alone
    Predict,  ///< `predict`: test_results.tsv from a checkpoint
    Export,   ///< `export`: a stand-alone model folder
    Validate, ///< `validate`: every check of options.mode, nothing run
    Pretrain, ///< `pretrain`: masked-LM pretraining (docs/pretraining.md) on bert_pretraining
              ///< data; no num_labels; checks of its own (checkPretrainingRun)
};

/// Returns the purpose's name as the CLI spells its command ("train", "lr_find", …).
const char *runPurposeName(RunPurpose purpose);

/// Returns the purpose of a TrainingOptions::mode: "predict" → Predict, "export_only" →
/// Export, anything else → Train (whose check reports an unknown mode).
RunPurpose runPurposeForMode(const std::string &mode);

/// Returns the checks the purpose needs (the one table of scopes).
ValidationScope runPurposeScope(RunPurpose purpose);

/// A run that went through the pre-flight check: the options it runs with (mode set from the
/// purpose), what the check found and loaded, and where it runs (this process or local
/// workers). A plain value: copy it to the thread that runs it.
struct PreparedRun
{
    TrainingOptions options;
    RunPurpose purpose = RunPurpose::Train;
    ValidationResult validation;
    /// num_workers > 0: the run is N local worker processes (Train only), each running
    /// local_workers.worker; 0: it runs in this process.
    LocalWorkerPlan local_workers;
    /// options.pretrained_model found on disk (the Hugging Face cache or a folder), whose
    /// files filled the options' empty bert_config_file, vocab_file, do_lower_case and
    /// init_checkpoint; nothing without a pretrained model, or when it is not there yet.
    std::optional<PretrainedModel> pretrained;

    bool ok() const { return validation.ok(); }
    bool runsAsLocalWorkers() const { return local_workers.num_workers > 0; }
};

/// Prepares `options` for `purpose`: sets options.mode from it (Validate keeps the given
/// mode); resolves options.pretrained_model from disk only (findCachedPretrainedModel:
/// never the network; a model that is not downloaded yet is an error naming how to get it —
/// front-ends call fetchPretrainedModel first) and fills the options it sets
/// (applyPretrainedModel); runs the pre-flight check once with the purpose's scope
/// (validateRun), plus the checks that the data was prepared with the model's vocabulary and
/// casing; and plans local workers. Never throws for bad input: problems are in
/// result.validation.
/// Thread-safe; reads files (data scan, init checkpoint, the chief's port): never call it on
/// a GUI thread.
PreparedRun prepareRun(const TrainingOptions &options, RunPurpose purpose);

/// Fills the empty bert_config_file, vocab_file, do_lower_case and init_checkpoint of `o`
/// from `model`'s files (an option the user gave wins). Pure.
void applyPretrainedModel(TrainingOptions &o, const PretrainedModel &model);

/// For front-ends, before prepareRun: makes options.pretrained_model available on disk
/// (resolvePretrainedModel with HubSettings::fromEnvironment(): the cache, a folder, or a
/// download with `progress`). Returns nothing when no pretrained model is set. Throws HubError
/// (isUserError(): exit 2, else 1) for a model that cannot be had, wb::Error when stopped.
/// Synchronous; never on a GUI thread.
std::optional<PretrainedModel> fetchPretrainedModel(const TrainingOptions &options, const DownloadProgressFn &progress,
                                                    const StopToken &stop);

/// The end of a run whose pre-flight check failed, the same for every front-end: status
/// Failed; field and hint of the first error; message that error's text, followed by
/// " (and N more problem(s))" and then one line "field: message" for each of the others.
/// Use only when the diagnostics hold an error.
RunFinished failedValidation(const Diagnostics &diagnostics);

} // namespace wb
