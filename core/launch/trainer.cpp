// SPDX-License-Identifier: Apache-2.0
// Trainer facade and the predict/export runs; the training loop is core/engine/trainingloop.cpp
// (fine-tuning's task: finetuningtask.cpp),
// batching core/engine/batching.*, the checkpoint format core/engine/checkpointio.*,
// evaluation core/engine/evalpass.*, export files core/export/export.*.
#include "core/launch/trainer.h"

#include "core/config/jsonfile.h"
#include "core/config/optionwords.h"
#include "core/engine/preflight.h"
#include "core/data/classifierdataset.h"
#include "core/model/initcheckpoint.h"
#include "core/engine/batching.h"
#include "core/engine/checkpointio.h"
#include "core/formats/bestmodel.h"
#include "core/formats/checkpointstate.h"
#include "core/engine/evalpass.h"
#include "core/export/export.h"
#include "core/engine/preparedrun.h"
#include "core/engine/pretrainrun.h"
#include "core/engine/run.h"
#include "core/formats/runidentity.h"
#include "core/engine/trainingloop.h"
#include "core/util/error.h"
#include "core/util/errortext.h"
#include "core/formats/thresholds.h"
#include "core/util/trainingallocator.h"

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace wb {

Run::Run(const TrainingOptions &spec, TrainingObserver &observer, const StopToken &stop, const ValidationResult &v)
    : m_spec(spec), m_obs(observer), m_stop(stop), m_cfg(*v.bert_config), m_meta(*v.meta_data),
      m_problem(v.meta_data->problemType())
{
    if (v.schedule)
        m_sched = *v.schedule;
    m_checkpointMeta = m_meta;
    if (m_spec.mode == "train_and_eval")
        m_checkpointMeta.do_lower_case = dataTokenizer(m_spec, m_meta).casing.do_lower_case;
}

nn::BertForSequenceClassification Run::makeModel()
{
    // The run's own random stream (init, dropout): --seed, never libtorch's default generator.
    nn::BertForSequenceClassification model(m_cfg, m_meta.num_labels, nn::makeGenerator(uint64_t(m_spec.seed)));
    model->setActivationCheckpointing(m_spec.activation_checkpointing); // acts in training passes only
    return model;
}

std::string Run::checkpointForInference() const
{
    if (!m_spec.predict_checkpoint_path.empty()) // "best": model_dir/best/ckpt-N (best.json); "latest"
        return resolveCheckpointAlias(m_spec.predict_checkpoint_path, m_spec.model_dir);
    // A run that kept a best model is read at its best (as classify, Try it and the Evaluation tab).
    const RunCheckpointChoice choice = chooseRunCheckpoint(m_spec.model_dir);
    if (choice.path.empty())
        throw Error("model_dir", "no checkpoint found in '" + m_spec.model_dir + "'",
                    // The window's field is a path: filled in, not ticked.
                    "train first, or "
                        + (optionWording() == OptionWording::Window ? "fill in " + optionName("predict_checkpoint_path")
                                                                    : passOption("predict_checkpoint_path")));
    if (choice.best)
        m_obs.logMessage("Using the best checkpoint of the run (" + choice.label() + "): " + choice.path
                         + "; " + passOption("predict_checkpoint_path", "latest") + " for the last one");
    return choice.path;
}

void Run::loadForInference(nn::BertForSequenceClassification &model, const std::string &path)
{
    if (path.size() > 12 && path.compare(path.size() - 12, 12, ".safetensors") == 0) {
        auto m = loadInitCheckpoint(model, path);
        m_obs.logMessage("Loaded " + path + ": " + m.summary());
    } else {
        loadCheckpoint(path, model, nullptr, false);
        m_obs.logMessage("Checkpoint file " + path + " found and restoring from checkpoint");
    }
}

RunFinished Run::predict()
{
    RunFinished r;
    configureThreads(m_spec, m_obs);
    auto model = makeModel();
    const std::string ckpt = checkpointForInference();
    loadForInference(model, ckpt);
    ClassifierDataset data(datasetOptions(m_spec, m_cfg, m_meta, m_spec.eval_data_path, false));
    std::vector<std::vector<float>> outputs;
    EvalExampleOutputs records; // the records' labels, for the labelled file
    records.keep_tokens = false;
    evaluate(model, data, m_problem, m_meta.num_labels, &outputs, nullptr, &records);
    const std::string path = writePredictions(m_spec.model_dir, outputs);
    const std::vector<std::string> names = modelLabelNames(m_cfg, m_meta, m_spec.input_meta_data_path);
    const std::string labelled =
        m_problem == ProblemType::MultiLabel
            ? writeMultiLabelPredictions(m_spec.model_dir, outputs, names, records.label_sets,
                                         runThresholds(m_spec.model_dir, ckpt, m_meta.num_labels).values)
            : writeLabelledPredictions(m_spec.model_dir, outputs, names, records.labels, records.values,
                                       m_problem == ProblemType::Regression);
    m_obs.logMessage("Wrote " + std::to_string(outputs.size()) + " predictions to " + path + " (and, with label names, "
                     + labelled + ")");
    r.status = RunStatus::Completed;
    r.last_checkpoint = ckpt;
    r.message = "wrote " + path;
    return r;
}

RunFinished Run::exportModel()
{
    auto model = makeModel();
    const std::string ckpt = checkpointForInference();
    loadForInference(model, ckpt);
    // The casing the model was trained with: its checkpoint's, else its run_config.json's.
    std::vector<RecordedCasing> trained;
    if (isTrainingCheckpointPath(ckpt))
        trained.push_back({fs::path(ckpt).filename().string(), readCheckpointHeader(ckpt).do_lower_case});
    if (!m_spec.model_dir.empty())
        trained.push_back({runConfigPath(m_spec.model_dir), recordedRunCasing(m_spec.model_dir)});
    // The model card's note on which checkpoint this is ("best, step 42 (eval_accuracy …)", "latest").
    std::string note;
    if (m_spec.predict_checkpoint_path.empty() || m_spec.predict_checkpoint_path == "best"
        || m_spec.predict_checkpoint_path == "latest") {
        const RunCheckpointChoice choice = chooseRunCheckpoint(m_spec.model_dir);
        if (choice.path == ckpt || m_spec.predict_checkpoint_path.empty())
            note = choice.label();
        else
            note = m_spec.predict_checkpoint_path;
    }
    ExportedModel exported = exportedClassifier(model, m_cfg, m_meta, m_spec);
    if (exported.multi_label) { // the thresholds the exported checkpoint's evaluation tuned
        const DecisionThresholds t = runThresholds(m_spec.model_dir, ckpt, m_meta.num_labels);
        exported.thresholds = t.values;
        exported.thresholds_source = t.source;
        m_obs.logMessage(std::string(t.fallback ? "warning: " : "") + "multi-label thresholds in config.json: "
                         + t.source);
    }
    return writeExportFolder(exported, m_cfg, m_meta, m_spec, trained, ckpt, note, m_obs);
}

struct Trainer::Private
{
};

Trainer::Trainer() : d(std::make_unique<Private>()) {}
Trainer::~Trainer() = default;

RunFinished Trainer::run(const TrainingOptions &spec, TrainingObserver &observer, const StopToken &stop)
{
    RunFinished r;
    try {
        r = execute(prepareRun(spec, runPurposeForMode(spec.mode)), observer, stop);
    } catch (...) { // prepareRun reports bad input itself; this is a bug guard
        r = failedRun(describeCurrentException("run"));
    }
    observer.runFinished(r);
    return r;
}

RunFinished Trainer::execute(const PreparedRun &prepared, TrainingObserver &observer, const StopToken &stop)
{
    const TrainingOptions &spec = prepared.options;
    const ValidationResult &v = prepared.validation;
    RunFinished r;
    std::unique_ptr<Run> run;
    std::optional<RunFinished> pretraining; // the pretraining run's progress (core/engine/pretrainrun.h)
    // A failure mid-run still says how far the run got and where its last checkpoint is.
    const auto keepProgress = [&] {
        if (pretraining) {
            r.last_step = pretraining->last_step;
            r.last_checkpoint = pretraining->last_checkpoint;
            r.final_train_loss = pretraining->final_train_loss;
        }
        if (!run)
            return;
        r.last_step = run->progress().last_step;
        r.last_checkpoint = run->progress().last_checkpoint;
        r.final_train_loss = run->progress().final_train_loss;
    };
    try {
        for (const auto &d : v.diagnostics.items())
            if (d.severity != Severity::Error)
                observer.logMessage(std::string(severityName(d.severity)) + ": " + d.field + ": " + d.message);
        // Every run this executes (fine-tuning, pretraining, predict, export): the large tensors
        // are reused from step to step, not mapped afresh (core/util/trainingallocator.h).
        if (v.ok())
            keepFreedMemoryForTraining();
        if (!v.ok()) {
            r = failedValidation(v.diagnostics);
        } else if (!v.bert_config || !v.meta_data) {
            throw Error("run", "this run was not checked before it started (no model config or meta data was loaded)",
                        "start runs through prepareRun (core/engine/preparedrun.h)");
        } else if (prepared.purpose == RunPurpose::Pretrain) {
            pretraining.emplace();
            r = runPretraining(spec, v, observer, stop, *pretraining);
        } else if (prepared.purpose == RunPurpose::Export && v.meta_data->isPretraining()) {
            r = exportPretraining(spec, v, observer);
        } else {
            run = std::make_unique<Run>(spec, observer, stop, v);
            switch (prepared.purpose) {
            case RunPurpose::Predict: r = run->predict(); break;
            case RunPurpose::Export: r = run->exportModel(); break;
            case RunPurpose::Train: r = run->train(); break;
            case RunPurpose::LrFind:
            case RunPurpose::Validate:
            case RunPurpose::Pretrain:
                throw Error("run", std::string("a run prepared for ") + runPurposeName(prepared.purpose)
                                       + " cannot be executed by the Trainer",
                            "lr_find runs through findLearningRate; validate runs nothing");
            }
        }
    } catch (const StoppedByUser &e) { // stopped before training began (a cluster still forming)
        r = RunFinished{};
        r.status = RunStatus::Cancelled;
        r.field = e.field();
        r.message = e.what();
        keepProgress();
    } catch (...) { // one conversion for every front-end (core/util/errortext.h)
        const ErrorText error = describeCurrentException(std::string());
        r = failedRun(error);
        keepProgress();
    }
    return r;
}

} // namespace wb
