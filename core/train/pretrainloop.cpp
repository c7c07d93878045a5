// SPDX-License-Identifier: Apache-2.0
// The masked-LM pretraining run (docs/pretraining.md): the phases of the fine-tuning loop
// (trainloop.cpp: set up → restore → outputs → steps with reports, evaluations and
// checkpoints → summary) with the parts that differ — the model (BertForPreTraining), the
// batches (PretrainingBatchSource), the loss and the metrics — and the same strategies,
// number formats, optimizer, schedule, checkpoint format, best checkpoint and early stopping.
// The set-up, the run directory and the start are shared with fine-tuning (trainingloop.h).
#include "core/train/coach.h"
#include "core/train/pretrainrun.h"

#include "core/config/jsonfile.h"
#include "core/data/preparereport.h"
#include "core/data/pretrainingdataset.h"
#include "core/distribute/strategy.h"
#include "core/io/eventwriter.h"
#include "core/io/metricswriter.h"
#include "core/model/initcheckpoint.h"
#include "core/model/pretrainingheads.h"
#include "core/train/adamw.h"
#include "core/train/bestmodel.h"
#include "core/train/checkpointio.h"
#include "core/train/checkpointstate.h"
#include "core/train/evalextras.h"
#include "core/train/evalpass.h"
#include "core/train/precision.h"
#include "core/train/pretrainpreflight.h"
#include "core/train/runidentity.h"
#include "core/train/trainingloop.h"
#include "core/train/trainingsummary.h"
#include "core/util/error.h"

#include <chrono>
#include <cmath>
#include <filesystem>

namespace fs = std::filesystem;

namespace wb {

namespace {

constexpr double kReportInterval = 0.05; // seconds between StepMetrics without --steps_per_loop

double now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

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

PretrainTensors rows(const PretrainTensors &t, int64_t from, int64_t count)
{
    return {t.ids.narrow(0, from, count),       t.mask.narrow(0, from, count),   t.segments.narrow(0, from, count),
            t.positions.narrow(0, from, count), t.lmIds.narrow(0, from, count),  t.lmWeights.narrow(0, from, count),
            t.nsp.narrow(0, from, count)};
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
                                 const c10::Device &device, NumberFormat format)
{
    torch::NoGradGuard guard;
    model->eval();
    data.reset();
    MlmSums sums;
    PretrainingBatch batch;
    int64_t examples = 0;
    while (data.next(batch)) {
        const PretrainTensors t = onDevice(toTensors(batch), device);
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


/// One pretraining run in named phases, as the fine-tuning loop's Run (trainloop.cpp): set up
/// (strategy, model, optimizer), restore (resume, continued pretraining or random weights),
/// outputs and data, the start (observer, coach, log), the steps (each with its report,
/// evaluation and checkpoint), the summary.
class PretrainRun
{
public:
    PretrainRun(const TrainingOptions &spec, const ValidationResult &v, TrainingObserver &obs, const StopToken &stop,
                RunFinished &progress)
        : m_spec(spec), m_obs(obs), m_stop(stop), m_progress(progress), m_cfg(*v.bert_config), m_meta(*v.meta_data),
          m_sched(*v.schedule)
    {
    }

    RunFinished run()
    {
        m_progress = RunFinished{};
        setUp();
        if (restore())
            return m_progress;
        openOutputsAndData();
        announceStart();
        for (int64_t step = m_start; step < m_sched.total_steps; ++step) {
            const std::optional<RunFinished> ended = trainStep(step);
            if (ended)
                return *ended;
            if (m_stoppedEarly)
                break;
            if (const std::optional<RunFinished> stopped = afterStep(step + 1))
                return *stopped;
        }
        return finish();
    }

private:
    // --- set up: the strategy, the model, the optimizer ---------------------------------------
    void setUp()
    {
        setUpLoop(m_loop, m_spec, m_obs, m_stop, [this]() -> torch::nn::Module & {
            m_model = nn::BertForPreTraining(m_cfg, m_meta.use_next_sentence_label,
                                             nn::makeGenerator(uint64_t(m_spec.seed)));
            m_model->setActivationCheckpointing(m_spec.activation_checkpointing);
            return *m_model;
        });
        m_view.emplace(CheckpointModel{*m_model, m_model->config(), 0, m_model->generator()});
    }

    // --- restore: resume, continued pretraining, or random weights; true when already complete
    bool restore()
    {
        m_lastCkpt = latestCheckpoint(m_spec.model_dir);
        if (!m_lastCkpt.empty()) {
            m_start = loadModelCheckpoint(m_lastCkpt, *m_view, m_loop.opt.get(), true).step;
            m_obs.logMessage("Resuming from checkpoint " + m_lastCkpt + " at step " + std::to_string(m_start));
            if (m_start > m_sched.total_steps)
                throw Error(m_lastCkpt, "the checkpoint is at step " + std::to_string(m_start) + ", past total_steps "
                                            + std::to_string(m_sched.total_steps) + " of this configuration",
                            "use a new --model_dir");
        } else if (!m_spec.init_checkpoint.empty()) {
            if (isTrainingCheckpointPath(m_spec.init_checkpoint)) {
                loadModelCheckpoint(m_spec.init_checkpoint, *m_view, nullptr, false);
                m_obs.logMessage("Init checkpoint " + m_spec.init_checkpoint + ": weights of a pretraining checkpoint");
            } else {
                const CheckpointMatch m = loadPretrainingCheckpoint(m_model, m_spec.init_checkpoint, m_spec.allow_partial_init);
                m_obs.logMessage("Init checkpoint " + m_spec.init_checkpoint + " (continued pretraining): " + m.summary());
            }
        } else {
            m_obs.logMessage("Pretraining from random weights (no --init_checkpoint or --pretrained_model)");
        }
        m_progress.last_checkpoint = m_lastCkpt;
        m_progress.last_step = m_start;
        agreeOnTheStart(m_loop, m_start, m_model->parameters(), m_model->generator(), m_spec.seed);
        if (m_start >= m_sched.total_steps || stoppedEarlyAt(m_spec.model_dir, m_start)) {
            m_progress.status = RunStatus::Completed;
            m_progress.message = "training was already complete at step " + std::to_string(m_start) + " (" + m_lastCkpt
                                 + "); nothing was changed";
            m_obs.logMessage(m_progress.message);
            return true;
        }
        return false;
    }

    // --- outputs and data -----------------------------------------------------------------------
    void openOutputsAndData()
    {
        if (m_loop.chief) // a killed run's temporaries removed, metrics.jsonl cut at the checkpoint
            openRunDirectory(m_spec, m_start, m_metrics);
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
        evalOptions.num_shards = m_loop.strategy->dataShard().num_shards;
        evalOptions.shard_index = m_loop.strategy->dataShard().shard_index;
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
                             + std::to_string(masking.masked_lm_prob) + (masking.whole_word_masking ? ", whole words" : "")
                             + ")");
        } else {
            m_trainData = std::make_unique<StaticMaskingBatches>(trainOptions);
            m_evalData = std::make_unique<StaticMaskingBatches>(evalOptions);
            m_obs.logMessage("masking: static (the records' own masks)");
        }
        m_extras = std::make_unique<EvalExtras>(m_spec, m_cfg, m_meta, m_loop.chief,
                                                /*singleWorker: no eval_examples.jsonl*/ false, m_start, m_obs);
        for (int64_t k = 0; k < m_start; ++k) // the data position of an uninterrupted run
            m_trainData->next(m_batch);
        m_runConfigWritten = fs::exists(runConfigPath(m_spec.model_dir));
    }

    // --- the start: the observer, the coach, the log --------------------------------------------
    void announceStart()
    {
        const RunStarted info = runStartedInfo(m_loop, m_sched, m_start, *m_model, m_spec.model_dir);
        m_obs.runStarted(info);
        // The coach's rules that apply to pretraining: the schedule, divergence, overfitting (the
        // MLM eval loss); the classification rules stay quiet (regression = true).
        if (m_loop.chief) {
            CoachSetup c = coachSetupFor(m_spec, m_sched);
            c.regression = true;
            m_coach = std::make_unique<Coach>(c);
            const auto first = m_coach->start();
            if (m_start == 0) // a resumed run said them when it began
                tell(first);
        }
        m_obs.logMessage("Pretraining " + std::to_string(info.parameter_count) + " parameters (masked LM"
                         + (m_meta.use_next_sentence_label ? " + next sentence" : "") + ", "
                         + std::to_string(m_meta.max_predictions_per_seq) + " predictions per sequence): steps_per_epoch "
                         + std::to_string(m_sched.steps_per_epoch) + ", total_steps " + std::to_string(m_sched.total_steps)
                         + ", warmup_steps " + std::to_string(m_sched.warmup_steps)
                         + (m_start ? ", resuming at step " + std::to_string(m_start) : ""));
        m_lastReport = now();
    }

    void tell(const std::vector<CoachNote> &notes)
    {
        for (const CoachNote &n : notes) {
            m_obs.coachNote(n);
            m_metrics->writeNote(n);
        }
    }

    void saveAt(int64_t step)
    {
        if (!m_loop.chief)
            return;
        if (!m_runConfigWritten) {
            writeRunConfig(m_spec.model_dir, RunIdentity::of(m_spec, m_cfg, m_meta, m_sched));
            m_runConfigWritten = true;
        }
        const std::string name = checkpointName(step);
        const std::string path = (fs::path(m_spec.model_dir) / name).string();
        saveModelCheckpoint(path, *m_view, *m_loop.opt, step, m_meta);
        for (const auto &gone : recordCheckpoint(m_spec.model_dir, name, m_spec.keep_checkpoint_max))
            m_obs.logMessage("Deleted old checkpoint " + gone);
        m_lastCkpt = path;
        m_progress.last_checkpoint = path;
        m_obs.checkpointSaved({step, path});
        m_obs.logMessage("Saved checkpoint " + path);
    }

    // --- one step: forward and backward over the micro-batches, the reduction, the update ------
    /// A failed run's RunFinished when the loss is not finite; nothing otherwise.
    std::optional<RunFinished> trainStep(int64_t step)
    {
        m_lr = m_sched.learningRate(step, learningRate(m_spec), m_spec.end_lr);
        m_trainData->next(m_batch);
        PretrainTensors all = toTensors(m_batch);
        const int64_t perWorker = m_batch.size / m_loop.strategy->worldSize();
        PretrainTensors t = onDevice(rows(all, m_loop.strategy->rank() * perWorker, perWorker), m_loop.device);
        const int64_t micro = t.ids.size(0) / m_loop.microBatches;
        torch::Tensor lossSum;
        for (int64_t k = 0; k < m_loop.microBatches; ++k) {
            const PretrainTensors mt = m_loop.microBatches == 1 ? t : rows(t, k * micro, micro);
            nn::PretrainingOutput out;
            {
                AutocastGuard autocast(m_loop.format, m_loop.device);
                out = m_model->forward(mt.ids, mt.mask, mt.segments, mt.positions);
            }
            PretrainingLoss l = pretrainingLoss(out.mlm_logits, mt.lmIds, mt.lmWeights, out.nsp_logits, mt.nsp);
            torch::Tensor loss = m_loop.microBatches > 1 ? l.loss / double(m_loop.microBatches) : l.loss;
            (m_loop.scaler ? loss * m_loop.scaler->scale() : loss).backward();
            lossSum = lossSum.defined() ? lossSum + loss.detach() : loss.detach();
            m_reportSums.add(out, l, mt);
        }
        double lossValue = lossSum.item<double>();
        const auto parameters = m_model->parameters();
        m_stopVote = m_loop.strategy->reduceGradients(parameters, m_stop.stopRequested(), &lossValue);
        if (!std::isfinite(lossValue)) {
            m_progress.status = RunStatus::Failed;
            m_progress.last_step = step;
            m_progress.field = "learning_rate";
            m_progress.message = "the pretraining loss became " + std::string(std::isnan(lossValue) ? "NaN" : "infinite")
                                 + " at step " + std::to_string(step + 1) + " (learning_rate " + fmt(m_lr) + "); "
                                 + (m_lastCkpt.empty() ? "no checkpoint was written" : "last good checkpoint: " + m_lastCkpt);
            m_progress.hint = "lower --learning_rate (e.g. by 10x) and start again in a new --model_dir";
            return m_progress;
        }
        if (!m_loop.scaler || m_loop.scaler->unscale(parameters))
            m_loop.opt->step(m_lr);
        else
            m_loop.opt->skipStep();
        m_loop.opt->zeroGrad();
        const int64_t global = step + 1;
        m_reportLoss += lossValue;
        m_epochLoss += lossValue;
        ++m_reportSteps;
        ++m_epochSteps;
        m_reportExamples += m_batch.size;
        m_progress.last_step = global;

        const bool stopNow = m_loop.strategy->worldSize() > 1 ? m_stopVote : m_stop.stopRequested();
        const bool boundary = isBoundary(global);
        const double tnow = now();
        const bool due = m_spec.steps_per_loop
                             ? ((global - 1) % m_sched.steps_per_epoch + 1) % *m_spec.steps_per_loop == 0
                             : tnow - m_lastReport >= kReportInterval;
        if ((due || boundary || stopNow) && m_reportSteps > 0)
            reportSteps(global, tnow);
        if (boundary) {
            evaluate(global);
            saveAt(global);
            if (m_extras->afterCheckpoint(*m_lastEval, m_lastCkpt))
                m_stoppedEarly = global;
            m_lastReport = now();
        }
        m_stopNow = stopNow;
        return std::nullopt;
    }

    /// The steps since the last report: the observer, the coach, metrics.jsonl, TensorBoard.
    void reportSteps(int64_t global, double tnow)
    {
        StepMetrics sm;
        sm.step = global;
        sm.total_steps = m_sched.total_steps;
        sm.epoch = double(global) / double(m_sched.steps_per_epoch * m_spec.num_eval_per_epoch);
        sm.loss = m_reportLoss / double(m_reportSteps);
        sm.learning_rate = m_lr;
        sm.examples_per_second = tnow > m_lastReport ? double(m_reportExamples) / (tnow - m_lastReport) : 0.0;
        sm.wall_time = tnow;
        m_obs.stepCompleted(sm);
        if (m_coach)
            tell(m_coach->step(sm));
        if (m_loop.chief)
            writeStepMetrics(sm);
        m_progress.final_train_loss = sm.loss;
        m_reportLoss = 0;
        m_reportSteps = 0;
        m_reportExamples = 0;
        m_reportSums = MlmSums{};
        m_lastReport = tnow;
    }

    void writeStepMetrics(const StepMetrics &sm)
    {
        const MlmSums &r = m_reportSums;
        nlohmann::json line = MetricsWriter::trainJson(sm);
        line["mlm_loss"] = r.mlmLoss();
        line["mlm_accuracy"] = r.mlmAccuracy();
        if (r.nspCount > 0) {
            line["nsp_loss"] = r.nspLoss / r.nspCount;
            line["nsp_accuracy"] = r.nspCorrect / r.nspCount;
        }
        m_metrics->writeLine(line);
        if (!m_trainEvents)
            m_trainEvents = std::make_unique<EventWriter>((fs::path(m_spec.model_dir) / "summaries" / "train").string(),
                                                          sm.wall_time);
        const int64_t global = sm.step;
        m_trainEvents->addScalar("loss", global, sm.loss, sm.wall_time);
        m_trainEvents->addScalar("mlm_loss", global, r.mlmLoss(), sm.wall_time);
        m_trainEvents->addScalar("mlm_accuracy", global, r.mlmAccuracy(), sm.wall_time);
        if (r.nspCount > 0) {
            m_trainEvents->addScalar("nsp_loss", global, r.nspLoss / r.nspCount, sm.wall_time);
            m_trainEvents->addScalar("nsp_accuracy", global, r.nspCorrect / r.nspCount, sm.wall_time);
        }
        m_trainEvents->addScalar("learning_rate", global, m_lr, sm.wall_time);
        m_trainEvents->addScalar("examples_per_second", global, sm.examples_per_second, sm.wall_time);
        m_trainEvents->flush();
    }

    /// The evaluation at an epoch boundary: the log, the observer, the coach, metrics.jsonl and
    /// TensorBoard's validation events.
    void evaluate(int64_t global)
    {
        PretrainEval e = evaluatePretraining(m_model, *m_evalData, *m_loop.strategy, m_loop.device, m_loop.format);
        e.metrics.step = global;
        e.metrics.wall_time = now();
        m_obs.logMessage("Train Step: " + std::to_string(global) + "/" + std::to_string(m_sched.total_steps)
                         + "  / loss = " + fmt(m_epochLoss / double(m_epochSteps)) + "  learning_rate = " + fmt(m_lr));
        m_obs.logMessage("Eval: mlm_loss = " + fmt(e.mlm_loss) + "  mlm_accuracy = " + fmt(e.mlm_accuracy)
                         + "  perplexity = " + fmt(e.perplexity)
                         + (e.nsp ? "  next_sentence_accuracy = " + fmt(e.nsp_accuracy) : std::string()) + "  ("
                         + std::to_string(e.metrics.num_examples) + " sequences)");
        m_obs.evaluationCompleted(e.metrics);
        if (m_coach)
            tell(m_coach->evaluation(e.metrics));
        if (m_loop.chief)
            writeEvalMetrics(e);
        m_lastEval = e.metrics;
        m_progress.final_train_loss = m_epochLoss / double(m_epochSteps);
        m_epochLoss = 0;
        m_epochSteps = 0;
    }

    void writeEvalMetrics(const PretrainEval &e)
    {
        nlohmann::json line = MetricsWriter::evalJson(e.metrics);
        line["eval_mlm_loss"] = e.mlm_loss;
        line["eval_mlm_accuracy"] = e.mlm_accuracy;
        line["eval_perplexity"] = e.perplexity; // eval_nsp_* come with the metrics (next_sentence)
        m_metrics->writeLine(line);
        if (!m_evalEvents)
            m_evalEvents = std::make_unique<EventWriter>((fs::path(m_spec.model_dir) / "summaries" / "validation").string(),
                                                         e.metrics.wall_time);
        const double w = e.metrics.wall_time;
        const int64_t global = e.metrics.step;
        m_evalEvents->addScalar("eval_loss", global, e.mlm_loss, w);
        m_evalEvents->addScalar("eval_mlm_loss", global, e.mlm_loss, w);
        m_evalEvents->addScalar("eval_mlm_accuracy", global, e.mlm_accuracy, w);
        m_evalEvents->addScalar("eval_perplexity", global, e.perplexity, w);
        if (e.nsp) {
            m_evalEvents->addScalar("eval_nsp_loss", global, e.nsp_loss, w);
            m_evalEvents->addScalar("eval_nsp_accuracy", global, e.nsp_accuracy, w);
        }
        m_evalEvents->flush();
    }

    /// An epoch boundary (evaluation and checkpoint) after step `global`, or the last step.
    bool isBoundary(int64_t global) const
    {
        return global % m_sched.steps_per_epoch == 0 || global == m_sched.total_steps;
    }

    /// Checkpoints between boundaries and the user's stop; the cancelled run's RunFinished.
    std::optional<RunFinished> afterStep(int64_t global)
    {
        if (!isBoundary(global)
            && (m_stopNow || (m_spec.save_checkpoints_steps > 0 && global % m_spec.save_checkpoints_steps == 0)))
            saveAt(global);
        const bool stopAfter = m_loop.strategy->worldSize() > 1 ? m_stopVote : m_stop.stopRequested();
        if (stopAfter && global < m_sched.total_steps) {
            if (checkpointStep(m_lastCkpt) != global)
                saveAt(global);
            m_progress.status = RunStatus::Cancelled;
            m_progress.message = "stopped by the user after step " + std::to_string(global) + "; checkpoint " + m_lastCkpt;
            return m_progress;
        }
        return std::nullopt;
    }

    // --- the summary ------------------------------------------------------------------------------
    RunFinished finish()
    {
        const int64_t total = m_sched.total_steps;
        TrainingSummary summary;
        summary.total_training_steps = total;
        summary.train_loss = m_progress.final_train_loss;
        summary.last_eval = m_lastEval;
        m_extras->describe(summary, m_progress, m_stoppedEarly);
        if (m_coach)
            summary.coach_notes = m_coach->notes();
        if (m_loop.chief)
            writeTrainingSummary(m_spec.model_dir, summary);
        m_progress.status = RunStatus::Completed;
        m_progress.last_step = m_stoppedEarly ? m_stoppedEarly : total;
        m_progress.message = m_stoppedEarly ? "stopped early at step " + std::to_string(m_stoppedEarly)
                                                  + "; best at step " + std::to_string(m_extras->tracker().best_step)
                                            : "pretraining completed at step " + std::to_string(total);
        return m_progress;
    }

    const TrainingOptions &m_spec;
    TrainingObserver &m_obs;
    const StopToken &m_stop;
    RunFinished &m_progress;
    const BertConfig m_cfg;
    const InputMetaData m_meta;
    const Schedule m_sched;

    LoopParts m_loop; ///< strategy, device, number format, micro-batches, optimizer (trainingloop.h)
    nn::BertForPreTraining m_model{nullptr};
    std::optional<CheckpointModel> m_view;

    std::string m_lastCkpt;
    int64_t m_start = 0;
    std::optional<MetricsWriter> m_metrics;
    std::unique_ptr<EventWriter> m_trainEvents, m_evalEvents;
    std::unique_ptr<PretrainingBatchSource> m_trainData, m_evalData;
    std::unique_ptr<EvalExtras> m_extras;
    PretrainingBatch m_batch;
    std::unique_ptr<Coach> m_coach;
    bool m_runConfigWritten = false;

    double m_reportLoss = 0, m_epochLoss = 0, m_lastReport = 0, m_lr = 0;
    int64_t m_reportSteps = 0, m_epochSteps = 0, m_reportExamples = 0, m_stoppedEarly = 0;
    MlmSums m_reportSums;
    std::optional<EvalMetrics> m_lastEval;
    bool m_stopVote = false, m_stopNow = false; ///< this step's vote and stop, as trainStep saw them
};

} // namespace

RunFinished runPretraining(const TrainingOptions &spec, const ValidationResult &v, TrainingObserver &obs,
                           const StopToken &stop, RunFinished &progress)
{
    return PretrainRun(spec, v, obs, stop, progress).run();
}

} // namespace wb
