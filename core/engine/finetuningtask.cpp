// SPDX-License-Identifier: Apache-2.0
// Fine-tuning as a TrainingTask (docs/architecture.md, "The engine"): BertForSequenceClassification,
// classifier batches, the classification or regression loss, evaluation with its metrics and
// eval_examples.jsonl, the bag-of-words comparison. Run::train hands it to the TrainingLoop.
#include "core/config/labelnames.h"
#include "core/data/classifierdataset.h"
#include "core/io/summarywriter.h"
#include "core/model/initcheckpoint.h"
#include "core/engine/batching.h"
#include "core/engine/dynamicsrecorder.h"
#include "core/engine/evalpass.h"
#include "core/engine/precision.h"
#include "core/engine/run.h"
#include "core/engine/trainingloop.h"
#include "core/formats/trainingsummary.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <utility>

namespace wb {

namespace {

class FineTuningTask final : public TrainingTask
{
public:
    FineTuningTask(const TrainingOptions &spec, const BertConfig &cfg, const InputMetaData &meta,
                   const InputMetaData &checkpointMeta, ProblemType problem,
                   std::function<nn::BertForSequenceClassification()> makeModel)
        : m_spec(spec), m_cfg(cfg), m_meta(meta), m_checkpointMeta(checkpointMeta), m_problem(problem),
          m_makeModel(std::move(makeModel))
    {
    }

    std::string noun() const override { return "training"; }

    torch::nn::Module &buildModel() override
    {
        m_model = m_makeModel();
        return *m_model;
    }

    CheckpointModel checkpointModel() override
    {
        return {*m_model, m_model->config(), m_model->numLabels(), m_model->generator()};
    }

    const InputMetaData &checkpointMeta() const override { return m_checkpointMeta; }

    void initialWeights(TrainingObserver &obs) override
    {
        if (m_spec.init_checkpoint.empty())
            return;
        // Weights only, a new run: any init checkpoint, a training run's ckpt-N or model_dir
        // included (locateCheckpoint); a head of another num_labels is initialised anew.
        auto m = loadInitCheckpoint(m_model, m_spec.init_checkpoint, m_spec.allow_partial_init);
        obs.logMessage("Init checkpoint " + m_spec.init_checkpoint + ": " + m.summary());
    }

    void describe(RunStarted &info, CoachSetup &coach) const override
    {
        info.num_labels = m_meta.num_labels;
        coach.num_labels = m_meta.num_labels;
        coach.regression = m_problem == ProblemType::Regression;
    }

    std::string announcement(const RunStarted &info) const override
    {
        return "Training " + std::to_string(info.parameter_count) + " parameters";
    }

    void openData(const LoopParts &parts, int64_t start) override
    {
        m_trainData = std::make_unique<ClassifierDataset>(
            datasetOptions(m_spec, m_cfg, m_meta, m_spec.train_data_path, true));
        DatasetOptions evalOptions = datasetOptions(m_spec, m_cfg, m_meta, m_spec.eval_data_path, false);
        evalOptions.num_shards = parts.strategy->dataShard().num_shards; // sharded evaluation, combined in evaluate()
        evalOptions.shard_index = parts.strategy->dataShard().shard_index;
        m_evalData = std::make_unique<ClassifierDataset>(evalOptions);
        for (int64_t k = 0; k < start; ++k)
            m_trainData->next(m_batch);
        // Not for distillation: a transfer text's label is the teacher's guess, no gold label to suspect.
        if (m_problem == ProblemType::SingleLabel && m_spec.record_training_dynamics && !m_meta.has_teacher_logits)
            m_dynamics = std::make_unique<DynamicsRecorder>(
                (std::filesystem::path(m_spec.model_dir) / "training_dynamics.jsonl").string(), start, parts.chief);
        if (m_problem == ProblemType::MultiLabel && m_spec.pos_weight == "balanced")
            m_posWeight = balancedPosWeight(datasetOptions(m_spec, m_cfg, m_meta, m_spec.train_data_path, false),
                                            m_spec.train_data_size)
                              .to(parts.device);
    }

    bool writesEvalExamples(const LoopParts &parts) const override { return parts.strategy->worldSize() == 1; }

    int64_t nextBatch(const LoopParts &parts) override
    {
        m_trainData->next(m_batch);
        m_tensors = workerSlice(toTensors(m_batch), *parts.strategy);
        if (m_spec.padding == "longest")
            m_tensors = trimmedToLongest(m_tensors); // this worker's rows: its own longest
        m_tensors = onDevice(m_tensors, parts.device);
        return m_batch.size;
    }

    torch::Tensor microBatchLoss(const LoopParts &parts, int64_t k) override
    {
        const BatchTensors mt = microBatchOf(m_tensors, k, parts.microBatches);
        torch::Tensor logits;
        {
            AutocastGuard autocast(parts.format, parts.device);
            logits = m_model->forward(mt.ids, mt.mask, mt.segments);
        }
        if (m_dynamics && mt.indices.defined())
            m_dynamics->keep(parts.training_step + 1, logits, mt.labels, mt.indices);
        if (mt.teacher.defined())
            return distillationLossFor(logits, mt, m_problem, m_spec.distillation_temperature,
                                       m_spec.distillation_alpha, m_posWeight);
        return lossFor(logits, mt, m_problem, m_posWeight);
    }

    void beforeCheckpoint(const LoopParts &parts, int64_t) override
    {
        if (m_dynamics)
            m_dynamics->flush(*parts.strategy);
    }

    TaskEvaluation evaluate(const LoopParts &parts, EvalExtras &extras) override
    {
        TaskEvaluation ev;
        {
            AutocastGuard autocast(parts.format, parts.device);
            ev.metrics = wb::evaluate(m_model, *m_evalData, m_problem, m_meta.num_labels, nullptr,
                                      parts.strategy.get(), extras.sink(), m_spec.padding);
        }
        EvalMetrics &em = ev.metrics;
        em.step = parts.evaluated_step; // the log line's "Step: [N]"
        if (m_dynamics) { // every worker: the flush gathers; the chief counts its map for the coach
            m_dynamics->flush(*parts.strategy);
            const DataMapCounts counts = dataMapCounts(m_dynamics->dynamics().rows());
            em.train_examples_mapped = counts.examples;
            em.train_hard_to_learn = counts.hard_to_learn;
        }
        if (m_problem != ProblemType::Regression) // names for the per-class metrics (CLI, metrics.jsonl, training_summary.json, the window)
            em.label_names = readLabelNames(m_spec.input_meta_data_path, m_meta.num_labels, m_cfg.labelNames()).names;
        ev.log_line = evalLine(em);
        ev.tensorboard = SummaryWriter::evalScalars(em);
        return ev;
    }

    void finishSummary(TrainingSummary &summary, bool chief, TrainingObserver &obs) override
    {
        if (const std::string verdict = compareWithBagOfWords(summary, m_spec.input_meta_data_path);
            !verdict.empty() && chief)
            obs.logMessage(verdict);
    }

private:
    const TrainingOptions &m_spec;
    const BertConfig &m_cfg;
    const InputMetaData &m_meta;
    const InputMetaData &m_checkpointMeta;
    const ProblemType m_problem;
    std::function<nn::BertForSequenceClassification()> m_makeModel;

    nn::BertForSequenceClassification m_model{nullptr};
    std::unique_ptr<ClassifierDataset> m_trainData, m_evalData;
    ClassifierBatch m_batch;
    BatchTensors m_tensors; ///< this worker's rows of the current batch, on the device
    std::unique_ptr<DynamicsRecorder> m_dynamics; ///< single-label with record_training_dynamics
    torch::Tensor m_posWeight; ///< multi-label with pos_weight balanced: float32 [num_labels], on the device
};

} // namespace

RunFinished Run::train()
{
    FineTuningTask task(m_spec, m_cfg, m_meta, m_checkpointMeta, m_problem, [this] { return makeModel(); });
    return TrainingLoop(m_spec, m_cfg, m_meta, m_sched, m_obs, m_stop, m_progress).run(task);
}

} // namespace wb
