// SPDX-License-Identifier: Apache-2.0
#include "core/engine/lrfind.h"

#include "core/config/jsonfile.h"
#include "core/config/schedule.h"
#include "core/engine/preflight.h"
#include "core/data/classifierdataset.h"
#include "core/model/initcheckpoint.h"
#include "core/engine/adamw.h"
#include "core/engine/batching.h"
#include "core/engine/checkpointio.h"
#include "core/engine/evalpass.h"
#include "core/advice/runfacts.h"
#include "core/formats/runidentity.h"
#include "core/util/error.h"
#include "core/util/trainingallocator.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <filesystem>

namespace fs = std::filesystem;

namespace wb {

namespace {

/// The range test's model: its own stream seeded as a run with this --seed (never the
/// default generator, which a training run beside it must not see touched), the init
/// checkpoint loaded, on the device, in train mode.
nn::BertForSequenceClassification makeRangeTestModel(const TrainingOptions &spec, const BertConfig &cfg,
                                                     const InputMetaData &meta, const c10::Device &device,
                                                     TrainingObserver &obs)
{
    nn::BertForSequenceClassification model(cfg, meta.num_labels, nn::makeGenerator(uint64_t(spec.seed)));
    model->setActivationCheckpointing(spec.activation_checkpointing);
    if (!spec.init_checkpoint.empty()) {
        // Any init checkpoint, a training run's ckpt-N or model_dir included (locateCheckpoint).
        obs.logMessage("lr_find: init checkpoint " + spec.init_checkpoint + ": "
                       + loadInitCheckpoint(model, spec.init_checkpoint, spec.allow_partial_init).summary());
    }
    model->to(device);
    model->train();
    return model;
}

/// The steps of the test: the learning rate rising exponentially, until the last step, a
/// stop, a non-finite loss or a smoothed loss above kLrFindDivergence × its minimum.
void runRangeSteps(const TrainingOptions &spec, nn::BertForSequenceClassification &model, ClassifierDataset &data,
                   const c10::Device &device, ProblemType problem, const StopToken &stop,
                   const std::function<void(const LrFindResult &)> &progress, LrFindResult &r)
{
    AdamW opt(namedParameters(model), AdamWOptions{spec.weight_decay_rate});
    ClassifierBatch batch;
    const int64_t steps = spec.lr_find_steps;
    double minSmoothed = std::numeric_limits<double>::infinity();
    for (int64_t k = 0; k < steps && !stop.stopRequested(); ++k) {
        const double lr = lrFindLearningRate(k, steps, spec.lr_find_start, spec.lr_find_end);
        data.next(batch);
        BatchTensors t = onDevice(toTensors(batch, spec.padding), device);
        auto loss = lossFor(model->forward(t.ids, t.mask, t.segments), t, problem);
        loss.backward();
        const double value = loss.item<double>();
        r.steps.push_back(k + 1);
        r.learning_rates.push_back(lr);
        r.losses.push_back(value);
        analyzeLrFind(r);
        if (!std::isfinite(value)) {
            r.diverged = true;
            break;
        }
        opt.step(lr);
        opt.zeroGrad();
        if (progress)
            progress(r);
        const double smoothed = r.smoothed.back();
        minSmoothed = std::min(minSmoothed, smoothed);
        if (k > 0 && smoothed > kLrFindDivergence * minSmoothed) {
            r.diverged = true;
            break;
        }
    }
}

/// Writes model_dir/lr_find.json (r.path), unless a test stopped part-way would replace a
/// saved result that covered more of the range (then r.path stays empty).
void saveRangeTest(const TrainingOptions &spec, TrainingObserver &obs, LrFindResult &r)
{
    std::error_code ec;
    fs::create_directories(spec.model_dir, ec);
    const std::string path = (fs::path(spec.model_dir) / "lr_find.json").string();
    // A test stopped part-way (Stop, closing the dialog, Ctrl-C) measured only the low end
    // of the range: it must not replace a saved result that covered more of it.
    const bool stopped = !r.diverged && int64_t(r.steps.size()) < spec.lr_find_steps;
    if (stopped && fs::exists(path, ec)) {
        obs.logMessage("lr_find: stopped after " + std::to_string(r.steps.size()) + " of "
                       + std::to_string(spec.lr_find_steps) + " steps; " + path + " keeps the earlier result");
        return;
    }
    r.path = path;
    writeFileAtomic(r.path, lrFindJson(r));
    const std::string said = r.verdict != "ok"
                                 ? "no suggestion: " + lrFindVerdictText(r, runFactsFor(spec, Schedule{}))
                                 : "suggested learning_rate " + formatMetric(r.suggestion, 3) + " (valley)"
                                       + (r.min_over_10 > 0 ? ", " + formatMetric(r.min_over_10, 3) + " (minimum / 10)"
                                                            : std::string());
    obs.logMessage("lr_find: " + std::to_string(r.steps.size()) + " steps" + (r.diverged ? " (the loss diverged)" : "")
                   + "; " + said + "; wrote " + r.path);
}

} // namespace

LrFindResult findLearningRate(const PreparedRun &run, TrainingObserver &obs, const StopToken &stop,
                              const std::function<void(const LrFindResult &)> &progress)
{
    if (run.purpose != RunPurpose::LrFind)
        throw Error("lr_find", "the range test was given a run prepared for " + std::string(runPurposeName(run.purpose)),
                    "prepare it with prepareRun(options, RunPurpose::LrFind)");
    if (!run.ok()) {
        const RunFinished f = failedValidation(run.validation.diagnostics);
        throw Error(f.field, f.message, f.hint);
    }
    keepFreedMemoryForTraining(); // as a training run: the steps' tensors are reused
    const TrainingOptions &spec = run.options;
    const BertConfig cfg = *run.validation.bert_config;
    const InputMetaData meta = *run.validation.meta_data;
    const c10::Device device = spec.num_gpus > 0 && torch::cuda::is_available() ? c10::Device(c10::kCUDA, 0)
                                                                               : c10::Device(c10::kCPU);
    auto model = makeRangeTestModel(spec, cfg, meta, device, obs);
    ClassifierDataset data(datasetOptions(spec, cfg, meta, spec.train_data_path, true));
    obs.logMessage("lr_find: up to " + std::to_string(spec.lr_find_steps) + " steps, learning rate "
                   + formatMetric(spec.lr_find_start) + " → " + formatMetric(spec.lr_find_end) + " on " + device.str()
                   + " (a throwaway copy of the model; only lr_find.json is written)");
    LrFindResult r;
    runRangeSteps(spec, model, data, device, meta.problemType(), stop, progress, r);
    if (r.steps.empty())
        throw Error("lr_find", "stopped before the first step");
    saveRangeTest(spec, obs, r);
    return r;
}

} // namespace wb
