// SPDX-License-Identifier: Apache-2.0
// The masked-LM pretraining run (docs/pretraining.md): the phases of the fine-tuning loop
// (trainloop.cpp: set up → restore → outputs → steps with reports, evaluations and
// checkpoints → summary) with the parts that differ — the model (BertForPreTraining), the
// batches (PretrainingBatchSource), the loss and the metrics — and the same strategies,
// number formats, optimizer, schedule, checkpoint format, best checkpoint and early stopping.
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
#include "core/train/blascheck.h"
#include "core/train/checkpointio.h"
#include "core/train/checkpointstate.h"
#include "core/train/evalextras.h"
#include "core/train/evalpass.h"
#include "core/train/export.h"
#include "core/train/exportfolder.h"
#include "core/train/precision.h"
#include "core/train/pretrainpreflight.h"
#include "core/train/runidentity.h"
#include "core/train/trainingsummary.h"
#include "core/util/error.h"
#include "core/util/trainingallocator.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

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

} // namespace

RunFinished runPretraining(const TrainingOptions &spec, const ValidationResult &v, TrainingObserver &obs,
                           const StopToken &stop, RunFinished &progress)
{
    progress = RunFinished{};
    const BertConfig cfg = *v.bert_config;
    const InputMetaData meta = *v.meta_data;
    const Schedule sched = *v.schedule;
    keepFreedMemoryForTraining(); // the step's large tensors are reused, not mapped afresh
    if (spec.num_threads > 0) {
        torch::set_num_threads(spec.num_threads);
        obs.logMessage("intra-op threads: " + std::to_string(spec.num_threads) + " (--num_threads)");
    }
    // --- set up: the strategy, the model, the optimizer -----------------------------------
    std::unique_ptr<Strategy> strategy = makeStrategy(spec, &stop);
    const bool chief = strategy->isChief();
    const int64_t perReplica = strategy->perReplicaBatch(spec.train_batch_size);
    const int64_t microBatches = spec.gradient_accumulation_steps;
    if (microBatches < 1 || perReplica % microBatches != 0)
        throw Error("gradient_accumulation_steps",
                    "the per-replica batch " + std::to_string(perReplica) + " is not divisible into "
                        + std::to_string(microBatches) + " micro-batches",
                    "choose a train_batch_size that is a multiple of replicas × gradient_accumulation_steps");
    const NumberFormat format = parseNumberFormat(spec.dtype);
    for (const auto &w : checkBlas())
        obs.logMessage(w);
    std::error_code ec;
    fs::create_directories(spec.model_dir, ec);
    if (ec)
        throw Error(spec.model_dir, "cannot create the model_dir: " + ec.message(), "choose a writable --model_dir");
    nn::BertForPreTraining model(cfg, meta.use_next_sentence_label, nn::makeGenerator(uint64_t(spec.seed)));
    model->setActivationCheckpointing(spec.activation_checkpointing);
    const c10::Device device = strategy->device();
    model->to(device);
    model->train();
    std::optional<LossScaler> scaler;
    if (format == NumberFormat::Fp16) {
        if (!device.is_cuda())
            throw Error("dtype", "fp16 needs a CUDA GPU; this run trains on the CPU", "use --dtype=bf16 or fp32");
        scaler.emplace();
    }
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (auto &p : model->named_parameters())
        named.emplace_back(p.key(), p.value());
    AdamW opt(named, AdamWOptions{spec.weight_decay_rate});
    const CheckpointModel view{*model, model->config(), 0, model->generator()};

    // --- restore: resume, continued pretraining, or random weights -------------------------
    std::string lastCkpt = latestCheckpoint(spec.model_dir);
    int64_t start = 0;
    if (!lastCkpt.empty()) {
        start = loadModelCheckpoint(lastCkpt, view, &opt, true).step;
        obs.logMessage("Resuming from checkpoint " + lastCkpt + " at step " + std::to_string(start));
        if (start > sched.total_steps)
            throw Error(lastCkpt, "the checkpoint is at step " + std::to_string(start) + ", past total_steps "
                                      + std::to_string(sched.total_steps) + " of this configuration",
                        "use a new --model_dir");
    } else if (!spec.init_checkpoint.empty()) {
        if (isTrainingCheckpointPath(spec.init_checkpoint)) {
            loadModelCheckpoint(spec.init_checkpoint, view, nullptr, false);
            obs.logMessage("Init checkpoint " + spec.init_checkpoint + ": weights of a pretraining checkpoint");
        } else {
            const CheckpointMatch m = loadPretrainingCheckpoint(model, spec.init_checkpoint, spec.allow_partial_init);
            obs.logMessage("Init checkpoint " + spec.init_checkpoint + " (continued pretraining): " + m.summary());
        }
    } else {
        obs.logMessage("Pretraining from random weights (no --init_checkpoint or --pretrained_model)");
    }
    progress.last_checkpoint = lastCkpt;
    progress.last_step = start;
    if (strategy->worldSize() > 1) {
        std::vector<int64_t> starts{start};
        strategy->gatherAcrossWorkers(starts);
        for (size_t k = 1; k < starts.size(); ++k)
            if (starts[k] != starts[0])
                throw Error("model_dir", "worker rank " + std::to_string(k) + " would resume at step "
                                             + std::to_string(starts[k]) + " but the chief at step "
                                             + std::to_string(starts[0]),
                            "every worker must see the chief's model_dir (a shared folder), or start all in a new one");
        strategy->prepare(model->parameters());
        if (strategy->rank() > 0) {
            at::Generator &gen = model->generator();
            std::lock_guard<std::mutex> lock(gen.mutex());
            gen.set_current_seed(uint64_t(spec.seed) + 7919 * uint64_t(strategy->rank()) + uint64_t(start));
        }
    }
    if (start >= sched.total_steps || stoppedEarlyAt(spec.model_dir, start)) {
        progress.status = RunStatus::Completed;
        progress.message = "training was already complete at step " + std::to_string(start) + " (" + lastCkpt
                           + "); nothing was changed";
        obs.logMessage(progress.message);
        return progress;
    }

    // --- outputs and data -------------------------------------------------------------------
    std::optional<MetricsWriter> metrics;
    std::unique_ptr<EventWriter> trainEvents, evalEvents;
    if (chief) {
        MetricsWriter::truncateAfterStep(spec.metricsPath(), start);
        metrics.emplace(spec.metricsPath());
    }
    PretrainingDataOptions trainOptions;
    trainOptions.pattern = spec.train_data_path;
    trainOptions.spec.max_seq_length = meta.max_seq_length;
    trainOptions.spec.max_predictions_per_seq = meta.max_predictions_per_seq;
    trainOptions.spec.vocab_size = cfg.vocab_size;
    trainOptions.spec.type_vocab_size = cfg.type_vocab_size;
    trainOptions.batch_size = spec.train_batch_size; // the global batch: every worker reads it, takes its rows
    trainOptions.training = true;
    trainOptions.seed = uint64_t(spec.seed);
    PretrainingDataOptions evalOptions = trainOptions;
    evalOptions.pattern = spec.eval_data_path;
    evalOptions.batch_size = spec.eval_batch_size;
    evalOptions.training = false;
    evalOptions.num_shards = strategy->dataShard().num_shards;
    evalOptions.shard_index = strategy->dataShard().shard_index;
    std::unique_ptr<PretrainingBatchSource> trainSource, evalSource;
    if (meta.masking == "dynamic") {
        // New masks each time a sequence is read, from the run's seed (the eval set's masks are
        // drawn the same at every evaluation: reset() seeds them again).
        MlmMaskingOptions masking;
        masking.masked_lm_prob = meta.masked_lm_prob.value_or(masking.masked_lm_prob);
        masking.whole_word_masking = meta.whole_word_masking;
        const Vocab vocab = Vocab::load(dynamicMaskingVocab(spec));
        trainSource = std::make_unique<DynamicMaskingBatches>(trainOptions, vocab, masking);
        evalOptions.seed = trainOptions.seed + 1;
        evalSource = std::make_unique<DynamicMaskingBatches>(evalOptions, vocab, masking);
        obs.logMessage("masking: dynamic (new masks each epoch; masked_lm_prob " + std::to_string(masking.masked_lm_prob)
                       + (masking.whole_word_masking ? ", whole words" : "") + ")");
    } else {
        trainSource = std::make_unique<StaticMaskingBatches>(trainOptions);
        evalSource = std::make_unique<StaticMaskingBatches>(evalOptions);
        obs.logMessage("masking: static (the records' own masks)");
    }
    PretrainingBatchSource &trainData = *trainSource, &evalData = *evalSource;
    EvalExtras extras(spec, cfg, meta, chief, /*singleWorker: no eval_examples.jsonl*/ false, start, obs);
    PretrainingBatch batch;
    for (int64_t k = 0; k < start; ++k) // the data position of an uninterrupted run
        trainData.next(batch);

    RunStarted info;
    info.total_steps = sched.total_steps;
    info.steps_per_epoch = sched.steps_per_epoch;
    info.warmup_steps = sched.warmup_steps;
    info.eval_steps = sched.eval_steps;
    info.start_step = start;
    for (auto &p : model->parameters())
        info.parameter_count += p.numel();
    info.model_dir = spec.model_dir;
    info.device = device.str();
    info.wall_time = now();
    obs.runStarted(info);
    // The coach's rules that apply to pretraining: the schedule, divergence, overfitting (the
    // MLM eval loss); the classification rules stay quiet (regression = true).
    std::unique_ptr<Coach> coach;
    const auto tell = [&](const std::vector<CoachNote> &notes) {
        for (const CoachNote &n : notes) {
            obs.coachNote(n);
            metrics->writeNote(n);
        }
    };
    if (chief) {
        CoachSetup c;
        c.total_steps = sched.total_steps;
        c.warmup_steps = sched.warmup_steps;
        c.regression = true;
        c.learning_rate = learningRate(spec);
        c.from_scratch = spec.init_checkpoint.empty();
        c.early_stopping_patience = spec.early_stopping_patience;
        coach = std::make_unique<Coach>(c);
        const auto first = coach->start();
        if (start == 0) // a resumed run said them when it began
            tell(first);
    }
    obs.logMessage("Pretraining " + std::to_string(info.parameter_count) + " parameters (masked LM"
                   + (meta.use_next_sentence_label ? " + next sentence" : "") + ", "
                   + std::to_string(meta.max_predictions_per_seq) + " predictions per sequence): steps_per_epoch "
                   + std::to_string(sched.steps_per_epoch) + ", total_steps " + std::to_string(sched.total_steps)
                   + ", warmup_steps " + std::to_string(sched.warmup_steps)
                   + (start ? ", resuming at step " + std::to_string(start) : ""));

    bool runConfigWritten = fs::exists(runConfigPath(spec.model_dir));
    const auto saveAt = [&](int64_t step) {
        if (!chief)
            return;
        if (!runConfigWritten) {
            writeRunConfig(spec.model_dir, RunIdentity::of(spec, cfg, meta, sched));
            runConfigWritten = true;
        }
        const std::string name = checkpointName(step);
        const std::string path = (fs::path(spec.model_dir) / name).string();
        saveModelCheckpoint(path, view, opt, step, meta);
        for (const auto &gone : recordCheckpoint(spec.model_dir, name, spec.keep_checkpoint_max))
            obs.logMessage("Deleted old checkpoint " + gone);
        lastCkpt = path;
        progress.last_checkpoint = path;
        obs.checkpointSaved({step, path});
        obs.logMessage("Saved checkpoint " + path);
    };

    // --- the steps ------------------------------------------------------------------------
    const int64_t total = sched.total_steps, perEval = sched.steps_per_epoch;
    double reportLoss = 0, epochLoss = 0, lastReport = now();
    int64_t reportSteps = 0, epochSteps = 0, reportExamples = 0, stoppedEarly = 0;
    MlmSums reportSums;
    std::optional<EvalMetrics> lastEval;
    double lr = 0;
    for (int64_t step = start; step < total; ++step) {
        lr = sched.learningRate(step, learningRate(spec), spec.end_lr);
        trainData.next(batch);
        PretrainTensors all = toTensors(batch);
        const int64_t perWorker = batch.size / strategy->worldSize();
        PretrainTensors t = onDevice(rows(all, strategy->rank() * perWorker, perWorker), device);
        const int64_t micro = t.ids.size(0) / microBatches;
        torch::Tensor lossSum;
        for (int64_t k = 0; k < microBatches; ++k) {
            const PretrainTensors mt = microBatches == 1 ? t : rows(t, k * micro, micro);
            nn::PretrainingOutput out;
            {
                AutocastGuard autocast(format, device);
                out = model->forward(mt.ids, mt.mask, mt.segments, mt.positions);
            }
            PretrainingLoss l = pretrainingLoss(out.mlm_logits, mt.lmIds, mt.lmWeights, out.nsp_logits, mt.nsp);
            torch::Tensor loss = microBatches > 1 ? l.loss / double(microBatches) : l.loss;
            (scaler ? loss * scaler->scale() : loss).backward();
            lossSum = lossSum.defined() ? lossSum + loss.detach() : loss.detach();
            reportSums.add(out, l, mt);
        }
        double lossValue = lossSum.item<double>();
        const auto parameters = model->parameters();
        const bool stopVote = strategy->reduceGradients(parameters, stop.stopRequested(), &lossValue);
        if (!std::isfinite(lossValue)) {
            progress.status = RunStatus::Failed;
            progress.last_step = step;
            progress.field = "learning_rate";
            progress.message = "the pretraining loss became " + std::string(std::isnan(lossValue) ? "NaN" : "infinite")
                               + " at step " + std::to_string(step + 1) + " (learning_rate " + fmt(lr) + "); "
                               + (lastCkpt.empty() ? "no checkpoint was written" : "last good checkpoint: " + lastCkpt);
            progress.hint = "lower --learning_rate (e.g. by 10x) and start again in a new --model_dir";
            return progress;
        }
        if (!scaler || scaler->unscale(parameters))
            opt.step(lr);
        else
            opt.skipStep();
        opt.zeroGrad();
        const int64_t global = step + 1;
        reportLoss += lossValue;
        epochLoss += lossValue;
        ++reportSteps;
        ++epochSteps;
        reportExamples += batch.size;
        progress.last_step = global;

        const bool stopNow = strategy->worldSize() > 1 ? stopVote : stop.stopRequested();
        const bool boundary = global % perEval == 0 || global == total;
        const double tnow = now();
        const bool due = spec.steps_per_loop ? ((global - 1) % perEval + 1) % *spec.steps_per_loop == 0
                                             : tnow - lastReport >= kReportInterval;
        if ((due || boundary || stopNow) && reportSteps > 0) {
            StepMetrics sm;
            sm.step = global;
            sm.total_steps = total;
            sm.epoch = double(global) / double(perEval * spec.num_eval_per_epoch);
            sm.loss = reportLoss / double(reportSteps);
            sm.learning_rate = lr;
            sm.examples_per_second = tnow > lastReport ? double(reportExamples) / (tnow - lastReport) : 0.0;
            sm.wall_time = tnow;
            obs.stepCompleted(sm);
            if (coach)
                tell(coach->step(sm));
            if (chief) {
                nlohmann::json line = MetricsWriter::trainJson(sm);
                line["mlm_loss"] = reportSums.mlmLoss();
                line["mlm_accuracy"] = reportSums.mlmAccuracy();
                if (reportSums.nspCount > 0) {
                    line["nsp_loss"] = reportSums.nspLoss / reportSums.nspCount;
                    line["nsp_accuracy"] = reportSums.nspCorrect / reportSums.nspCount;
                }
                metrics->writeLine(line);
                if (!trainEvents)
                    trainEvents = std::make_unique<EventWriter>((fs::path(spec.model_dir) / "summaries" / "train").string(),
                                                                sm.wall_time);
                trainEvents->addScalar("loss", global, sm.loss, sm.wall_time);
                trainEvents->addScalar("mlm_loss", global, reportSums.mlmLoss(), sm.wall_time);
                trainEvents->addScalar("mlm_accuracy", global, reportSums.mlmAccuracy(), sm.wall_time);
                if (reportSums.nspCount > 0) {
                    trainEvents->addScalar("nsp_loss", global, reportSums.nspLoss / reportSums.nspCount, sm.wall_time);
                    trainEvents->addScalar("nsp_accuracy", global, reportSums.nspCorrect / reportSums.nspCount,
                                           sm.wall_time);
                }
                trainEvents->addScalar("learning_rate", global, lr, sm.wall_time);
                trainEvents->addScalar("examples_per_second", global, sm.examples_per_second, sm.wall_time);
                trainEvents->flush();
            }
            progress.final_train_loss = sm.loss;
            reportLoss = 0;
            reportSteps = 0;
            reportExamples = 0;
            reportSums = MlmSums{};
            lastReport = tnow;
        }
        if (boundary) {
            PretrainEval e = evaluatePretraining(model, evalData, *strategy, device, format);
            e.metrics.step = global;
            e.metrics.wall_time = now();
            obs.logMessage("Train Step: " + std::to_string(global) + "/" + std::to_string(total)
                           + "  / loss = " + fmt(epochLoss / double(epochSteps)) + "  learning_rate = " + fmt(lr));
            obs.logMessage("Eval: mlm_loss = " + fmt(e.mlm_loss) + "  mlm_accuracy = " + fmt(e.mlm_accuracy)
                           + "  perplexity = " + fmt(e.perplexity)
                           + (e.nsp ? "  next_sentence_accuracy = " + fmt(e.nsp_accuracy) : std::string()) + "  ("
                           + std::to_string(e.metrics.num_examples) + " sequences)");
            obs.evaluationCompleted(e.metrics);
            if (coach)
                tell(coach->evaluation(e.metrics));
            if (chief) {
                nlohmann::json line = MetricsWriter::evalJson(e.metrics);
                line["eval_mlm_loss"] = e.mlm_loss;
                line["eval_mlm_accuracy"] = e.mlm_accuracy;
                line["eval_perplexity"] = e.perplexity; // eval_nsp_* come with the metrics (next_sentence)
                metrics->writeLine(line);
                if (!evalEvents)
                    evalEvents = std::make_unique<EventWriter>(
                        (fs::path(spec.model_dir) / "summaries" / "validation").string(), e.metrics.wall_time);
                const double w = e.metrics.wall_time;
                evalEvents->addScalar("eval_loss", global, e.mlm_loss, w);
                evalEvents->addScalar("eval_mlm_loss", global, e.mlm_loss, w);
                evalEvents->addScalar("eval_mlm_accuracy", global, e.mlm_accuracy, w);
                evalEvents->addScalar("eval_perplexity", global, e.perplexity, w);
                if (e.nsp) {
                    evalEvents->addScalar("eval_nsp_loss", global, e.nsp_loss, w);
                    evalEvents->addScalar("eval_nsp_accuracy", global, e.nsp_accuracy, w);
                }
                evalEvents->flush();
            }
            lastEval = e.metrics;
            progress.final_train_loss = epochLoss / double(epochSteps);
            epochLoss = 0;
            epochSteps = 0;
            saveAt(global);
            if (extras.afterCheckpoint(e.metrics, lastCkpt))
                stoppedEarly = global;
            lastReport = now();
        }
        if (stoppedEarly)
            break;
        if (!boundary && (stopNow || (spec.save_checkpoints_steps > 0 && global % spec.save_checkpoints_steps == 0)))
            saveAt(global);
        const bool stopAfter = strategy->worldSize() > 1 ? stopVote : stop.stopRequested();
        if (stopAfter && global < total) {
            if (checkpointStep(lastCkpt) != global)
                saveAt(global);
            progress.status = RunStatus::Cancelled;
            progress.message = "stopped by the user after step " + std::to_string(global) + "; checkpoint " + lastCkpt;
            return progress;
        }
    }
    // --- the summary ------------------------------------------------------------------------
    TrainingSummary summary;
    summary.total_training_steps = total;
    summary.train_loss = progress.final_train_loss;
    summary.last_eval = lastEval;
    extras.describe(summary, progress, stoppedEarly);
    if (coach)
        summary.coach_notes = coach->notes();
    if (chief)
        writeTrainingSummary(spec.model_dir, summary);
    progress.status = RunStatus::Completed;
    progress.last_step = stoppedEarly ? stoppedEarly : total;
    progress.message = stoppedEarly ? "stopped early at step " + std::to_string(stoppedEarly) + "; best at step "
                                          + std::to_string(extras.tracker().best_step)
                                    : "pretraining completed at step " + std::to_string(total);
    return progress;
}

RunFinished exportPretraining(const TrainingOptions &spec, const ValidationResult &v, TrainingObserver &obs)
{
    const BertConfig cfg = *v.bert_config;
    const InputMetaData meta = *v.meta_data;
    std::string ckpt;
    if (!spec.predict_checkpoint_path.empty())
        ckpt = resolveCheckpointAlias(spec.predict_checkpoint_path, spec.model_dir);
    else
        ckpt = latestCheckpoint(spec.model_dir);
    if (ckpt.empty())
        throw Error("model_dir", "no checkpoint found in '" + spec.model_dir + "'",
                    "pretrain first, or pass --predict_checkpoint_path");
    nn::BertForPreTraining model(cfg, meta.use_next_sentence_label, nn::makeGenerator(uint64_t(spec.seed)));
    loadModelCheckpoint(ckpt, {*model, model->config(), 0, model->generator()}, nullptr, false);
    ExportStaging staging(spec.model_export_path, spec.overwrite_output_dir); // whole or not at all
    const fs::path d = staging.path();
    std::vector<std::string> written;
    const auto put = [&](const std::string &name, const std::string &text) {
        writeFileAtomic((d / name).string(), text);
        written.push_back(name);
    };
    saveSafetensors((d / "model.safetensors").string(), huggingFaceTensors(model, false));
    written.push_back("model.safetensors");
    nlohmann::ordered_json config = huggingFaceConfig(cfg, {}, false);
    config["architectures"] = {"BertForMaskedLM"};
    for (const char *k : {"num_labels", "problem_type", "id2label", "label2id", "classifier_dropout"})
        config.erase(k);
    put("config.json", config.dump(2) + "\n");
    put("bert_config.json", cfg.toJson().dump(2) + "\n");
    put("input_meta_data.json", meta.toJson().dump(2) + "\n");
    const PreparedTokenizer prepared = readPreparedTokenizer(spec.input_meta_data_path);
    const std::string vocab = !spec.vocab_file.empty() ? spec.vocab_file : prepared.vocab_file;
    if (vocab.empty()) {
        obs.logMessage("warning: no vocab.txt in the export: pass --vocab_file (the vocabulary the corpus was prepared "
                       "with)");
    } else {
        std::ifstream in(vocab, std::ios::binary);
        if (!in)
            throw Error(vocab, "cannot read the vocabulary to copy into the export", "check --vocab_file");
        std::ostringstream text;
        text << in.rdbuf();
        put("vocab.txt", text.str());
    }
    const bool lower = !spec.do_lower_case.empty() ? spec.do_lower_case == "true"
                                                   : meta.do_lower_case.value_or(prepared.do_lower_case.value_or(true));
    nlohmann::ordered_json tok;
    tok["tokenizer_class"] = "BertTokenizer";
    tok["do_lower_case"] = lower;
    tok["mask_token"] = "[MASK]";
    tok["model_max_length"] = meta.max_seq_length;
    put("tokenizer_config.json", tok.dump(2) + "\n");
    const std::vector<std::string> files = describeExportFiles(staging.path(), written);
    staging.commit();
    std::string list;
    for (const auto &f : files)
        list += "\n" + f;
    obs.logMessage("Exported " + ckpt + " to " + spec.model_export_path + " as BertForMaskedLM:" + list);
    RunFinished r;
    r.status = RunStatus::Completed;
    r.last_checkpoint = ckpt;
    r.message = "exported to " + spec.model_export_path;
    return r;
}

} // namespace wb
