// SPDX-License-Identifier: Apache-2.0
// Masked-LM pretraining (docs/pretraining.md) as a TrainingTask: the model (BertForPreTraining),
// the batches (PretrainingBatchSource), the loss and the metrics. Everything else — strategies,
// number formats, optimizer, schedule, checkpoints, resume, reports, best checkpoint and early
// stopping — is the TrainingLoop's, the same as fine-tuning's (trainingloop.h).
#include "core/engine/pretrainrun.h"

#include "core/config/optionwords.h"
#include "core/data/pretrainingdataset.h"
#include "core/model/initcheckpoint.h"
#include "core/model/pretrainingheads.h"
#include "core/engine/batching.h"
#include "core/engine/evalpass.h"
#include "core/engine/precision.h"
#include "core/engine/pretrainpreflight.h"
#include "core/formats/runidentity.h"
#include "core/engine/trainingloop.h"

#include <cmath>
#include <memory>

namespace wb {

namespace {

/// A batch as tensors (views of `b`, which must outlive them).
struct PretrainTensors
{
    torch::Tensor ids, mask, segments, positions, lmIds, lmWeights, nsp;
};

PretrainTensors toTensors(PretrainingBatch &b)
{
    const auto i64 = torch::TensorOptions().dtype(torch::kLong);
    const auto f32 = torch::TensorOptions().dtype(torch::kFloat);
    PretrainTensors t;
    t.ids = torch::from_blob(b.input_ids.data(), {b.size, b.seq_length}, i64);
    t.mask = torch::from_blob(b.input_mask.data(), {b.size, b.seq_length}, i64);
    t.segments = torch::from_blob(b.segment_ids.data(), {b.size, b.seq_length}, i64);
    t.positions = torch::from_blob(b.masked_lm_positions.data(), {b.size, b.predictions}, i64);
    t.lmIds = torch::from_blob(b.masked_lm_ids.data(), {b.size, b.predictions}, i64);
    t.lmWeights = torch::from_blob(b.masked_lm_weights.data(), {b.size, b.predictions}, f32);
    t.nsp = torch::from_blob(b.next_sentence_labels.data(), {b.size}, i64);
    return t;
}

PretrainTensors rowsOf(const PretrainTensors &t, int64_t from, int64_t count)
{
    return {t.ids.narrow(0, from, count),       t.mask.narrow(0, from, count),   t.segments.narrow(0, from, count),
            t.positions.narrow(0, from, count), t.lmIds.narrow(0, from, count),  t.lmWeights.narrow(0, from, count),
            t.nsp.narrow(0, from, count)};
}

/// `t` cut after its longest row when `padding` is "longest" (trimmedToLongest's rule; the
/// masked_lm_positions lie in the marked positions, so none is cut off).
PretrainTensors trimmed(PretrainTensors t, const std::string &padding)
{
    if (padding != "longest" || t.mask.size(1) <= 1)
        return t;
    const int64_t longest = longestMarkedRow(t.mask);
    if (longest < t.mask.size(1))
        for (torch::Tensor *x : {&t.ids, &t.mask, &t.segments})
            *x = x->narrow(1, 0, longest).contiguous();
    return t;
}

PretrainTensors onDevice(PretrainTensors t, const c10::Device &d)
{
    if (d.is_cpu())
        return t;
    return {t.ids.to(d), t.mask.to(d), t.segments.to(d), t.positions.to(d), t.lmIds.to(d), t.lmWeights.to(d), t.nsp.to(d)};
}

/// Weighted sums over the masked positions: Σw·CE, Σw, Σw·[argmax = id]; next sentence:
/// Σ CE, correct, count. Summed over batches (and workers), then divided.
struct MlmSums
{
    double weightedLoss = 0, weight = 0, weightedCorrect = 0;
    double nspLoss = 0, nspCorrect = 0, nspCount = 0;

    /// Adds one batch: its loss terms (pretrainingLoss: the per-position CE, not computed twice).
    void add(const nn::PretrainingOutput &out, const PretrainingLoss &l, const PretrainTensors &t)
    {
        torch::NoGradGuard guard;
        const auto w = t.lmWeights.to(torch::kFloat);
        const auto correct = (out.mlm_logits.detach().argmax(-1) == t.lmIds).to(torch::kFloat);
        weightedLoss += (w * l.mlm_per_position).sum().item<double>();
        weight += w.sum().item<double>();
        weightedCorrect += (w * correct).sum().item<double>();
        if (out.nsp_logits.defined()) {
            nspLoss += l.nsp_per_example.sum().item<double>();
            nspCorrect += (out.nsp_logits.detach().argmax(-1) == t.nsp).sum().item<double>();
            nspCount += double(t.nsp.size(0));
        }
    }
    /// run_pretraining.py's metric_fn: the weighted mean loss and accuracy (the loss with
    /// the 1e-5 of the training loss's denominator).
    double mlmLoss() const { return weightedLoss / (weight + 1e-5); }
    double mlmAccuracy() const { return weight > 0 ? weightedCorrect / weight : 0.0; }
    std::vector<double> values() const { return {weightedLoss, weight, weightedCorrect, nspLoss, nspCorrect, nspCount}; }
    void set(const std::vector<double> &v)
    {
        weightedLoss = v[0], weight = v[1], weightedCorrect = v[2], nspLoss = v[3], nspCorrect = v[4], nspCount = v[5];
    }
};

/// One pretraining evaluation.
struct PretrainEval
{
    EvalMetrics metrics; ///< eval_loss = MLM loss, eval_accuracy = MLM accuracy (the plot's curves)
    double mlm_loss = 0, mlm_accuracy = 0, perplexity = 0;
    bool nsp = false;
    double nsp_loss = 0, nsp_accuracy = 0;
};

PretrainEval evaluatePretraining(nn::BertForPreTraining &model, PretrainingBatchSource &data, Strategy &strategy,
                                 const c10::Device &device, NumberFormat format, const std::string &padding)
{
    torch::NoGradGuard guard;
    model->eval();
    data.reset();
    MlmSums sums;
    PretrainingBatch batch;
    int64_t examples = 0;
    while (data.next(batch)) {
        const PretrainTensors t = onDevice(trimmed(toTensors(batch), padding), device);
        nn::PretrainingOutput out;
        {
            AutocastGuard autocast(format, device);
            out = model->forward(t.ids, t.mask, t.segments, t.positions);
        }
        sums.add(out, pretrainingLoss(out.mlm_logits, t.lmIds, t.lmWeights, out.nsp_logits, t.nsp), t);
        examples += batch.size;
    }
    model->train();
    std::vector<double> v = sums.values();
    v.push_back(double(examples));
    strategy.sumAcrossWorkers(v); // every worker evaluated its shard
    sums.set(v);
    PretrainEval e;
    e.mlm_loss = sums.mlmLoss();
    e.mlm_accuracy = sums.mlmAccuracy();
    e.perplexity = std::exp(e.mlm_loss);
    e.nsp = model->hasNextSentenceHead();
    if (e.nsp && sums.nspCount > 0) {
        e.nsp_loss = sums.nspLoss / sums.nspCount;
        e.nsp_accuracy = sums.nspCorrect / sums.nspCount;
    }
    e.metrics.eval_loss = e.mlm_loss;
    e.metrics.eval_accuracy = e.mlm_accuracy;
    e.metrics.next_sentence = e.nsp;
    e.metrics.eval_nsp_loss = e.nsp_loss;
    e.metrics.eval_nsp_accuracy = e.nsp_accuracy;
    e.metrics.num_examples = int64_t(v[6]);
    return e;
}

std::string fmt(double v, int precision = 4) { return formatMetric(v, precision); }

/// Masked-LM pretraining as a TrainingTask: BertForPreTraining (masked LM, next sentence when
/// the records have it), static or dynamic masking, pretrainingLoss, the MLM evaluation.
class PretrainingTask final : public TrainingTask
{
public:
    PretrainingTask(const TrainingOptions &spec, const BertConfig &cfg, const InputMetaData &meta, TrainingObserver &obs)
        : m_spec(spec), m_cfg(cfg), m_meta(meta), m_obs(obs)
    {
    }

    std::string noun() const override { return "pretraining"; }

    torch::nn::Module &buildModel() override
    {
        m_model = nn::BertForPreTraining(m_cfg, m_meta.use_next_sentence_label, nn::makeGenerator(uint64_t(m_spec.seed)));
        m_model->setActivationCheckpointing(m_spec.activation_checkpointing);
        return *m_model;
    }

    CheckpointModel checkpointModel() override { return {*m_model, m_model->config(), 0, m_model->generator()}; }

    const InputMetaData &checkpointMeta() const override { return m_meta; }

    void initialWeights(TrainingObserver &obs) override
    {
        if (m_spec.init_checkpoint.empty()) {
            obs.logMessage("Pretraining from random weights (no " + optionName("init_checkpoint") + " or "
                           + optionName("pretrained_model") + ")");
        } else if (isTrainingCheckpointPath(m_spec.init_checkpoint)) {
            loadModelCheckpoint(m_spec.init_checkpoint, checkpointModel(), nullptr, false);
            obs.logMessage("Init checkpoint " + m_spec.init_checkpoint + ": weights of a pretraining checkpoint");
        } else {
            const CheckpointMatch m = loadPretrainingCheckpoint(m_model, m_spec.init_checkpoint, m_spec.allow_partial_init);
            obs.logMessage("Init checkpoint " + m_spec.init_checkpoint + " (continued pretraining): " + m.summary());
        }
    }

    /// The coach's rules that apply to pretraining: the schedule, divergence, overfitting (the
    /// MLM eval loss); the classification rules stay quiet (regression = true).
    void describe(RunStarted &info, CoachSetup &coach) const override { coach.regression = true; }

    std::string announcement(const RunStarted &info) const override
    {
        return "Pretraining " + std::to_string(info.parameter_count) + " parameters (masked LM"
               + (m_meta.use_next_sentence_label ? " + next sentence" : "") + ", "
               + std::to_string(m_meta.max_predictions_per_seq) + " predictions per sequence)";
    }

    void openData(const LoopParts &parts, int64_t start) override
    {
        PretrainingDataOptions trainOptions;
        trainOptions.pattern = m_spec.train_data_path;
        trainOptions.spec.max_seq_length = m_meta.max_seq_length;
        trainOptions.spec.max_predictions_per_seq = m_meta.max_predictions_per_seq;
        trainOptions.spec.vocab_size = m_cfg.vocab_size;
        trainOptions.spec.type_vocab_size = m_cfg.type_vocab_size;
        trainOptions.batch_size = m_spec.train_batch_size; // the global batch: every worker reads it, takes its rows
        trainOptions.training = true;
        trainOptions.seed = uint64_t(m_spec.seed);
        PretrainingDataOptions evalOptions = trainOptions;
        evalOptions.pattern = m_spec.eval_data_path;
        evalOptions.batch_size = m_spec.eval_batch_size;
        evalOptions.training = false;
        evalOptions.num_shards = parts.strategy->dataShard().num_shards;
        evalOptions.shard_index = parts.strategy->dataShard().shard_index;
        if (m_meta.masking == "dynamic") {
            // New masks each time a sequence is read, from the run's seed (the eval set's masks are
            // drawn the same at every evaluation: reset() seeds them again).
            MlmMaskingOptions masking;
            masking.masked_lm_prob = m_meta.masked_lm_prob.value_or(masking.masked_lm_prob);
            masking.whole_word_masking = m_meta.whole_word_masking;
            const Vocab vocab = Vocab::load(dynamicMaskingVocab(m_spec));
            m_trainData = std::make_unique<DynamicMaskingBatches>(trainOptions, vocab, masking);
            evalOptions.seed = trainOptions.seed + 1;
            m_evalData = std::make_unique<DynamicMaskingBatches>(evalOptions, vocab, masking);
            m_obs.logMessage("masking: dynamic (new masks each epoch; masked_lm_prob "
                              + std::to_string(masking.masked_lm_prob)
                              + (masking.whole_word_masking ? ", whole words" : "") + ")");
        } else {
            m_trainData = std::make_unique<StaticMaskingBatches>(trainOptions);
            m_evalData = std::make_unique<StaticMaskingBatches>(evalOptions);
            m_obs.logMessage("masking: static (the records' own masks)");
        }
        for (int64_t k = 0; k < start; ++k) // the data position of an uninterrupted run
            m_trainData->next(m_batch);
    }

    bool writesEvalExamples(const LoopParts &) const override { return false; }

    int64_t nextBatch(const LoopParts &parts) override
    {
        m_trainData->next(m_batch);
        PretrainTensors all = toTensors(m_batch);
        const int64_t perWorker = m_batch.size / parts.strategy->worldSize();
        m_tensors = onDevice(trimmed(rowsOf(all, parts.strategy->rank() * perWorker, perWorker), m_spec.padding),
                             parts.device);
        return m_batch.size;
    }

    torch::Tensor microBatchLoss(const LoopParts &parts, int64_t k) override
    {
        const PretrainTensors mt = microBatchOf(m_tensors, k, parts.microBatches);
        nn::PretrainingOutput out;
        {
            AutocastGuard autocast(parts.format, parts.device);
            out = m_model->forward(mt.ids, mt.mask, mt.segments, mt.positions);
        }
        PretrainingLoss l = pretrainingLoss(out.mlm_logits, mt.lmIds, mt.lmWeights, out.nsp_logits, mt.nsp);
        m_reportSums.add(out, l, mt);
        return l.loss;
    }

    NamedScalars reportFields() override
    {
        const MlmSums r = m_reportSums;
        m_reportSums = MlmSums{};
        NamedScalars f{{"mlm_loss", r.mlmLoss()}, {"mlm_accuracy", r.mlmAccuracy()}};
        if (r.nspCount > 0)
            f.insert(f.end(), {{"nsp_loss", r.nspLoss / r.nspCount}, {"nsp_accuracy", r.nspCorrect / r.nspCount}});
        return f;
    }

    TaskEvaluation evaluate(const LoopParts &parts, EvalExtras &) override
    {
        const PretrainEval e = evaluatePretraining(m_model, *m_evalData, *parts.strategy, parts.device, parts.format,
                                                  m_spec.padding);
        TaskEvaluation ev;
        ev.metrics = e.metrics;
        ev.log_line = "Eval: mlm_loss = " + fmt(e.mlm_loss) + "  mlm_accuracy = " + fmt(e.mlm_accuracy)
                      + "  perplexity = " + fmt(e.perplexity)
                      + (e.nsp ? "  next_sentence_accuracy = " + fmt(e.nsp_accuracy) : std::string()) + "  ("
                      + std::to_string(e.metrics.num_examples) + " sequences)";
        // eval_nsp_* come with the metrics (next_sentence)
        ev.fields = {{"eval_mlm_loss", e.mlm_loss}, {"eval_mlm_accuracy", e.mlm_accuracy}, {"eval_perplexity", e.perplexity}};
        ev.tensorboard = {{"eval_loss", e.mlm_loss},
                          {"eval_mlm_loss", e.mlm_loss},
                          {"eval_mlm_accuracy", e.mlm_accuracy},
                          {"eval_perplexity", e.perplexity}};
        if (e.nsp)
            ev.tensorboard.insert(ev.tensorboard.end(), {{"eval_nsp_loss", e.nsp_loss}, {"eval_nsp_accuracy", e.nsp_accuracy}});
        return ev;
    }

private:
    const TrainingOptions &m_spec;
    const BertConfig &m_cfg;
    const InputMetaData &m_meta;
    TrainingObserver &m_obs; ///< for openData's masking line

    nn::BertForPreTraining m_model{nullptr};
    std::unique_ptr<PretrainingBatchSource> m_trainData, m_evalData;
    PretrainingBatch m_batch;
    PretrainTensors m_tensors; ///< this worker's rows of the current batch, on the device
    MlmSums m_reportSums;      ///< since the last report
};

} // namespace

RunFinished runPretraining(const TrainingOptions &spec, const ValidationResult &v, TrainingObserver &obs,
                           const StopToken &stop, RunFinished &progress)
{
    PretrainingTask task(spec, *v.bert_config, *v.meta_data, obs);
    return TrainingLoop(spec, *v.bert_config, *v.meta_data, *v.schedule, obs, stop, progress).run(task);
}

} // namespace wb
