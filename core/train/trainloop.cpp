// SPDX-License-Identifier: Apache-2.0
// Run::train in named phases: setUp → restore → (alreadyComplete) → openOutputs → announce
// → for each step: trainStep, report, evaluateAndCheckpoint / interval checkpoint → finish.
// The loop follows run_classifier's custom training loop (tensorflow/models
// official/nlp/bert/model_training_utils.py): evaluation and a checkpoint every
// steps_per_epoch steps, steps_per_loop steps between summaries and progress reports.
#include "core/config/jsonfile.h"
#include "core/data/classifierdataset.h"
#include "core/distribute/strategy.h"
#include "core/io/metricswriter.h"
#include "core/io/summarywriter.h"
#include "core/config/labelnames.h"
#include "core/model/initcheckpoint.h"
#include "core/train/adamw.h"
#include "core/train/batching.h"
#include "core/train/checkpointio.h"
#include "core/train/checkpointstate.h"
#include "core/train/coach.h"
#include "core/io/metricsreader.h"
#include "core/train/bestmodel.h"
#include "core/train/evalextras.h"
#include "core/train/evalpass.h"
#include "core/train/precision.h"
#include "core/train/run.h"
#include "core/train/runidentity.h"
#include "core/train/trainingloop.h"
#include "core/train/trainingsummary.h"
#include "core/util/error.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>

namespace fs = std::filesystem;

namespace wb {

namespace {

// Without --steps_per_loop, observer hooks are throttled to one StepMetrics per this many seconds.
constexpr double kReportInterval = 0.05;

double now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// Passes the coach's new notes to the observer and metrics.jsonl (core/train/coach.h).
void tell(TrainingObserver &obs, std::optional<MetricsWriter> &metrics, const std::vector<CoachNote> &notes)
{
    for (const CoachNote &n : notes) {
        obs.coachNote(n);
        if (metrics)
            metrics->writeNote(n);
    }
}

} // namespace

/// The loop's parts (strategy, device, number format, micro-batches, optimizer: trainingloop.h)
/// and what fine-tuning adds.
struct Run::TrainState : LoopParts
{
    nn::BertForSequenceClassification model{nullptr};
    int64_t start = 0;
    std::string lastCkpt;
    bool runConfigWritten = false;

    std::optional<MetricsWriter> metrics;
    std::unique_ptr<SummaryWriter> summaries;
    std::unique_ptr<ClassifierDataset> trainData, evalData;
    ClassifierBatch batch;

    // Per-step values and the accumulators of the current report and evaluation interval.
    int64_t global = 0;
    double lr = 0;
    bool stopVote = false;
    double reportLoss = 0, epochLoss = 0;
    int64_t reportSteps = 0, epochSteps = 0, reportExamples = 0;
    double lastReport = 0, logStart = 0;
    int64_t logStartStep = 0;
    std::optional<EvalMetrics> lastEval;
    std::unique_ptr<EvalExtras> extras; // eval_examples.jsonl, best checkpoint, early stopping
    int64_t stoppedEarlyAt = 0;
    std::unique_ptr<Coach> coach; // the chief's: notes on the metric stream
};

void Run::setUp(TrainState &s)
{
    setUpLoop(s, m_spec, m_obs, m_stop, [&]() -> torch::nn::Module & {
        s.model = makeModel();
        return *s.model;
    });
}

void Run::restore(TrainState &s)
{
    s.lastCkpt = latestCheckpoint(m_spec.model_dir);
    if (!s.lastCkpt.empty()) {
        // Model, optimizer slots and the dropout RNG: the next step is the step an
        // uninterrupted run would take (the data position is restored in openOutputs).
        s.start = loadCheckpoint(s.lastCkpt, s.model, s.opt.get(), true).step;
        m_obs.logMessage("Resuming from checkpoint " + s.lastCkpt + " at step " + std::to_string(s.start));
        if (s.start > m_sched.total_steps)
            throw Error(s.lastCkpt, "the checkpoint is at step " + std::to_string(s.start) + ", past total_steps "
                                        + std::to_string(m_sched.total_steps) + " of this configuration",
                        "use a new --model_dir");
        s.runConfigWritten = fs::exists(runConfigPath(m_spec.model_dir));
    } else if (!m_spec.init_checkpoint.empty()) {
        // Weights only, a new run: any init checkpoint, a training run's ckpt-N or model_dir
        // included (locateCheckpoint); a head of another num_labels is initialised anew.
        auto m = loadInitCheckpoint(s.model, m_spec.init_checkpoint, m_spec.allow_partial_init);
        m_obs.logMessage("Init checkpoint " + m_spec.init_checkpoint + ": " + m.summary());
    }
    m_progress.last_checkpoint = s.lastCkpt;
    m_progress.last_step = s.start;
    agreeOnTheStart(s, s.start, s.model->parameters(), s.model->generator(), m_spec.seed);
}

RunFinished Run::alreadyComplete(const TrainState &s)
{
    // Touch no result file: report what the finished run wrote.
    RunFinished &r = m_progress;
    r.status = RunStatus::Completed;
    r.last_step = s.start;
    r.last_checkpoint = s.lastCkpt;
    try {
        if (const auto summary = readTrainingSummary(m_spec.model_dir); summary && std::isfinite(summary->train_loss))
            r.final_train_loss = summary->train_loss;
    } catch (const Error &e) { // the run is complete whatever its summary says
        m_obs.logMessage("warning: " + e.field() + ": " + e.what() + " (" + e.hint() + ")");
    }
    r.message = "training was already complete at step " + std::to_string(s.start) + " (" + s.lastCkpt
                + "); nothing was changed";
    m_obs.logMessage(r.message);
    return r;
}

void Run::openOutputs(TrainState &s)
{
    if (s.chief) {
        openRunDirectory(m_spec, s.start, s.metrics);
        s.summaries = std::make_unique<SummaryWriter>(m_spec.model_dir);
    }
    s.trainData = std::make_unique<ClassifierDataset>(
        datasetOptions(m_spec, m_cfg, m_meta, m_spec.train_data_path, true));
    DatasetOptions evalOptions = datasetOptions(m_spec, m_cfg, m_meta, m_spec.eval_data_path, false);
    evalOptions.num_shards = s.strategy->dataShard().num_shards; // sharded evaluation, combined in evaluate()
    evalOptions.shard_index = s.strategy->dataShard().shard_index;
    s.evalData = std::make_unique<ClassifierDataset>(evalOptions);
    s.extras = std::make_unique<EvalExtras>(m_spec, m_cfg, m_meta, s.chief, s.strategy->worldSize() == 1, s.start, m_obs);
    // The data position: the same seeded order as an uninterrupted run, `start` batches in.
    for (int64_t k = 0; k < s.start; ++k)
        s.trainData->next(s.batch);
}

void Run::announce(TrainState &s)
{
    RunStarted info = runStartedInfo(s, m_sched, s.start, *s.model, m_spec.model_dir);
    info.num_labels = m_meta.num_labels;
    m_obs.runStarted(info);
    if (s.chief) {
        CoachSetup setup = coachSetupFor(m_spec, m_sched);
        setup.num_labels = m_meta.num_labels;
        setup.regression = m_regression;
        s.coach = std::make_unique<Coach>(setup);
        const auto first = s.coach->start();
        if (s.start > 0) { // resumed: the coach reads what the run logged so far, and says only what is new
            const MetricsLog log = readMetricsFile(m_spec.metricsPath());
            size_t e = 0;
            for (const StepMetrics &m : log.train) {
                for (; e < log.eval.size() && log.eval[e].step < m.step; ++e)
                    s.coach->evaluation(log.eval[e]);
                s.coach->step(m);
            }
            for (; e < log.eval.size(); ++e)
                s.coach->evaluation(log.eval[e]);
        } else {
            tell(m_obs, s.metrics, first);
        }
    }
    m_obs.logMessage("Training " + std::to_string(info.parameter_count) + " parameters: steps_per_epoch "
                     + std::to_string(info.steps_per_epoch) + ", total_steps " + std::to_string(info.total_steps)
                     + ", warmup_steps " + std::to_string(m_sched.warmup_steps)
                     + (s.start ? ", resuming at step " + std::to_string(s.start) : ""));
    s.lastReport = s.logStart = now();
    s.logStartStep = s.start;
}

bool Run::trainStep(TrainState &s, int64_t step)
{
    s.lr = m_sched.learningRate(step, learningRate(m_spec), m_spec.end_lr);
    s.trainData->next(s.batch);
    BatchTensors t = onDevice(workerSlice(toTensors(s.batch), *s.strategy), s.device);
    // Gradient accumulation: N equal micro-batches, each loss divided by N, so the summed
    // gradients and losses are those of the whole batch (the loss is a mean over examples).
    const int64_t micro = t.ids.size(0) / s.microBatches;
    torch::Tensor lossSum; // the step's loss, read once after the micro-batches (one sync on CUDA)
    for (int64_t k = 0; k < s.microBatches; ++k) {
        const BatchTensors mt = s.microBatches == 1 ? t : rowsOf(t, k * micro, micro);
        torch::Tensor logits;
        {
            AutocastGuard autocast(s.format, s.device);
            logits = s.model->forward(mt.ids, mt.mask, mt.segments);
        }
        auto loss = lossFor(logits, mt, m_regression);
        if (s.microBatches > 1)
            loss = loss / double(s.microBatches);
        (s.scaler ? loss * s.scaler->scale() : loss).backward();
        lossSum = lossSum.defined() ? lossSum + loss.detach() : loss.detach();
    }
    double lossValue = lossSum.item<double>(); // the NaN check and the reports need it
    // Average gradients and loss over the workers, once per optimizer step; all agree on
    // stopping after this step.
    const auto parameters = s.model->parameters();
    s.stopVote = s.strategy->reduceGradients(parameters, m_stop.stopRequested(), &lossValue);
    if (!std::isfinite(lossValue)) {
        RunFinished &r = m_progress;
        r.status = RunStatus::Failed;
        r.last_step = step;
        r.field = "learning_rate";
        r.message = "the training loss became " + std::string(std::isnan(lossValue) ? "NaN" : "infinite")
                    + " at step " + std::to_string(step + 1) + " (learning_rate " + formatMetric(s.lr) + "); "
                    + (s.lastCkpt.empty() ? "no checkpoint was written" : "last good checkpoint: " + s.lastCkpt);
        r.hint = "lower --learning_rate (e.g. by 10x) and start again in a new --model_dir";
        if (s.coach) {
            StepMetrics nan;
            nan.step = step + 1;
            nan.total_steps = m_sched.total_steps;
            nan.loss = lossValue;
            nan.learning_rate = s.lr;
            tell(m_obs, s.metrics, s.coach->step(nan));
        }
        return false;
    }
    // fp16: an overflowing step is skipped and counted (Keras LossScaleOptimizer).
    if (!s.scaler || s.scaler->unscale(parameters))
        s.opt->step(s.lr);
    else
        s.opt->skipStep();
    s.opt->zeroGrad();
    s.global = step + 1;
    s.reportLoss += lossValue;
    s.epochLoss += lossValue;
    ++s.reportSteps;
    ++s.epochSteps;
    s.reportExamples += s.batch.size;
    m_progress.last_step = s.global;
    return true;
}

void Run::report(TrainState &s, bool force)
{
    const double tnow = now();
    const int64_t perEval = m_sched.steps_per_epoch;
    bool due;
    if (m_spec.steps_per_loop) // run_classifier: a loop of steps_per_loop steps, cut at each evaluation
        due = ((s.global - 1) % perEval + 1) % *m_spec.steps_per_loop == 0;
    else
        due = tnow - s.lastReport >= kReportInterval;
    if ((due || force) && s.reportSteps > 0) {
        StepMetrics sm;
        sm.step = s.global;
        sm.total_steps = m_sched.total_steps;
        sm.epoch = double(s.global) / double(perEval * m_spec.num_eval_per_epoch);
        sm.loss = s.reportLoss / double(s.reportSteps);
        sm.learning_rate = s.lr;
        sm.examples_per_second = tnow > s.lastReport ? double(s.reportExamples) / (tnow - s.lastReport) : 0.0;
        sm.wall_time = tnow;
        m_obs.stepCompleted(sm);
        if (s.metrics)
            s.metrics->writeTrain(sm);
        if (s.coach)
            tell(m_obs, s.metrics, s.coach->step(sm));
        if (s.summaries)
            s.summaries->writeTrain(sm);
        m_progress.final_train_loss = sm.loss;
        s.reportLoss = 0;
        s.reportSteps = 0;
        s.reportExamples = 0;
        s.lastReport = tnow;
    }
    if (m_spec.log_steps > 0 && s.global % m_spec.log_steps == 0) {
        const double elapsed = tnow - s.logStart;
        m_obs.logMessage("TimeHistory: " + formatMetric(elapsed, 3) + " seconds, "
                         + formatMetric(double((s.global - s.logStartStep) * m_spec.train_batch_size) / elapsed, 4)
                         + " examples/second between steps " + std::to_string(s.logStartStep) + " and "
                         + std::to_string(s.global));
        s.logStart = tnow;
        s.logStartStep = s.global;
    }
}

void Run::evaluateAndCheckpoint(TrainState &s)
{
    EvalMetrics em;
    {
        AutocastGuard autocast(s.format, s.device);
        em = evaluate(s.model, *s.evalData, m_regression, m_meta.num_labels, nullptr, s.strategy.get(),
                      s.extras->sink());
    }
    em.step = s.global;
    em.wall_time = now();
    if (!m_regression) // names for the per-class metrics (CLI, metrics.jsonl, training_summary.json, the window)
        em.label_names = readLabelNames(m_spec.input_meta_data_path, m_meta.num_labels, m_cfg.labelNames()).names;
    m_obs.logMessage("Train Step: " + std::to_string(s.global) + "/" + std::to_string(m_sched.total_steps)
                     + "  / loss = " + formatMetric(s.epochLoss / double(s.epochSteps))
                     + "  learning_rate = " + formatMetric(s.lr));
    m_obs.logMessage(evalLine(em));
    m_obs.evaluationCompleted(em);
    if (s.metrics)
        s.metrics->writeEval(em);
    if (s.coach)
        tell(m_obs, s.metrics, s.coach->evaluation(em));
    if (s.summaries)
        s.summaries->writeEval(em);
    s.lastEval = em;
    s.extras->writeExamples(s.global);
    m_progress.final_train_loss = s.epochLoss / double(s.epochSteps);
    s.epochLoss = 0;
    s.epochSteps = 0;
    saveCheckpointAt(s, s.global);
    if (s.extras->afterCheckpoint(em, s.lastCkpt))
        s.stoppedEarlyAt = s.global;
    s.lastReport = now(); // keep eval and checkpoint time out of examples/s
}

void Run::saveCheckpointAt(TrainState &s, int64_t step)
{
    if (!s.chief)
        return;
    // run_config.json first: a checkpoint never exists without the identity of its run.
    if (!s.runConfigWritten) {
        writeRunConfig(m_spec.model_dir, RunIdentity::of(m_spec, m_cfg, m_meta, m_sched));
        s.runConfigWritten = true;
    }
    const std::string name = checkpointName(step);
    const std::string path = (fs::path(m_spec.model_dir) / name).string();
    saveCheckpoint(path, s.model, *s.opt, step, m_checkpointMeta);
    for (const auto &gone : recordCheckpoint(m_spec.model_dir, name, m_spec.keep_checkpoint_max))
        m_obs.logMessage("Deleted old checkpoint " + gone);
    s.lastCkpt = path;
    m_progress.last_checkpoint = path;
    m_obs.checkpointSaved({step, path});
    m_obs.logMessage("Saved checkpoint " + path);
}

RunFinished Run::finish(TrainState &s)
{
    RunFinished &r = m_progress;
    const int64_t total = m_sched.total_steps;
    TrainingSummary summary;
    summary.total_training_steps = total;
    summary.train_loss = r.final_train_loss;
    summary.last_eval = s.lastEval;
    s.extras->describe(summary, r, s.stoppedEarlyAt);
    if (s.coach)
        summary.coach_notes = s.coach->notes();
    if (const std::string verdict = compareWithBagOfWords(summary, m_spec.input_meta_data_path); !verdict.empty()
        && s.chief)
        m_obs.logMessage(verdict);
    if (s.chief)
        writeTrainingSummary(m_spec.model_dir, summary);
    r.status = RunStatus::Completed;
    r.last_step = s.stoppedEarlyAt ? s.stoppedEarlyAt : total;
    r.message = s.stoppedEarlyAt ? "stopped early at step " + std::to_string(s.stoppedEarlyAt) + "; best at step "
                                       + std::to_string(s.extras->tracker().best_step)
                                 : "training completed at step " + std::to_string(total);
    return r;
}

RunFinished Run::train()
{
    m_progress = RunFinished{}; // kept up to date, so a failure can still report how far it got
    TrainState s;
    setUp(s);
    restore(s);
    const int64_t total = m_sched.total_steps;
    if (s.start >= total || stoppedEarlyAt(m_spec.model_dir, s.start)) // an early stop is a finished run
        return alreadyComplete(s);
    openOutputs(s);
    announce(s);
    const int64_t perEval = m_sched.steps_per_epoch;
    const int64_t interval = m_spec.save_checkpoints_steps;
    for (int64_t step = s.start; step < total; ++step) {
        if (!trainStep(s, step))
            return m_progress;
        const bool stopNow = s.strategy->worldSize() > 1 ? s.stopVote : m_stop.stopRequested();
        const bool boundary = s.global % perEval == 0 || s.global == total;
        report(s, boundary || stopNow);
        if (boundary)
            evaluateAndCheckpoint(s);
        if (s.stoppedEarlyAt)
            return finish(s);
        else if (stopNow || (interval > 0 && s.global % interval == 0))
            saveCheckpointAt(s, s.global);
        // A stop requested during the evaluation or the checkpoint counts after this step too.
        const bool stopAfter = s.strategy->worldSize() > 1 ? s.stopVote : m_stop.stopRequested();
        if (stopAfter && s.global < total) {
            if (checkpointStep(s.lastCkpt) != s.global)
                saveCheckpointAt(s, s.global);
            m_progress.status = RunStatus::Cancelled;
            m_progress.message = "stopped by the user after step " + std::to_string(s.global) + "; checkpoint "
                                 + s.lastCkpt;
            return m_progress;
        }
    }
    return finish(s);
}

} // namespace wb
