// SPDX-License-Identifier: Apache-2.0
// Trainer facade and the predict/export runs; the training loop is core/train/trainingloop.cpp
// (fine-tuning's task: finetuningtask.cpp),
// batching core/train/batching.*, the checkpoint format core/train/checkpointio.*,
// evaluation core/train/evalpass.*, export files core/train/export.*.
#include "core/train/trainer.h"

#include "core/config/jsonfile.h"
#include "core/train/preflight.h"
#include "core/data/classifierdataset.h"
#include "core/model/initcheckpoint.h"
#include "core/train/batching.h"
#include "core/train/checkpointio.h"
#include "core/train/bestmodel.h"
#include "core/train/checkpointstate.h"
#include "core/train/evalpass.h"
#include "core/train/export.h"
#include "core/train/exportfolder.h"
#include "core/train/modelcard.h"
#include "core/hub/catalogue.h"
#include "core/train/preparedrun.h"
#include "core/train/pretrainrun.h"
#include "core/train/run.h"
#include "core/train/runidentity.h"
#include "core/train/trainingloop.h"
#include "core/util/error.h"
#include "core/util/errortext.h"
#include "core/util/trainingallocator.h"

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace wb {

Run::Run(const TrainingOptions &spec, TrainingObserver &observer, const StopToken &stop, const ValidationResult &v)
    : m_spec(spec), m_obs(observer), m_stop(stop), m_cfg(*v.bert_config), m_meta(*v.meta_data),
      m_regression(v.meta_data->isRegression())
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
                    "train first, or pass --predict_checkpoint_path");
    if (choice.best)
        m_obs.logMessage("Using the best checkpoint of the run (" + choice.label() + "): " + choice.path
                         + "; pass --predict_checkpoint_path=latest for the last one");
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
    evaluate(model, data, m_regression, m_meta.num_labels, &outputs, nullptr, &records);
    const std::string path = writePredictions(m_spec.model_dir, outputs);
    const std::string labelled =
        writeLabelledPredictions(m_spec.model_dir, outputs, modelLabelNames(m_cfg, m_meta, m_spec.input_meta_data_path),
                                 records.labels, records.values, m_regression);
    m_obs.logMessage("Wrote " + std::to_string(outputs.size()) + " predictions to " + path + " (and, with label names, "
                     + labelled + ")");
    r.status = RunStatus::Completed;
    r.last_checkpoint = ckpt;
    r.message = "wrote " + path;
    return r;
}

ModelCardModel Run::modelCardFacts(const std::string &ckpt, const std::string &exportDir) const
{
    ModelCardModel c;
    fs::path out = fs::path(m_spec.model_export_path).lexically_normal();
    if (!out.has_filename())
        out = out.parent_path();
    c.name = out.filename().string();
    c.regression = m_regression;
    if (!m_regression)
        c.labels = modelLabelNames(m_cfg, m_meta, m_spec.input_meta_data_path);
    c.num_hidden_layers = m_cfg.num_hidden_layers;
    c.hidden_size = m_cfg.hidden_size;
    c.num_attention_heads = m_cfg.num_attention_heads;
    c.vocab_size = m_cfg.vocab_size;
    const ParameterCount p = m_cfg.parameterCount(m_meta.num_labels);
    c.parameters = p.total() - p.classifier;
    c.max_seq_length = m_meta.max_seq_length;
    // The casing the export wrote (tokenizer_config.json: the one rule of exportModelFiles).
    try {
        std::ifstream in((fs::path(exportDir) / "tokenizer_config.json").string());
        c.do_lower_case = nlohmann::json::parse(in).value("do_lower_case", true);
    } catch (...) {
    }
    c.onnx = fs::exists(fs::path(exportDir) / "onnx" / "model.onnx");
    c.demo_page = fs::exists(fs::path(exportDir) / "demo" / "index.html");
    c.checkpoint = ckpt;
    if (isTrainingCheckpointPath(ckpt))
        c.checkpoint_step = readCheckpointHeader(ckpt).step;
    if (m_spec.predict_checkpoint_path.empty() || m_spec.predict_checkpoint_path == "best"
        || m_spec.predict_checkpoint_path == "latest") {
        const RunCheckpointChoice choice = chooseRunCheckpoint(m_spec.model_dir);
        if (choice.path == ckpt || m_spec.predict_checkpoint_path.empty())
            c.checkpoint_note = choice.label();
        else
            c.checkpoint_note = m_spec.predict_checkpoint_path;
    }
    // The start: what run_config.json recorded as pretrained_model, else this export's option.
    Diagnostics ignored;
    if (const auto run = readRunConfig(m_spec.model_dir, ignored)) {
        const auto &j = run->json;
        if (j.contains("informational") && j["informational"].contains("pretrained_model")
            && j["informational"]["pretrained_model"].is_string())
            c.start = j["informational"]["pretrained_model"].get<std::string>();
    }
    if (c.start.empty())
        c.start = m_spec.pretrained_model;
    if (const CatalogueEntry *e = c.start.empty() ? nullptr : findCatalogueEntry(c.start)) {
        c.base_model = e->hub_id;
        c.license = e->licence;
        c.language = hubLanguageCode(e->languages);
    } else if (!c.start.empty() && c.start.find('/') != std::string::npos && !fs::exists(c.start)) {
        c.base_model = c.start.substr(0, c.start.find('@')); // a Hub id outside the catalogue: licence unknown
    }
    c.meta_data_path = m_spec.input_meta_data_path;
    return c;
}

RunFinished Run::exportModel()
{
    RunFinished r;
    auto model = makeModel();
    const std::string ckpt = checkpointForInference();
    loadForInference(model, ckpt);
    // The casing the model was trained with: its checkpoint's, else its run_config.json's.
    std::vector<RecordedCasing> trained;
    if (isTrainingCheckpointPath(ckpt))
        trained.push_back({fs::path(ckpt).filename().string(), readCheckpointHeader(ckpt).do_lower_case});
    if (!m_spec.model_dir.empty())
        trained.push_back({runConfigPath(m_spec.model_dir), recordedRunCasing(m_spec.model_dir)});
    // Written whole or not at all: a staging folder beside the target, renamed when complete.
    ExportStaging staging(m_spec.model_export_path, m_spec.overwrite_output_dir);
    std::vector<std::string> written = exportModelFiles(staging.path(), model, m_cfg, m_meta, m_spec,
                                                        [this](const std::string &w) { m_obs.logMessage(w); }, trained);
    writeFileAtomic((fs::path(staging.path()) / "README.md").string(),
                    modelCardMarkdown(modelCardFacts(ckpt, staging.path()), m_spec.model_dir));
    written.push_back("README.md");
    const std::vector<std::string> files = describeExportFiles(staging.path(), written);
    staging.commit();
    std::string list;
    for (const auto &f : files)
        list += "\n" + f;
    m_obs.logMessage("Exported " + ckpt + " to " + m_spec.model_export_path + ":" + list);
    r.status = RunStatus::Completed;
    r.last_checkpoint = ckpt;
    r.message = "exported to " + m_spec.model_export_path;
    return r;
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
    std::optional<RunFinished> pretraining; // the pretraining run's progress (core/train/pretrainrun.h)
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
                        "start runs through prepareRun (core/train/preparedrun.h)");
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
