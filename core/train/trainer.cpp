// SPDX-License-Identifier: Apache-2.0
#include "core/train/trainer.h"

#include "core/config/jsonfile.h"
#include "core/config/validation.h"
#include "core/data/classifierdataset.h"
#include "core/distribute/strategy.h"
#include "core/io/metricswriter.h"
#include "core/io/summarywriter.h"
#include "core/model/bertmodel.h"
#include "core/model/initcheckpoint.h"
#include "core/model/parameternames.h"
#include "core/train/adamw.h"
#include "core/train/blascheck.h"
#include "core/train/checkpointstate.h"
#include "core/train/evaluation.h"
#include "core/util/error.h"

#include <ATen/CPUGeneratorImpl.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>

namespace fs = std::filesystem;

namespace wb {

namespace {

// Observer hooks are throttled to at most one StepMetrics per this many seconds.
constexpr double kReportInterval = 0.05;

double now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string fmt(double v, int precision = 4)
{
    std::ostringstream s;
    s << std::setprecision(precision) << v;
    return s.str();
}

/// Views a batch as tensors (no copy; the batch must outlive them).
struct BatchTensors
{
    torch::Tensor ids, mask, segments, labels, values, weights;
};

/// This worker's rows of a global batch: [rank·b, (rank+1)·b) with b = size / workers.
/// Every worker reads the same global batches, so N workers train on exactly the data
/// order of one worker (issue 6: equivalence), each on its own share of every batch.
BatchTensors workerSlice(const BatchTensors &t, const Strategy &s)
{
    if (s.worldSize() == 1)
        return t;
    const int64_t b = t.ids.size(0) / s.worldSize();
    const int64_t from = b * s.rank();
    const auto cut = [&](const torch::Tensor &x) { return x.defined() ? x.narrow(0, from, b) : x; };
    return {cut(t.ids), cut(t.mask), cut(t.segments), cut(t.labels), cut(t.values), cut(t.weights)};
}

/// Copies the batch to `device` (no-op on the CPU, where the tensors stay views).
BatchTensors onDevice(BatchTensors t, const c10::Device &device)
{
    if (device.is_cpu())
        return t;
    const auto move = [&](torch::Tensor &x) {
        if (x.defined())
            x = x.to(device);
    };
    for (torch::Tensor *x : {&t.ids, &t.mask, &t.segments, &t.labels, &t.values, &t.weights})
        move(*x);
    return t;
}

BatchTensors toTensors(ClassifierBatch &b)
{
    BatchTensors t;
    const auto i64 = torch::TensorOptions().dtype(torch::kLong);
    const auto f32 = torch::TensorOptions().dtype(torch::kFloat);
    t.ids = torch::from_blob(b.input_ids.data(), {b.size, b.seq_length}, i64);
    t.mask = torch::from_blob(b.input_mask.data(), {b.size, b.seq_length}, i64);
    t.segments = torch::from_blob(b.segment_ids.data(), {b.size, b.seq_length}, i64);
    if (!b.label_ids.empty())
        t.labels = torch::from_blob(b.label_ids.data(), {b.size}, i64);
    if (!b.label_values.empty())
        t.values = torch::from_blob(b.label_values.data(), {b.size}, f32);
    if (!b.weights.empty())
        t.weights = torch::from_blob(b.weights.data(), {b.size}, f32);
    return t;
}

/// Mean cross-entropy (classification) or Keras MSE: Σ w·(ŷ−y)² / batch (regression).
torch::Tensor lossFor(const torch::Tensor &logits, const BatchTensors &t, bool regression)
{
    if (!regression)
        return torch::nn::functional::cross_entropy(logits, t.labels);
    const torch::Tensor target = t.values.defined() ? t.values : t.labels.to(torch::kFloat);
    auto se = (logits.squeeze(-1) - target).pow(2);
    if (t.weights.defined())
        se = se * t.weights;
    return se.mean();
}

DatasetOptions datasetOptions(const TrainingOptions &spec, const BertConfig &cfg, const InputMetaData &meta,
                              const std::string &pattern, bool training)
{
    DatasetOptions o;
    o.pattern = pattern;
    o.max_seq_length = meta.max_seq_length;
    o.num_labels = meta.num_labels;
    o.float_labels = meta.label_type == "float";
    o.has_sample_weights = meta.has_sample_weights;
    o.vocab_size = cfg.vocab_size;
    o.type_vocab_size = cfg.type_vocab_size;
    o.batch_size = training ? spec.train_batch_size : spec.eval_batch_size;
    o.training = training;
    o.seed = uint64_t(spec.seed);
    if (training)
        o.take = spec.train_data_size;
    return o;
}

std::vector<std::pair<std::string, torch::Tensor>> namedParameters(nn::BertForSequenceClassification &model)
{
    std::vector<std::pair<std::string, torch::Tensor>> out;
    for (auto &p : model->named_parameters())
        out.emplace_back(p.key(), p.value());
    return out;
}

struct CheckpointInfo
{
    int64_t step = 0;
    int64_t numLabels = 0;
};

/// Reads a checkpoint written by saveCheckpoint into model (+ optimizer and RNG).
CheckpointInfo loadCheckpoint(const std::string &path, nn::BertForSequenceClassification &model, AdamW *opt,
                              bool restoreRng)
{
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        throw Error(path, fs::exists(path, ec) ? "is not a checkpoint file" : "checkpoint file not found",
                    "pass a model_dir/ckpt-<step> file written by a training run, or leave the flag out to use "
                    "the latest checkpoint in model_dir");
    torch::serialize::InputArchive ar;
    try {
        ar.load_from(path);
    } catch (const c10::Error &e) {
        throw Error(path, "cannot read the checkpoint (corrupt or not written by bert-workbench)",
                    "delete it (and its line in the 'checkpoint' file) or use another model_dir");
    }
    c10::IValue cfgValue, labelsValue, stepValue, modelValue;
    if (!ar.try_read("bert_config", cfgValue) || !cfgValue.isString() || !ar.try_read("num_labels", labelsValue)
        || !ar.try_read("step", stepValue) || !ar.try_read("model", modelValue) || !modelValue.isGenericDict())
        throw Error(path, "the checkpoint lacks bert_config, num_labels, step or model entries",
                    "it was not written by bert-workbench; use another model_dir");
    Diagnostics diag;
    auto cfgJson = nlohmann::json::parse(cfgValue.toStringRef(), nullptr, false);
    const BertConfig saved = BertConfig::fromJson(cfgJson, path, diag);
    CheckpointInfo info;
    info.step = stepValue.toInt();
    info.numLabels = labelsValue.toInt();
    const BertConfig &cfg = model->config();
    if (diag.hasErrors() || !saved.sameArchitecture(cfg))
        throw Error(path,
                    "the checkpoint was trained with another architecture (hidden_size " + std::to_string(saved.hidden_size)
                        + ", num_hidden_layers " + std::to_string(saved.num_hidden_layers) + ", vocab_size "
                        + std::to_string(saved.vocab_size) + ") than --bert_config_file (hidden_size "
                        + std::to_string(cfg.hidden_size) + ", num_hidden_layers " + std::to_string(cfg.num_hidden_layers)
                        + ", vocab_size " + std::to_string(cfg.vocab_size) + ")",
                    "use a new --model_dir, or the bert_config.json the checkpoint was trained with");
    if (info.numLabels != model->numLabels())
        throw Error(path,
                    "the checkpoint has " + std::to_string(info.numLabels) + " labels but the meta data says num_labels "
                        + std::to_string(model->numLabels()),
                    "use a new --model_dir or the input_meta_data.json the checkpoint was trained with");
    auto dict = c10::impl::toTypedDict<std::string, torch::Tensor>(modelValue.toGenericDict());
    torch::NoGradGuard guard;
    for (auto &p : model->named_parameters()) {
        auto it = dict.find(p.key());
        if (it == dict.end())
            throw Error(path, "the checkpoint has no tensor " + p.key());
        if (it->value().sizes() != p.value().sizes())
            throw Error(path + ": " + p.key(), "shape " + shapeString(it->value().sizes().vec()) + " in the checkpoint, the model needs "
                                                    + shapeString(p.value().sizes().vec()));
        p.value().copy_(it->value());
    }
    if (opt)
        opt->load(ar);
    if (restoreRng) {
        c10::IValue rng;
        if (ar.try_read("rng_state", rng) && rng.isTensor()) {
            auto gen = at::detail::getDefaultCPUGenerator();
            std::lock_guard<std::mutex> lock(gen.mutex());
            gen.set_state(rng.toTensor());
        }
    }
    return info;
}

void saveCheckpoint(const std::string &path, nn::BertForSequenceClassification &model, const AdamW &opt, int64_t step,
                    const InputMetaData &meta)
{
    torch::serialize::OutputArchive ar;
    c10::Dict<std::string, torch::Tensor> params;
    for (auto &p : model->named_parameters())
        params.insert(p.key(), p.value().detach().cpu()); // a checkpoint loads on any machine
    ar.write("model", c10::IValue(params));
    opt.save(ar);
    ar.write("step", c10::IValue(step));
    ar.write("num_labels", c10::IValue(model->numLabels()));
    ar.write("bert_config", c10::IValue(model->config().toJson().dump()));
    ar.write("input_meta_data", c10::IValue(meta.toJson().dump()));
    {
        auto gen = at::detail::getDefaultCPUGenerator();
        std::lock_guard<std::mutex> lock(gen.mutex());
        ar.write("rng_state", c10::IValue(gen.get_state()));
    }
    const std::string tmp = path + ".tmp";
    try {
        ar.save_to(tmp);
    } catch (const c10::Error &e) {
        std::remove(tmp.c_str());
        throw Error(path, "could not write the checkpoint", "check free disk space and that model_dir is writable");
    }
    commitFileAtomic(tmp, path); // fsync, rename, fsync the directory
}

/// One evaluation pass over the whole eval set.
EvalMetrics evaluate(nn::BertForSequenceClassification &model, ClassifierDataset &data, bool regression,
                     int64_t numLabels, std::vector<std::vector<float>> *outputs = nullptr,
                     Strategy *strategy = nullptr)
{
    torch::NoGradGuard guard;
    model->eval();
    data.reset();
    ClassifierBatch batch;
    double lossSum = 0;
    int64_t count = 0;
    std::vector<int64_t> labels, preds;
    std::vector<double> targets, values;
    const c10::Device device = model->parameters().front().device();
    while (data.next(batch)) {
        if (batch.size == 0)
            continue;
        BatchTensors t = onDevice(toTensors(batch), device);
        auto logits = model->forward(t.ids, t.mask, t.segments);
        lossSum += lossFor(logits, t, regression).item<double>() * double(batch.size);
        logits = logits.cpu(); // no-op on the CPU
        count += batch.size;
        if (regression) {
            auto v = logits.squeeze(-1).contiguous();
            const float *p = v.data_ptr<float>();
            for (int64_t k = 0; k < batch.size; ++k) {
                values.push_back(p[k]);
                targets.push_back(batch.label_values.empty() ? double(batch.label_ids[size_t(k)])
                                                             : double(batch.label_values[size_t(k)]));
                if (outputs)
                    outputs->push_back({p[k]});
            }
        } else {
            auto am = logits.argmax(-1).contiguous();
            const int64_t *p = am.data_ptr<int64_t>();
            for (int64_t k = 0; k < batch.size; ++k) {
                preds.push_back(p[k]);
                labels.push_back(batch.label_ids[size_t(k)]);
            }
            if (outputs) {
                auto prob = torch::softmax(logits, -1).contiguous();
                const float *q = prob.data_ptr<float>();
                for (int64_t k = 0; k < batch.size; ++k)
                    outputs->emplace_back(q + k * numLabels, q + (k + 1) * numLabels);
            }
        }
    }
    model->train();
    if (strategy && strategy->worldSize() > 1) {
        // Sharded evaluation: combine the shards, then compute the metrics as one worker would.
        std::vector<double> sums{lossSum, double(count)};
        strategy->sumAcrossWorkers(sums);
        lossSum = sums[0];
        count = int64_t(sums[1]);
        strategy->gatherAcrossWorkers(labels);
        strategy->gatherAcrossWorkers(preds);
        strategy->gatherAcrossWorkers(targets);
        strategy->gatherAcrossWorkers(values);
    }
    EvalMetrics m;
    m.eval_loss = count ? lossSum / double(count) : 0.0;
    if (regression)
        computeRegressionMetrics(targets, values, m);
    else
        computeClassificationMetrics(labels, preds, numLabels, m);
    return m;
}

std::string evalLine(const EvalMetrics &m)
{
    std::string s = "Step: [" + std::to_string(m.step) + "] eval_loss = " + fmt(m.eval_loss);
    if (m.regression)
        s += ", eval_mse = " + fmt(m.eval_mse) + ", eval_pearson = " + fmt(m.eval_pearson) + ", eval_spearman = "
             + fmt(m.eval_spearman);
    else
        s += ", eval_accuracy = " + fmt(m.eval_accuracy);
    if (m.binary)
        s += ", eval_f1 = " + fmt(m.eval_f1) + ", eval_mcc = " + fmt(m.eval_mcc);
    return s + " (" + std::to_string(m.num_examples) + " examples)";
}

std::string floatText(float v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", double(v));
    return buf;
}

void configureThreads(const TrainingOptions &spec, TrainingObserver &observer)
{
    if (spec.num_threads > 0) {
        torch::set_num_threads(spec.num_threads);
        observer.logMessage("intra-op threads: " + std::to_string(spec.num_threads) + " (--num_threads)");
    } else {
        // Automatic: keep libtorch's own choice (one thread per physical core as it counts
        // them); BLAS brings its own pool. Raising torch's OpenMP threads on top made
        // training slower here (performance.md, "thread trap").
        observer.logMessage("intra-op threads: " + std::to_string(torch::get_num_threads())
                            + " (automatic; --num_threads overrides)");
    }
}

class Run
{
public:
    Run(const TrainingOptions &spec, TrainingObserver &observer, const StopToken &stop, const ValidationResult &v)
        : m_spec(spec), m_obs(observer), m_stop(stop), m_cfg(*v.bert_config), m_meta(*v.meta_data),
          m_regression(v.meta_data->isRegression())
    {
        if (v.schedule)
            m_sched = *v.schedule;
    }

    RunFinished train();
    RunFinished predict();
    RunFinished exportModel();

private:
    nn::BertForSequenceClassification makeModel()
    {
        torch::manual_seed(uint64_t(m_spec.seed));
        return nn::BertForSequenceClassification(m_cfg, m_meta.num_labels);
    }
    std::string checkpointForInference() const
    {
        if (!m_spec.predict_checkpoint_path.empty())
            return m_spec.predict_checkpoint_path;
        const std::string latest = latestCheckpoint(m_spec.model_dir);
        if (latest.empty())
            throw Error("model_dir", "no checkpoint found in '" + m_spec.model_dir + "'",
                        "train first, or pass --predict_checkpoint_path");
        return latest;
    }
    void loadForInference(nn::BertForSequenceClassification &model, const std::string &path)
    {
        if (path.size() > 12 && path.compare(path.size() - 12, 12, ".safetensors") == 0) {
            auto m = loadInitCheckpoint(model, path);
            m_obs.logMessage("Loaded " + path + ": " + m.summary());
        } else {
            loadCheckpoint(path, model, nullptr, false);
            m_obs.logMessage("Checkpoint file " + path + " found and restoring from checkpoint");
        }
    }

    const TrainingOptions &m_spec;
    TrainingObserver &m_obs;
    const StopToken &m_stop;
    BertConfig m_cfg;
    InputMetaData m_meta;
    Schedule m_sched;
    bool m_regression;

public:
    /// Last step, checkpoint and train loss reached so far (valid after a throw too).
    const RunFinished &progress() const { return m_progress; }

private:
    RunFinished m_progress;
};

RunFinished Run::train()
{
    RunFinished &r = m_progress; // kept up to date, so a failure can still report how far it got
    r = RunFinished{};
    configureThreads(m_spec, m_obs);
    // multi_worker_mirrored: joins the cluster here (waits for every worker, bounded by
    // --worker_timeout). Only the chief writes checkpoints, metrics and the summary.
    const std::unique_ptr<Strategy> strategy = makeStrategy(m_spec);
    const bool chief = strategy->isChief();
    strategy->perReplicaBatch(m_spec.train_batch_size); // throws when not divisible
    if (strategy->worldSize() > 1)
        m_obs.logMessage("multi_worker_mirrored: worker rank " + std::to_string(strategy->rank()) + " of "
                         + std::to_string(strategy->worldSize()) + (chief ? " (chief)" : ""));
    for (const auto &w : checkBlas())
        m_obs.logMessage(w);
    std::error_code ec;
    fs::create_directories(m_spec.model_dir, ec);
    if (ec)
        throw Error("model_dir", "cannot create '" + m_spec.model_dir + "': " + ec.message());

    auto model = makeModel();
    // The optimizer's slots are created beside the parameters: move the model first.
    const c10::Device device = strategy->device();
    model->to(device);
    model->train();
    AdamW opt(namedParameters(model), AdamWOptions{m_spec.weight_decay_rate});
    int64_t start = 0;
    std::string lastCkpt = latestCheckpoint(m_spec.model_dir);
    if (!lastCkpt.empty()) {
        start = loadCheckpoint(lastCkpt, model, &opt, true).step;
        m_obs.logMessage("Resuming from checkpoint " + lastCkpt + " at step " + std::to_string(start));
        if (start > m_sched.total_steps)
            throw Error(lastCkpt, "the checkpoint is at step " + std::to_string(start) + ", past total_steps "
                                      + std::to_string(m_sched.total_steps) + " of this configuration",
                        "use a new --model_dir");
    } else if (!m_spec.init_checkpoint.empty()) {
        auto m = loadInitCheckpoint(model, m_spec.init_checkpoint);
        m_obs.logMessage("Init checkpoint " + m_spec.init_checkpoint + ": " + m.summary());
    }
    r.last_checkpoint = lastCkpt;
    r.last_step = start;
    if (strategy->worldSize() > 1) {
        // Every worker resumes from the chief's checkpoint, then starts from its parameters.
        std::vector<int64_t> starts{start};
        strategy->gatherAcrossWorkers(starts);
        for (size_t k = 1; k < starts.size(); ++k)
            if (starts[k] != starts[0])
                throw Error("model_dir",
                            "worker rank " + std::to_string(k) + " would resume at step " + std::to_string(starts[k])
                                + " but the chief at step " + std::to_string(starts[0]),
                            "every worker must see the chief's model_dir (a shared folder), or start all in a new one");
        strategy->prepare(model->parameters());
        // Own dropout masks per worker (deterministic, so a resumed run repeats them);
        // the chief keeps its stream, which its checkpoints record.
        if (strategy->rank() > 0)
            torch::manual_seed(uint64_t(m_spec.seed) + 7919 * uint64_t(strategy->rank()) + uint64_t(start));
    }

    const std::string metricsPath = m_spec.metricsPath();
    std::optional<MetricsWriter> metrics;
    if (chief) {
        MetricsWriter::truncateAfterStep(metricsPath, start);
        metrics.emplace(metricsPath);
    }
    // TensorBoard summaries are a convenience: an I/O error there warns once and stops
    // writing them, it does not end the run (metrics.jsonl and checkpoints are what matter).
    std::unique_ptr<SummaryWriter> summaries;
    if (chief)
        summaries = std::make_unique<SummaryWriter>(m_spec.model_dir);
    const auto writeSummary = [&](const auto &write) {
        if (!summaries)
            return;
        try {
            write(*summaries);
        } catch (const std::exception &e) {
            m_obs.logMessage(std::string("warning: TensorBoard summaries disabled: ") + e.what());
            summaries.reset();
        }
    };

    ClassifierDataset trainData(datasetOptions(m_spec, m_cfg, m_meta, m_spec.train_data_path, true));
    DatasetOptions evalOptions = datasetOptions(m_spec, m_cfg, m_meta, m_spec.eval_data_path, false);
    evalOptions.num_shards = strategy->dataShard().num_shards; // sharded evaluation, combined in evaluate()
    evalOptions.shard_index = strategy->dataShard().shard_index;
    ClassifierDataset evalData(evalOptions);
    ClassifierBatch batch;
    for (int64_t s = 0; s < start; ++s) // same data order as an uninterrupted run
        trainData.next(batch);

    const int64_t total = m_sched.total_steps;
    const int64_t perEval = m_sched.steps_per_epoch;
    RunStarted info;
    info.total_steps = total;
    info.steps_per_epoch = perEval;
    info.warmup_steps = m_sched.warmup_steps;
    info.eval_steps = m_sched.eval_steps;
    info.start_step = start;
    info.num_labels = m_meta.num_labels;
    info.parameter_count = 0;
    for (auto &p : model->parameters())
        info.parameter_count += p.numel();
    info.model_dir = m_spec.model_dir;
    info.device = device.str();
    info.wall_time = now();
    m_obs.runStarted(info);
    m_obs.logMessage("Training " + std::to_string(info.parameter_count) + " parameters: steps_per_epoch "
                     + std::to_string(perEval) + ", total_steps " + std::to_string(total) + ", warmup_steps "
                     + std::to_string(m_sched.warmup_steps) + (start ? ", resuming at step " + std::to_string(start) : ""));

    const auto saveAt = [&](int64_t step) {
        if (!chief)
            return;
        const std::string name = "ckpt-" + std::to_string(step);
        const std::string path = (fs::path(m_spec.model_dir) / name).string();
        saveCheckpoint(path, model, opt, step, m_meta);
        for (const auto &gone : recordCheckpoint(m_spec.model_dir, name, m_spec.keep_checkpoint_max))
            m_obs.logMessage("Deleted old checkpoint " + gone);
        lastCkpt = path;
        r.last_checkpoint = path;
        m_obs.checkpointSaved({step, path});
        m_obs.logMessage("Saved checkpoint " + path);
    };

    double reportLoss = 0, epochLoss = 0;
    int64_t reportSteps = 0, epochSteps = 0, reportExamples = 0;
    double lastReport = now(), logStart = lastReport;
    int64_t logStartStep = start;
    std::optional<EvalMetrics> lastEval;
    const double epochsPerStep = 1.0 / double(perEval * m_spec.num_eval_per_epoch);

    for (int64_t step = start; step < total; ++step) {
        const double lr = m_sched.learningRate(step, m_spec.learning_rate, m_spec.end_lr);
        trainData.next(batch);
        BatchTensors t = onDevice(workerSlice(toTensors(batch), *strategy), device);
        auto logits = model->forward(t.ids, t.mask, t.segments);
        auto loss = lossFor(logits, t, m_regression);
        loss.backward();
        double lossValue = loss.item<double>(); // CPU: free; the NaN check needs it
        // Average gradients and loss over the workers; all agree on stopping after this step.
        const bool stopVote = strategy->reduceGradients(model->parameters(), m_stop.stopRequested(), &lossValue);
        const auto stopNow = [&] { return strategy->worldSize() > 1 ? stopVote : m_stop.stopRequested(); };
        if (!std::isfinite(lossValue)) {
            r.status = RunStatus::Failed;
            r.last_step = step;
            r.field = "learning_rate";
            r.message = "the training loss became " + std::string(std::isnan(lossValue) ? "NaN" : "infinite")
                        + " at step " + std::to_string(step + 1) + " (learning_rate " + fmt(lr) + "); "
                        + (lastCkpt.empty() ? "no checkpoint was written" : "last good checkpoint: " + lastCkpt);
            r.hint = "lower --learning_rate (e.g. by 10x) and start again in a new --model_dir";
            return r;
        }
        opt.step(lr);
        opt.zeroGrad();
        const int64_t global = step + 1;
        reportLoss += lossValue;
        epochLoss += lossValue;
        ++reportSteps;
        ++epochSteps;
        reportExamples += batch.size;
        r.last_step = global;

        const double tnow = now();
        const bool boundary = global % perEval == 0 || global == total;
        if (tnow - lastReport >= kReportInterval || boundary || stopNow()) {
            StepMetrics sm;
            sm.step = global;
            sm.total_steps = total;
            sm.epoch = double(global) * epochsPerStep;
            sm.loss = reportLoss / double(reportSteps);
            sm.learning_rate = lr;
            sm.examples_per_second = tnow > lastReport ? double(reportExamples) / (tnow - lastReport) : 0.0;
            sm.wall_time = tnow;
            m_obs.stepCompleted(sm);
            if (metrics)
                metrics->writeTrain(sm);
            writeSummary([&](SummaryWriter &w) { w.writeTrain(sm); });
            r.final_train_loss = sm.loss;
            reportLoss = 0;
            reportSteps = 0;
            reportExamples = 0;
            lastReport = tnow;
        }
        if (m_spec.log_steps > 0 && global % m_spec.log_steps == 0) {
            const double elapsed = tnow - logStart;
            m_obs.logMessage("TimeHistory: " + fmt(elapsed, 3) + " seconds, "
                             + fmt(double((global - logStartStep) * m_spec.train_batch_size) / elapsed, 4)
                             + " examples/second between steps " + std::to_string(logStartStep) + " and "
                             + std::to_string(global));
            logStart = tnow;
            logStartStep = global;
        }
        if (boundary) {
            EvalMetrics em = evaluate(model, evalData, m_regression, m_meta.num_labels, nullptr, strategy.get());
            em.step = global;
            em.wall_time = now();
            m_obs.logMessage("Train Step: " + std::to_string(global) + "/" + std::to_string(total)
                             + "  / loss = " + fmt(epochLoss / double(epochSteps)) + "  learning_rate = " + fmt(lr));
            m_obs.logMessage(evalLine(em));
            m_obs.evaluationCompleted(em);
            if (metrics)
                metrics->writeEval(em);
            writeSummary([&](SummaryWriter &w) { w.writeEval(em); });
            lastEval = em;
            r.final_train_loss = epochLoss / double(epochSteps);
            epochLoss = 0;
            epochSteps = 0;
            saveAt(global);
            lastReport = now(); // keep eval and checkpoint time out of examples/s
        } else if (stopNow()) {
            saveAt(global);
        }
        if (stopNow() && global < total) {
            r.status = RunStatus::Cancelled;
            r.message = "stopped by the user after step " + std::to_string(global) + "; checkpoint " + lastCkpt;
            return r;
        }
    }

    nlohmann::ordered_json summary;
    summary["total_training_steps"] = total;
    summary["train_loss"] = r.final_train_loss;
    if (lastEval) {
        auto ej = MetricsWriter::evalJson(*lastEval);
        ej.erase("kind");
        ej.erase("wall_time");
        if (!lastEval->regression)
            summary["eval_metrics"] = lastEval->eval_accuracy;
        summary["last_eval"] = ej;
    }
    if (chief)
        writeFileAtomic((fs::path(m_spec.model_dir) / "training_summary.json").string(), summary.dump(4) + "\n");
    r.status = RunStatus::Completed;
    r.last_step = total;
    r.message = start >= total ? "training was already complete at step " + std::to_string(total)
                               : "training completed at step " + std::to_string(total);
    return r;
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
    evaluate(model, data, m_regression, m_meta.num_labels, &outputs);
    std::string text;
    for (const auto &row : outputs) {
        for (size_t k = 0; k < row.size(); ++k)
            text += (k ? "\t" : "") + floatText(row[k]);
        text += "\n";
    }
    const std::string path = (fs::path(m_spec.model_dir) / "test_results.tsv").string();
    writeFileAtomic(path, text);
    m_obs.logMessage("Wrote " + std::to_string(outputs.size()) + " predictions to " + path);
    r.status = RunStatus::Completed;
    r.last_checkpoint = ckpt;
    r.message = "wrote " + path;
    return r;
}

RunFinished Run::exportModel()
{
    RunFinished r;
    auto model = makeModel();
    const std::string ckpt = checkpointForInference();
    loadForInference(model, ckpt);
    const fs::path dir = m_spec.model_export_path;
    saveSafetensors((dir / "model.safetensors").string(), namedParameters(model));
    writeFileAtomic((dir / "bert_config.json").string(), m_cfg.toJson().dump(2) + "\n");
    writeFileAtomic((dir / "input_meta_data.json").string(), m_meta.toJson().dump(2) + "\n");
    std::string labels;
    const auto &extra = m_meta.extra;
    const char *keys[] = {"labels", "label_list", "label_names"};
    bool named = false;
    // `prepare` writes the label names to labels.txt beside the meta data: prefer them.
    const fs::path preparedLabels = fs::path(m_spec.input_meta_data_path).parent_path() / "labels.txt";
    if (std::ifstream in{preparedLabels}; in) {
        std::string line;
        int64_t count = 0;
        std::string text;
        while (std::getline(in, line))
            if (!line.empty()) {
                text += line + "\n";
                ++count;
            }
        if (count == m_meta.num_labels) {
            labels = text;
            named = true;
        }
    }
    for (const char *k : keys)
        if (!named && extra.contains(k) && extra[k].is_array()) {
            for (const auto &l : extra[k])
                labels += (l.is_string() ? l.get<std::string>() : l.dump()) + "\n";
            named = true;
            break;
        }
    if (!named)
        for (int64_t k = 0; k < m_meta.num_labels; ++k)
            labels += std::to_string(k) + "\n";
    writeFileAtomic((dir / "labels.txt").string(), labels);
    m_obs.logMessage("Exported " + ckpt + " to " + dir.string()
                     + " (model.safetensors, bert_config.json, input_meta_data.json, labels.txt)");
    r.status = RunStatus::Completed;
    r.last_checkpoint = ckpt;
    r.message = "exported to " + dir.string();
    return r;
}

} // namespace

struct Trainer::Private
{
};

Trainer::Trainer() : d(std::make_unique<Private>()) {}
Trainer::~Trainer() = default;

RunFinished Trainer::run(const TrainingOptions &spec, TrainingObserver &observer, const StopToken &stop)
{
    ValidationResult v;
    try {
        v = validateRun(spec);
    } catch (const std::exception &e) { // validateRun reports bad input itself; this is a bug guard
        RunFinished r;
        r.status = RunStatus::Failed;
        r.message = e.what();
        observer.runFinished(r);
        return r;
    }
    return run(spec, v, observer, stop);
}

RunFinished Trainer::run(const TrainingOptions &spec, const ValidationResult &v, TrainingObserver &observer,
                         const StopToken &stop)
{
    RunFinished r;
    std::unique_ptr<Run> run;
    // A failure mid-run still says how far the run got and where its last checkpoint is.
    const auto keepProgress = [&] {
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
        if (!v.ok()) {
            r.status = RunStatus::Failed;
            for (const auto &d : v.diagnostics.items())
                if (d.severity == Severity::Error) {
                    r.field = d.field;
                    r.hint = d.hint;
                    break;
                }
            r.message = v.diagnostics.format(false);
            while (!r.message.empty() && r.message.back() == '\n')
                r.message.pop_back();
        } else {
            run = std::make_unique<Run>(spec, observer, stop, v);
            if (spec.mode == "predict")
                r = run->predict();
            else if (spec.mode == "export_only")
                r = run->exportModel();
            else
                r = run->train();
        }
    } catch (const Error &e) {
        keepProgress();
        r.status = RunStatus::Failed;
        r.field = e.field();
        r.message = e.what();
        r.hint = e.hint();
    } catch (const c10::Error &e) {
        keepProgress();
        r.status = RunStatus::Failed;
        r.message = std::string("libtorch error: ") + e.what_without_backtrace();
    } catch (const std::exception &e) {
        keepProgress();
        r.status = RunStatus::Failed;
        r.message = e.what();
    }
    observer.runFinished(r);
    return r;
}

} // namespace wb
