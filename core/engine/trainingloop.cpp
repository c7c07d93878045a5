// SPDX-License-Identifier: Apache-2.0
#include "core/engine/trainingloop.h"

#include "core/engine/blascheck.h"
#include "core/config/optionwords.h"
#include "core/io/metricsreader.h"
#include "core/io/summarywriter.h"
#include "core/formats/bestmodel.h"
#include "core/formats/checkpointstate.h"
#include "core/engine/evalpass.h"
#include "core/formats/runidentity.h"
#include "core/util/error.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <mutex>

namespace fs = std::filesystem;

namespace wb {

void configureThreads(const TrainingOptions &spec, TrainingObserver &obs)
{
    if (spec.num_threads > 0) {
        torch::set_num_threads(spec.num_threads);
        obs.logMessage("intra-op threads: " + std::to_string(spec.num_threads) + " (" + optionName("num_threads") + ")");
    } else {
        // Automatic: keep libtorch's own choice (one thread per physical core as it counts
        // them); BLAS brings its own pool. Raising torch's OpenMP threads on top made
        // training slower here (docs/benchmarks.md).
        obs.logMessage("intra-op threads: " + std::to_string(torch::get_num_threads())
                       + " (automatic; " + optionName("num_threads") + " overrides)");
    }
}

void setUpLoop(LoopParts &parts, const TrainingOptions &spec, TrainingObserver &obs, const StopToken &stop,
               const std::function<torch::nn::Module &()> &makeModel)
{
    configureThreads(spec, obs);
    // multi_worker_mirrored: joins the cluster here (waits for every worker, bounded by
    // --worker_timeout). Only the chief writes checkpoints, metrics and the summary.
    parts.strategy = makeStrategy(spec, &stop); // a Stop while the cluster forms ends the wait
    parts.chief = parts.strategy->isChief();
    const int64_t perReplica = parts.strategy->perReplicaBatch(spec.train_batch_size); // throws when not divisible
    parts.microBatches = spec.gradient_accumulation_steps;
    if (parts.microBatches < 1 || perReplica % parts.microBatches != 0)
        throw Error("gradient_accumulation_steps",
                    "the per-replica batch " + std::to_string(perReplica) + " is not divisible into "
                        + std::to_string(parts.microBatches) + " micro-batches",
                    "choose a train_batch_size that is a multiple of replicas × gradient_accumulation_steps");
    parts.format = parseNumberFormat(spec.dtype);
    if (parts.strategy->worldSize() > 1)
        obs.logMessage("multi_worker_mirrored: worker rank " + std::to_string(parts.strategy->rank()) + " of "
                       + std::to_string(parts.strategy->worldSize()) + (parts.chief ? " (chief)" : ""));
    for (const auto &w : checkBlas())
        obs.logMessage(w);
    std::error_code ec;
    fs::create_directories(spec.model_dir, ec);
    if (ec)
        throw Error(spec.model_dir, "cannot create the model_dir: " + ec.message(),
                    "choose a writable " + optionName("model_dir"));
    torch::nn::Module &model = makeModel();
    if (spec.activation_checkpointing) // the task's model checkpoints its encoder blocks in training passes
        obs.logMessage("activation checkpointing: each encoder block is recomputed in the backward pass "
                       "(" + optionName("activation_checkpointing") + ")");
    // The optimizer's slots are created beside the parameters: move the model first.
    parts.device = parts.strategy->device();
    model.to(parts.device);
    model.train();
    if (parts.format == NumberFormat::Fp16) {
        if (!parts.device.is_cuda())
            throw Error("dtype", "fp16 needs a CUDA GPU; this run trains on the CPU",
                        "use " + optionSetting("dtype", "bf16") + " (or fp32) on the CPU, or "
                            + optionSetting("num_gpus", "1") + " on a CUDA machine");
        parts.scaler.emplace();
    }
    if (parts.format != NumberFormat::Fp32 || parts.microBatches > 1)
        obs.logMessage("number format " + spec.dtype + " (float32 weights, optimizer state and checkpoints)"
                       + (parts.microBatches > 1 ? ", " + std::to_string(parts.microBatches) + " micro-batches of "
                                                       + std::to_string(perReplica / parts.microBatches)
                                                       + " examples per step"
                                                 : std::string()));
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (auto &p : model.named_parameters())
        named.emplace_back(p.key(), p.value());
    parts.opt = std::make_unique<AdamW>(std::move(named), AdamWOptions{spec.weight_decay_rate});
}

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

void openRunDirectory(const TrainingOptions &spec, int64_t start, std::optional<MetricsWriter> &metrics)
{
    removeStaleTemporaries(spec.model_dir);
    const std::string metricsPath = spec.metricsPath();
    MetricsWriter::truncateAfterStep(metricsPath, start); // drop what was logged after the checkpoint
    metrics.emplace(metricsPath);
}

void agreeOnTheStart(LoopParts &parts, int64_t start, const std::vector<torch::Tensor> &parameters,
                     at::Generator &generator, int64_t seed)
{
    Strategy &strategy = *parts.strategy;
    if (strategy.worldSize() <= 1)
        return;
    // Every worker resumes from the chief's checkpoint, then starts from its parameters.
    std::vector<int64_t> starts{start};
    strategy.gatherAcrossWorkers(starts);
    for (size_t k = 1; k < starts.size(); ++k)
        if (starts[k] != starts[0])
            throw Error("model_dir",
                        "worker rank " + std::to_string(k) + " would resume at step " + std::to_string(starts[k])
                            + " but the chief at step " + std::to_string(starts[0]),
                        "every worker must see the chief's model_dir (a shared folder), or start all in a new one");
    strategy.prepare(parameters);
    // Own dropout masks per worker (deterministic, so a resumed run repeats them); the chief
    // keeps its stream, which its checkpoints record.
    if (strategy.rank() > 0) {
        std::lock_guard<std::mutex> lock(generator.mutex());
        generator.set_current_seed(uint64_t(seed) + 7919 * uint64_t(strategy.rank()) + uint64_t(start));
    }
}

RunStarted runStartedInfo(const LoopParts &parts, const Schedule &schedule, int64_t start, torch::nn::Module &model,
                          const std::string &modelDir)
{
    RunStarted info;
    info.total_steps = schedule.total_steps;
    info.steps_per_epoch = schedule.steps_per_epoch;
    info.warmup_steps = schedule.warmup_steps;
    info.eval_steps = schedule.eval_steps;
    info.start_step = start;
    for (auto &p : model.parameters())
        info.parameter_count += p.numel();
    info.model_dir = modelDir;
    info.device = parts.device.str();
    info.wall_time =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return info;
}

} // namespace wb

// --- TrainingLoop ---------------------------------------------------------------------------
// run() in named phases: setUpLoop → restore → (alreadyComplete) → openOutputs → announce →
// for each step: trainStep, report, evaluateAndCheckpoint / interval checkpoint → finish.

namespace wb {

namespace {

// Without --steps_per_loop, observer hooks are throttled to one StepMetrics per this many seconds.
constexpr double kReportInterval = 0.05;

double wallNow()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

} // namespace

/// The loop's parts (setUpLoop) and its state between phases.
struct TrainingLoop::State : LoopParts
{
    TrainingTask *task = nullptr;
    std::optional<CheckpointModel> model;
    int64_t start = 0;
    std::string lastCkpt;
    int64_t lastSavedStep = -1; // on every worker (lastCkpt is the chief's path only)
    bool runConfigWritten = false;

    std::optional<MetricsWriter> metrics;
    std::unique_ptr<SummaryWriter> summaries;
    std::unique_ptr<EvalExtras> extras; // eval_examples.jsonl, best checkpoint, early stopping
    std::unique_ptr<Coach> coach;       // the chief's: notes on the metric stream

    // Per-step values and the accumulators of the current report and evaluation interval.
    int64_t global = 0;
    double lr = 0;
    bool stopVote = false;
    double reportLoss = 0, epochLoss = 0;
    int64_t reportSteps = 0, epochSteps = 0, reportExamples = 0;
    double lastReport = 0, logStart = 0;
    int64_t logStartStep = 0;
    std::optional<EvalMetrics> lastEval;
    int64_t stoppedEarlyAt = 0;
};

TrainingLoop::TrainingLoop(const TrainingOptions &spec, const BertConfig &cfg, const InputMetaData &meta,
                           const Schedule &schedule, TrainingObserver &obs, const StopToken &stop, RunFinished &progress)
    : m_spec(spec), m_cfg(cfg), m_meta(meta), m_sched(schedule), m_obs(obs), m_stop(stop), m_progress(progress)
{
}

TrainingLoop::~TrainingLoop() = default;

void TrainingLoop::tell(State &s, const std::vector<CoachNote> &notes)
{
    for (const CoachNote &n : notes) {
        m_obs.coachNote(n);
        if (s.metrics)
            s.metrics->writeNote(n);
    }
}

bool TrainingLoop::restore(State &s)
{
    s.lastCkpt = latestCheckpoint(m_spec.model_dir);
    if (!s.lastCkpt.empty()) {
        // Model, optimizer slots and the dropout RNG: the next step is the step an
        // uninterrupted run would take (the data position is restored in openOutputs).
        s.start = loadModelCheckpoint(s.lastCkpt, *s.model, s.opt.get(), true).step;
        m_obs.logMessage("Resuming from checkpoint " + s.lastCkpt + " at step " + std::to_string(s.start));
        if (s.start > m_sched.total_steps)
            throw Error(s.lastCkpt, "the checkpoint is at step " + std::to_string(s.start) + ", past total_steps "
                                        + std::to_string(m_sched.total_steps) + " of this configuration",
                        "use a new " + optionName("model_dir"));
        s.runConfigWritten = fs::exists(runConfigPath(m_spec.model_dir));
    } else {
        s.task->initialWeights(m_obs);
    }
    m_progress.last_checkpoint = s.lastCkpt;
    m_progress.last_step = s.start;
    agreeOnTheStart(s, s.start, s.model->module.parameters(), s.model->generator, m_spec.seed);
    // An early stop is a finished run.
    return s.start >= m_sched.total_steps || stoppedEarlyAt(m_spec.model_dir, s.start);
}

RunFinished TrainingLoop::alreadyComplete(const State &s)
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

void TrainingLoop::openOutputs(State &s)
{
    if (s.chief) { // a killed run's temporaries removed, metrics.jsonl cut at the checkpoint
        openRunDirectory(m_spec, s.start, s.metrics);
        s.summaries = std::make_unique<SummaryWriter>(m_spec.model_dir);
    }
    s.task->openData(s, s.start);
    s.extras = std::make_unique<EvalExtras>(m_spec, m_cfg, m_meta, s.chief, s.task->writesEvalExamples(s), s.start,
                                            m_obs);
}

void TrainingLoop::announce(State &s)
{
    RunStarted info = runStartedInfo(s, m_sched, s.start, s.model->module, m_spec.model_dir);
    CoachSetup setup = coachSetupFor(m_spec, m_sched);
    setup.resumed = s.start > 0;
    s.task->describe(info, setup);
    m_obs.runStarted(info);
    if (s.chief) {
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
            tell(s, first);
        }
    }
    m_obs.logMessage(s.task->announcement(info) + ": steps_per_epoch " + std::to_string(info.steps_per_epoch)
                     + ", total_steps " + std::to_string(info.total_steps) + ", warmup_steps "
                     + std::to_string(m_sched.warmup_steps)
                     + (s.start ? ", resuming at step " + std::to_string(s.start) : ""));
    s.lastReport = s.logStart = wallNow();
    s.logStartStep = s.start;
}

bool TrainingLoop::trainStep(State &s, int64_t step)
{
    s.lr = m_sched.learningRate(step, learningRate(m_spec), m_spec.end_lr);
    s.training_step = step;
    const int64_t examples = s.task->nextBatch(s);
    // Gradient accumulation: N equal micro-batches, each loss divided by N, so the summed
    // gradients and losses are those of the whole batch (the loss is a mean over examples).
    torch::Tensor lossSum; // the step's loss, read once after the micro-batches (one sync on CUDA)
    for (int64_t k = 0; k < s.microBatches; ++k) {
        torch::Tensor loss = s.task->microBatchLoss(s, k);
        if (s.microBatches > 1)
            loss = loss / double(s.microBatches);
        (s.scaler ? loss * s.scaler->scale() : loss).backward();
        lossSum = lossSum.defined() ? lossSum + loss.detach() : loss.detach();
    }
    double lossValue = lossSum.item<double>(); // the NaN check and the reports need it
    // Average gradients and loss over the workers, once per optimizer step; all agree on
    // stopping after this step.
    const auto parameters = s.model->module.parameters();
    s.stopVote = s.strategy->reduceGradients(parameters, m_stop.stopRequested(), &lossValue);
    if (!std::isfinite(lossValue)) {
        RunFinished &r = m_progress;
        r.status = RunStatus::Failed;
        r.last_step = step;
        r.field = "learning_rate";
        r.message = "the " + s.task->noun() + " loss became " + std::string(std::isnan(lossValue) ? "NaN" : "infinite")
                    + " at step " + std::to_string(step + 1) + " (learning_rate " + formatMetric(s.lr) + "); "
                    + (s.lastCkpt.empty() ? "no checkpoint was written" : "last good checkpoint: " + s.lastCkpt);
        r.hint = "lower " + optionName("learning_rate") + " (e.g. by 10x) and start again in a new "
                 + optionName("model_dir");
        if (s.coach) {
            StepMetrics nan;
            nan.step = step + 1;
            nan.total_steps = m_sched.total_steps;
            nan.loss = lossValue;
            nan.learning_rate = s.lr;
            tell(s, s.coach->step(nan));
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
    s.reportExamples += examples;
    m_progress.last_step = s.global;
    return true;
}

void TrainingLoop::report(State &s, bool force)
{
    const double tnow = wallNow();
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
        const NamedScalars fields = s.task->reportFields();
        m_obs.stepCompleted(sm);
        if (s.metrics)
            s.metrics->writeTrain(sm, fields);
        if (s.coach)
            tell(s, s.coach->step(sm));
        if (s.summaries)
            s.summaries->writeTrain(sm, fields);
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

void TrainingLoop::evaluateAndCheckpoint(State &s)
{
    s.evaluated_step = s.global;
    TaskEvaluation ev = s.task->evaluate(s, *s.extras);
    EvalMetrics &em = ev.metrics;
    em.step = s.global;
    em.wall_time = wallNow();
    m_obs.logMessage("Train Step: " + std::to_string(s.global) + "/" + std::to_string(m_sched.total_steps)
                     + "  / loss = " + formatMetric(s.epochLoss / double(s.epochSteps))
                     + "  learning_rate = " + formatMetric(s.lr));
    m_obs.logMessage(ev.log_line);
    m_obs.evaluationCompleted(em);
    if (s.metrics)
        s.metrics->writeEval(em, ev.fields);
    if (s.coach)
        tell(s, s.coach->evaluation(em));
    if (s.summaries)
        s.summaries->writeValidation(em.step, em.wall_time, ev.tensorboard);
    s.lastEval = em;
    s.extras->writeExamples(s.global);
    m_progress.final_train_loss = s.epochLoss / double(s.epochSteps);
    s.epochLoss = 0;
    s.epochSteps = 0;
    saveCheckpointAt(s, s.global);
    if (s.extras->afterCheckpoint(em, s.lastCkpt))
        s.stoppedEarlyAt = s.global;
    s.lastReport = wallNow(); // keep eval and checkpoint time out of examples/s
}

void TrainingLoop::saveCheckpointAt(State &s, int64_t step)
{
    s.task->beforeCheckpoint(s, step);
    s.lastSavedStep = step;
    if (!s.chief)
        return;
    // run_config.json first: a checkpoint never exists without the identity of its run.
    if (!s.runConfigWritten) {
        writeRunConfig(m_spec.model_dir, RunIdentity::of(m_spec, m_cfg, m_meta, m_sched));
        s.runConfigWritten = true;
    }
    const std::string name = checkpointName(step);
    const std::string path = (fs::path(m_spec.model_dir) / name).string();
    saveModelCheckpoint(path, *s.model, *s.opt, step, s.task->checkpointMeta());
    for (const auto &gone : recordCheckpoint(m_spec.model_dir, name, m_spec.keep_checkpoint_max))
        m_obs.logMessage("Deleted old checkpoint " + gone);
    s.lastCkpt = path;
    m_progress.last_checkpoint = path;
    m_obs.checkpointSaved({step, path});
    m_obs.logMessage("Saved checkpoint " + path);
}

RunFinished TrainingLoop::finish(State &s)
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
    s.task->finishSummary(summary, s.chief, m_obs);
    if (s.chief)
        writeTrainingSummary(m_spec.model_dir, summary);
    r.status = RunStatus::Completed;
    r.last_step = s.stoppedEarlyAt ? s.stoppedEarlyAt : total;
    r.message = s.stoppedEarlyAt ? "stopped early at step " + std::to_string(s.stoppedEarlyAt) + "; best at step "
                                       + std::to_string(s.extras->tracker().best_step)
                                 : s.task->noun() + " completed at step " + std::to_string(total);
    return r;
}

RunFinished TrainingLoop::run(TrainingTask &task)
{
    m_progress = RunFinished{}; // kept up to date, so a failure can still report how far it got
    State s;
    s.task = &task;
    setUpLoop(s, m_spec, m_obs, m_stop, [&]() -> torch::nn::Module & { return task.buildModel(); });
    s.model.emplace(task.checkpointModel());
    if (restore(s))
        return alreadyComplete(s);
    openOutputs(s);
    announce(s);
    const int64_t total = m_sched.total_steps;
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
        if (!boundary && (stopNow || (interval > 0 && s.global % interval == 0)))
            saveCheckpointAt(s, s.global);
        // A stop requested during the evaluation or the checkpoint counts after this step too.
        const bool stopAfter = s.strategy->worldSize() > 1 ? s.stopVote : m_stop.stopRequested();
        if (stopAfter && s.global < total) {
            // Every worker decides alike: the save runs collectives (the training dynamics' gather).
            if (s.lastSavedStep != s.global)
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
