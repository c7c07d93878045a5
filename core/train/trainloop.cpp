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
#include "core/train/blascheck.h"
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

/// Removes the temporary files a killed run can leave in model_dir: "ckpt-N.tmp" and
/// writeFileAtomic's "<name>.tmp.<pid>". Only names this program writes; best effort.
void removeStaleTemporaries(const std::string &modelDir)
{
    std::error_code ec;
    std::vector<fs::path> stale;
    for (fs::directory_iterator it(modelDir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const auto dot = name.rfind(".tmp");
        if (dot == std::string::npos)
            continue;
        const std::string rest = name.substr(dot + 4);
        const bool ours = (rest.empty() && name.rfind("ckpt-", 0) == 0)
                          || (rest.size() > 1 && rest[0] == '.'
                              && rest.find_first_not_of("0123456789", 1) == std::string::npos);
        if (ours)
            stale.push_back(it->path());
    }
    for (const auto &p : stale)
        fs::remove(p, ec);
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

struct Run::TrainState
{
    std::unique_ptr<Strategy> strategy;
    bool chief = true;
    c10::Device device = c10::Device(c10::kCPU);
    nn::BertForSequenceClassification model{nullptr};
    std::unique_ptr<AdamW> opt;
    NumberFormat format = NumberFormat::Fp32;
    std::optional<LossScaler> scaler; // fp16 only
    int64_t microBatches = 1;         // --gradient_accumulation_steps
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
    configureThreads();
    // multi_worker_mirrored: joins the cluster here (waits for every worker, bounded by
    // --worker_timeout). Only the chief writes checkpoints, metrics and the summary.
    s.strategy = makeStrategy(m_spec, &m_stop); // a Stop while the cluster forms ends the wait
    s.chief = s.strategy->isChief();
    const int64_t perReplica = s.strategy->perReplicaBatch(m_spec.train_batch_size); // throws when not divisible
    s.microBatches = m_spec.gradient_accumulation_steps;
    if (s.microBatches < 1 || perReplica % s.microBatches != 0)
        throw Error("gradient_accumulation_steps",
                    "the per-replica batch " + std::to_string(perReplica) + " is not divisible into "
                        + std::to_string(s.microBatches) + " micro-batches",
                    "choose a train_batch_size that is a multiple of replicas × gradient_accumulation_steps");
    s.format = parseNumberFormat(m_spec.dtype);
    if (s.strategy->worldSize() > 1)
        m_obs.logMessage("multi_worker_mirrored: worker rank " + std::to_string(s.strategy->rank()) + " of "
                         + std::to_string(s.strategy->worldSize()) + (s.chief ? " (chief)" : ""));
    for (const auto &w : checkBlas())
        m_obs.logMessage(w);
    std::error_code ec;
    fs::create_directories(m_spec.model_dir, ec);
    if (ec)
        throw Error(m_spec.model_dir, "cannot create the model_dir: " + ec.message(),
                    "choose a writable --model_dir");
    s.model = makeModel();
    if (s.model->encoder->activationCheckpointing())
        m_obs.logMessage("activation checkpointing: each encoder block is recomputed in the backward pass "
                         "(--activation_checkpointing)");
    // The optimizer's slots are created beside the parameters: move the model first.
    s.device = s.strategy->device();
    s.model->to(s.device);
    s.model->train();
    if (s.format == NumberFormat::Fp16) {
        if (!s.device.is_cuda())
            throw Error("dtype", "fp16 needs a CUDA GPU; this run trains on the CPU",
                        "use --dtype=bf16 (or fp32) on the CPU, or --num_gpus=1 on a CUDA machine");
        s.scaler.emplace();
    }
    if (s.format != NumberFormat::Fp32 || s.microBatches > 1)
        m_obs.logMessage("number format " + m_spec.dtype + " (float32 weights, optimizer state and checkpoints)"
                         + (s.microBatches > 1 ? ", " + std::to_string(s.microBatches)
                                                     + " micro-batches of " + std::to_string(perReplica / s.microBatches)
                                                     + " examples per step"
                                               : std::string()));
    s.opt = std::make_unique<AdamW>(namedParameters(s.model), AdamWOptions{m_spec.weight_decay_rate});
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
    if (s.strategy->worldSize() > 1) {
        // Every worker resumes from the chief's checkpoint, then starts from its parameters.
        std::vector<int64_t> starts{s.start};
        s.strategy->gatherAcrossWorkers(starts);
        for (size_t k = 1; k < starts.size(); ++k)
            if (starts[k] != starts[0])
                throw Error("model_dir",
                            "worker rank " + std::to_string(k) + " would resume at step " + std::to_string(starts[k])
                                + " but the chief at step " + std::to_string(starts[0]),
                            "every worker must see the chief's model_dir (a shared folder), or start all in a new one");
        s.strategy->prepare(s.model->parameters());
        // Own dropout masks per worker (deterministic, so a resumed run repeats them);
        // the chief keeps its stream, which its checkpoints record.
        if (s.strategy->rank() > 0) {
            at::Generator &gen = s.model->generator();
            std::lock_guard<std::mutex> lock(gen.mutex());
            gen.set_current_seed(uint64_t(m_spec.seed) + 7919 * uint64_t(s.strategy->rank()) + uint64_t(s.start));
        }
    }
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
        removeStaleTemporaries(m_spec.model_dir);
        const std::string metricsPath = m_spec.metricsPath();
        MetricsWriter::truncateAfterStep(metricsPath, s.start); // drop what was logged after the checkpoint
        s.metrics.emplace(metricsPath);
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
    RunStarted info;
    info.total_steps = m_sched.total_steps;
    info.steps_per_epoch = m_sched.steps_per_epoch;
    info.warmup_steps = m_sched.warmup_steps;
    info.eval_steps = m_sched.eval_steps;
    info.start_step = s.start;
    info.num_labels = m_meta.num_labels;
    info.parameter_count = 0;
    for (auto &p : s.model->parameters())
        info.parameter_count += p.numel();
    info.model_dir = m_spec.model_dir;
    info.device = s.device.str();
    info.wall_time = now();
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
