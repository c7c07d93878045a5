// SPDX-License-Identifier: Apache-2.0
#include "core/engine/preflight.h"

#include "core/config/jsonfields.h"
#include "core/config/jsonfile.h"
#include "core/config/learningrates.h"
#include "core/config/hostinfo.h"
#include "core/config/memoryestimate.h"
#include "core/config/optiontable.h"
#include "core/config/optionwords.h"
#include "core/formats/exportfolder.h"
#include "core/formats/onnxruntimeweb.h"
#include "core/formats/runidentity.h"
#include "core/prepare/datacheck.h"
#include "core/distribute/devices.h"
#include "core/model/initcheckpoint.h"
#include "core/util/error.h"
#include "core/util/tcpport.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

namespace fs = std::filesystem;

namespace wb {

void checkChiefPort(const ClusterSpec &spec, Diagnostics &diag)
{
    if (!spec.isChief() || spec.world_size < 2 || spec.master_port <= 0)
        return;
    std::string why;
    if (!tcpPortAvailable(spec.master_port, &why))
        diag.error(spec.master_port_field.empty() ? std::string("MASTER_PORT") : spec.master_port_field,
                   "port " + std::to_string(spec.master_port) + " of the chief (rank 0) cannot be used for the "
                       "rendezvous: " + why,
                   "choose a free port for the chief, or stop the program that listens on it (ss -ltnp 'sport = :"
                       + std::to_string(spec.master_port) + "')");
}

int clusterWorkerCount(const TrainingOptions &o, Diagnostics &diag)
{
    // The parsing lives with the strategies (core/config/clusterspec.h); the chief's
    // rendezvous port is checked here too, so a port in use is a pre-flight error.
    if (o.worker_timeout <= 0)
        diag.error("worker_timeout", "worker_timeout must be a positive number of seconds",
                   "300 (the default) waits five minutes for every worker to join and for each exchange");
    const int errorsBefore = diag.errorCount();
    const ClusterSpec cluster = resolveClusterSpec(o, diag);
    if (diag.errorCount() == errorsBefore)
        checkChiefPort(cluster, diag);
    if (cluster.source == ClusterSource::Single && !diag.hasErrors()) {
        // The command line's hint also names the window's field; the window's names only it.
        const std::string localWorkers = optionWording() == OptionWording::Window
                                             ? optionName("num_local_workers")
                                             : optionName("num_local_workers") + " ("
                                                   + optionLabel("num_local_workers") + " in the window)";
        diag.warning("distribution_strategy",
                     "multi_worker_mirrored without a cluster trains as a single worker on this machine",
                     "set " + localWorkers + " to train on several local processes, or describe the cluster with "
                         "TF_CONFIG, " + optionName("worker_hosts") + " and " + optionName("task_index")
                         + ", or MASTER_ADDR/MASTER_PORT/WORLD_SIZE/RANK");
    }
    return std::max(1, cluster.world_size);
}

namespace {

/// run_pretraining.py's step counts over the schedule computed from the epochs:
/// total_steps = --num_train_steps and epochs = ceil(total_steps / steps_per_epoch) when set;
/// warmup_steps = --num_warmup_steps when set, else (with num_train_steps)
/// int(total_steps × warmup_fraction). steps_per_epoch (the evaluation interval) is kept.
/// (Other purposes refuse the two flags: checkPretrainingPurpose.)
void applyStepCounts(const TrainingOptions &o, Schedule &s)
{
    if (o.num_train_steps) {
        s.total_steps = *o.num_train_steps;
        if (s.steps_per_epoch > 0)
            s.epochs = (s.total_steps + s.steps_per_epoch - 1) / s.steps_per_epoch;
        s.warmup_steps = int64_t(double(s.total_steps) * o.warmup_fraction);
    }
    if (o.num_warmup_steps)
        s.warmup_steps = *o.num_warmup_steps;
}

// The steps of validateRun, in its order. Each adds its findings to r.diagnostics.

/// The strategy (run_classifier's first guard), the GPUs, the cluster and the global batch.
/// Returns the number of replicas (workers × local replicas).
int checkStrategy(const TrainingOptions &o, ValidationResult &r)
{
    Diagnostics &diag = r.diagnostics;
    // The strategy comes first: it is run_classifier's first guard and the most common omission.
    r.strategy = DistributionStrategy::parse(o.distribution_strategy, o.num_gpus, diag);
    const int gpus = cudaDeviceCount();
    if (r.strategy.num_gpus > 0 && r.strategy.num_gpus > gpus)
        diag.error("num_gpus",
                   "num_gpus is " + std::to_string(r.strategy.num_gpus) + " but " + std::to_string(gpus)
                       + " CUDA device(s) are usable here" + (gpus == 0 ? " (this libtorch is a CPU build)" : ""),
                   "set num_gpus to 0 to train on the CPU");
    int workers = 1;
    if (r.strategy.kind == StrategyKind::MultiWorkerMirrored) {
        workers = clusterWorkerCount(o, diag);
        const unsigned cores = std::thread::hardware_concurrency();
        if (o.num_local_workers > 0 && cores > 0 && unsigned(o.num_local_workers) > cores)
            diag.warning("num_local_workers",
                         std::to_string(o.num_local_workers) + " local workers on " + std::to_string(cores)
                             + " CPU cores: they share the cores and will train slowly",
                         "use at most one local worker per core (or per GPU)");
    } else if (r.strategy.kind != StrategyKind::None) {
        // Cluster settings only mean something to multi_worker_mirrored: say so, never ignore silently.
        if (o.num_local_workers > 0)
            diag.warning("num_local_workers",
                         "num_local_workers is ignored unless distribution_strategy is multi_worker_mirrored",
                         "choose multi_worker_mirrored to train with several local workers");
        if (!o.worker_hosts.empty())
            diag.warning("worker_hosts", "worker_hosts is ignored unless distribution_strategy is multi_worker_mirrored",
                         "choose multi_worker_mirrored to train with several workers");
        if (const char *tf = std::getenv("TF_CONFIG"); tf && *tf)
            diag.warning("TF_CONFIG",
                         "TF_CONFIG is set but ignored: distribution_strategy is " + o.distribution_strategy,
                         "choose multi_worker_mirrored to join that cluster, or unset TF_CONFIG");
    }
    const int replicas = workers * r.strategy.localReplicas();
    if (replicas > 1 && o.train_batch_size > 0 && o.train_batch_size % replicas != 0)
        diag.error("train_batch_size",
                   "the global batch " + std::to_string(o.train_batch_size) + " is not divisible by the "
                       + std::to_string(replicas) + " replicas",
                   "use a multiple of " + std::to_string(replicas) + ", e.g. "
                       + std::to_string((o.train_batch_size / replicas + 1) * replicas));

    return replicas;
}

/// The number format and gradient accumulation (issue 17).
void checkNumberFormat(const TrainingOptions &o, ValidationResult &r, int replicas)
{
    Diagnostics &diag = r.diagnostics;
    // Number format and gradient accumulation (issue 17).
    if (o.dtype != "fp32" && o.dtype != "bf16" && o.dtype != "fp16")
        diag.error("dtype", "unknown number format '" + o.dtype + "'",
                   "use fp32 (the default), bf16 (CPU and CUDA) or fp16 (CUDA only)");
    else if (o.dtype == "fp16" && r.strategy.num_gpus == 0)
        diag.error("dtype", "fp16 needs a CUDA GPU: it trains with dynamic loss scaling on CUDA only, and this run "
                            "trains on the CPU (num_gpus 0)",
                   "use " + optionSetting("dtype", "bf16")
                       + " on the CPU (same speed-up where the CPU has avx512_bf16 or amx_bf16), or "
                       + optionSetting("num_gpus", "1") + " on a CUDA machine");
    else if (o.dtype == "bf16" && r.strategy.num_gpus == 0 && cpuHasNativeBf16() == std::optional<bool>(false))
        diag.warning("dtype",
                     "this CPU has neither avx512_bf16 nor amx_bf16: bf16 matmuls are emulated and slower than fp32",
                     "use " + optionSetting("dtype", "fp32") + " on this machine");
    if (o.gradient_accumulation_steps < 1)
        diag.error("gradient_accumulation_steps", "gradient_accumulation_steps must be ≥ 1",
                   "1 (the default) computes each batch in one pass");
    else if (o.train_batch_size > 0 && o.train_batch_size % (int64_t(replicas) * o.gradient_accumulation_steps) != 0)
        diag.error("gradient_accumulation_steps",
                   "train_batch_size " + std::to_string(o.train_batch_size) + " is not divisible into "
                       + std::to_string(o.gradient_accumulation_steps) + " equal micro-batches"
                       + (replicas > 1 ? " on each of the " + std::to_string(replicas) + " replicas" : std::string()),
                   "use a train_batch_size that is a multiple of "
                       + std::to_string(int64_t(replicas) * o.gradient_accumulation_steps)
                       + ", or a gradient_accumulation_steps that divides "
                       + std::to_string(o.train_batch_size / std::max(1, replicas)));
}

/// Loads the model config and the meta data into `r`. Returns whether both files read
/// without an error.
bool loadModelAndData(const TrainingOptions &o, ValidationResult &r)
{
    Diagnostics &diag = r.diagnostics;
    const int errorsBeforeFiles = diag.errorCount();
    if (o.bert_config_file.empty())
        diag.error("bert_config_file", "no model config was given",
                   passOption("bert_config_file", "bert_config.json")
                       + " (the file that comes with the pre-trained model, or a preset)");
    else
        r.bert_config = BertConfig::load(o.bert_config_file, diag);

    if (o.input_meta_data_path.empty())
        diag.error("input_meta_data_path", "no input meta data file was given",
                   passOption("input_meta_data_path", "input_meta_data.json") + "; " + commandName("prepare")
                       + " (or create_finetuning_data.py) writes it next to the TFRecords");
    else
        r.meta_data = InputMetaData::load(o.input_meta_data_path, diag);

    if (r.bert_config && r.meta_data && r.meta_data->max_seq_length > r.bert_config->max_position_embeddings)
        diag.error(o.input_meta_data_path + ": max_seq_length",
                   "Cannot use sequence length " + std::to_string(r.meta_data->max_seq_length)
                       + " because the BERT model was only trained up to sequence length "
                       + std::to_string(r.bert_config->max_position_embeddings),
                   "prepare the data with a shorter max_seq_length, or raise max_position_embeddings (training from scratch)");
    return diag.errorCount() == errorsBeforeFiles;
}

/// The hyperparameters, the range test's options and model_dir.
void checkHyperparameters(const TrainingOptions &o, const ValidationScope &scope, Diagnostics &diag)
{
    if (!scope.check_learning_rate)
        ; // lr_find: the learning rate is what the range test looks for
    else if (!std::isfinite(learningRate(o)) || learningRate(o) <= 0)
        diag.error("learning_rate", "learning_rate must be a positive number", usualRangesWords());
    else if (learningRate(o) >= 1.0)
        diag.warning("learning_rate", "learning_rate " + detail::formatNumber(learningRate(o)) + " is very large; the loss will likely diverge",
                     "the usual ranges: " + usualRangesWords());
    if (!std::isfinite(o.end_lr) || o.end_lr < 0)
        diag.error("end_lr", "end_lr must be ≥ 0", "0 decays the learning rate to zero (run_classifier's default)");
    if (o.optimizer_type != "adamw")
        diag.error("optimizer_type", "Unsupported optimizer type: " + o.optimizer_type, "use adamw");
    if (o.steps_per_loop && *o.steps_per_loop <= 0)
        diag.error("steps_per_loop", "steps_per_loop should be positive integer.", "leave it out to report every step");
    if (o.log_steps < 0)
        diag.error("log_steps", "log_steps must be ≥ 0", "100 logs throughput every 100 steps; 0 disables it");
    if (o.save_checkpoints_steps < 0)
        diag.error("save_checkpoints_steps", "save_checkpoints_steps must be ≥ 0", "0 checkpoints only at evaluations");
    if (o.keep_checkpoint_max < 0)
        diag.error("keep_checkpoint_max", "keep_checkpoint_max must be ≥ 0", "0 keeps every checkpoint");
    if (scope.check_lr_find_range) {
        if (o.lr_find_steps < 2)
            diag.error("lr_find_steps", "the range test needs at least 2 steps, got " + std::to_string(o.lr_find_steps),
                       "100 (the default) is enough for most models");
        if (!std::isfinite(o.lr_find_start) || !(o.lr_find_start > 0))
            diag.error("lr_find_start", "lr_find_start must be a positive learning rate",
                       "1e-7 (the default) starts far below any useful learning rate");
        else if (!std::isfinite(o.lr_find_end) || !(o.lr_find_end > o.lr_find_start))
            diag.error("lr_find_end",
                       "lr_find_end must be a learning rate above lr_find_start (" + detail::formatNumber(o.lr_find_start)
                           + ")",
                       "1 (the default) ends far above any useful learning rate");
    }
    if (o.model_dir.empty())
        diag.error("model_dir", "no model_dir was given",
                   passOption("model_dir", "<directory for checkpoints and metrics>"));
    else if (fs::exists(o.model_dir) && !fs::is_directory(o.model_dir))
        diag.error("model_dir", "'" + o.model_dir + "' exists and is not a directory", "choose a directory");
}

/// train_and_eval's data and meta-data keys, and the schedule they give.
void checkTrainingInputs(const TrainingOptions &o, const ValidationScope &scope, ValidationResult &r)
{
    Diagnostics &diag = r.diagnostics;
    const bool training = o.mode == "train_and_eval";
    if (training) {
        if (o.train_data_path.empty())
            diag.error("train_data_path", "no training data was given",
                       passOption("train_data_path", "train.tf_record") + " (a file, glob or comma-separated list)");
        if (o.eval_data_path.empty() && scope.require_eval_data)
            diag.error("eval_data_path", "no evaluation data was given",
                       passOption("eval_data_path", "eval.tf_record"));
        if (r.meta_data) {
            const auto reported = [&diag](const std::string &field) {
                for (const Diagnostic &d : diag.items())
                    if (d.severity == Severity::Error && d.field == field)
                        return true;
                return false;
            };
            if (!r.meta_data->train_data_size && !reported(o.input_meta_data_path + ": train_data_size"))
                diag.error(o.input_meta_data_path + ": train_data_size", "train_data_size is missing (needed to compute the schedule)",
                           "add \"train_data_size\": <number of training records>");
            if (!r.meta_data->eval_data_size && scope.require_eval_data
                && !reported(o.input_meta_data_path + ": eval_data_size"))
                diag.error(o.input_meta_data_path + ": eval_data_size", "eval_data_size is missing (needed to compute eval_steps)",
                           "add \"eval_data_size\": <number of evaluation records>");
        }
        if (r.meta_data && o.pos_weight == "balanced" && !r.meta_data->isMultiLabel())
            diag.error("pos_weight",
                       optionSetting("pos_weight", "balanced") + " weighs each label of a multi-label task, but "
                           + o.input_meta_data_path + " describes a "
                           + problemTypeName(r.meta_data->problemType()) + " task",
                       "use " + optionSetting("pos_weight", "none") + ", or prepare the data with several labels per "
                           "text (problem_type multi_label_classification)");
        if (r.meta_data && !r.meta_data->has_teacher_logits)
            for (const auto &[flag, value, neutral] :
                 {std::tuple{"distillation_temperature", o.distillation_temperature, 1.0},
                  std::tuple{"distillation_alpha", o.distillation_alpha, 1.0}})
                if (value != neutral) // a setting that would change nothing is refused, not ignored
                    diag.error(flag,
                               std::string(flag) + " weighs a teacher's soft labels, but the records of "
                                   + o.input_meta_data_path + " carry no teacher outputs (has_teacher_logits)",
                               "make the data with " + commandName("distil")
                                   + " from the teacher's run (docs/distillation.md), or leave " + optionName(flag)
                                   + " at 1");
        if (r.meta_data && r.meta_data->train_data_size && (r.meta_data->eval_data_size || !scope.require_eval_data)) {
            r.schedule = Schedule::compute(*r.meta_data->train_data_size, r.meta_data->eval_data_size.value_or(0),
                                           o.num_train_epochs, o.num_eval_per_epoch, o.train_batch_size,
                                           o.eval_batch_size, o.train_data_size, o.warmup_fraction, diag);
            if (r.schedule) // pretrain's --num_train_steps / --num_warmup_steps (run_pretraining.py's)
                applyStepCounts(o, *r.schedule);
        } else if (o.train_batch_size <= 0 || o.num_eval_per_epoch <= 0 || o.eval_batch_size <= 0)
            Schedule::compute(0, 0, o.num_train_epochs, o.num_eval_per_epoch, o.train_batch_size, o.eval_batch_size,
                              o.train_data_size, o.warmup_fraction, diag);
    }
}

/// The estimated peak memory of one worker, and a warning when it exceeds this machine's.
void estimateMemory(const TrainingOptions &o, ValidationResult &r, int replicas)
{
    Diagnostics &diag = r.diagnostics;
    const bool training = o.mode == "train_and_eval";
    if (training && r.bert_config && r.meta_data && o.train_batch_size > 0 && replicas > 0
        && o.train_batch_size % replicas == 0) {
        r.memory = estimateTrainingMemory(*r.bert_config, r.meta_data->num_labels, r.meta_data->max_seq_length,
                                          o.train_batch_size / replicas * r.strategy.localReplicas(),
                                          std::max<int64_t>(1, o.gradient_accumulation_steps), o.dtype,
                                          o.activation_checkpointing);
        const int64_t physical = physicalMemoryBytes();
        if (physical > 0 && r.memory->total() > physical)
            diag.warning("train_batch_size",
                         r.memory->summary() + " per worker exceeds this machine's "
                             + detail::formatNumber(double(physical) / double(1LL << 30)) + " GiB of memory",
                         "raise " + optionName("gradient_accumulation_steps") + " (same results, smaller "
                             "micro-batches), use " + optionSetting("activation_checkpointing", "true") + ", "
                             + optionSetting("dtype", "bf16") + ", or a smaller train_batch_size or model");
    }
}

} // namespace

void checkOptionValues(const TrainingOptions &o, Diagnostics &diag)
{
    checkHyperparameters(o, ValidationScope{}, diag);
    checkOptionRanges(o, diag, {"lr_find_steps", "lr_find_start", "lr_find_end"}); // the range test's own
}

ValidationResult validateRun(const TrainingOptions &o, const ValidationScope &scope)
{
    ValidationResult r;
    Diagnostics &diag = r.diagnostics;

    const int replicas = checkStrategy(o, r);

    checkNumberFormat(o, r, replicas);

    const bool training = o.mode == "train_and_eval";
    const bool predicting = o.mode == "predict";
    if (o.mode != "train_and_eval" && o.mode != "predict" && o.mode != "export_only")
        diag.error("mode", "Unsupported mode is specified: " + o.mode, "use train_and_eval, predict or export_only");

    const bool filesOk = loadModelAndData(o, r);
    // The casing the run records for export and classify: say so when nothing recorded it.
    if (r.meta_data && (training || o.mode == "export_only")) {
        const TokenizerCasing casing = dataTokenizer(o, *r.meta_data).casing;
        if (casing.inferred)
            diag.warning("do_lower_case", casing.warning);
    }

    checkHyperparameters(o, scope, diag);

    checkTrainingInputs(o, scope, r);
    if (training)
        estimateMemory(o, r, replicas);
    if (predicting && o.eval_data_path.empty())
        diag.error("eval_data_path",
                   "predict reads the examples from " + optionName("eval_data_path") + ", which is empty",
                   passOption("eval_data_path", "test.tf_record"));
    if (o.mode == "export_only" && o.model_export_path.empty())
        diag.error("model_export_path", "Export path is not specified: " + o.model_export_path,
                   passOption("model_export_path", "<directory>"));
    else if (o.mode == "export_only")
        checkExportTarget(o.model_export_path, o.overwrite_output_dir, diag);
    if (o.mode == "export_only" && (o.demo || !o.onnxruntime_web_dir.empty())) {
        if (o.onnx_dtype == "none")
            diag.error("demo", "the web demo runs onnx/model.onnx, which " + optionName("onnx_dtype") + " none leaves out",
                       "export with " + optionName("onnx_dtype") + " fp32 or int8, or without " + optionName("demo"));
        if (!o.onnxruntime_web_dir.empty()) {
            try {
                onnxRuntimeWebFolder(o.onnxruntime_web_dir);
            } catch (const Error &e) {
                diag.error(e.field(), e.what(), e.hint());
            }
        }
    }

    // Every numeric option within its range in the option table (one check for the CLI, the
    // window and project files); the specific checks above speak first.
    std::vector<std::string> unchecked;
    if (!scope.check_learning_rate)
        unchecked.push_back("learning_rate");
    if (!scope.check_lr_find_range) // the range test's own flags mean nothing to train or predict
        for (const char *f : {"lr_find_steps", "lr_find_start", "lr_find_end"})
            unchecked.push_back(f);
    checkOptionRanges(o, diag, unchecked);

    if (r.bert_config && r.meta_data && filesOk) {
        // Pretraining data and checkpoints have checks of their own (checkPretrainingRun,
        // core/engine/pretrainpreflight.h), which prepareRun adds for the pretraining purposes.
        const bool classifierData = !r.meta_data->isPretraining();
        if (scope.check_data_files && classifierData)
            checkDataFiles(o, *r.bert_config, *r.meta_data, diag);
        if (scope.check_init_checkpoint && classifierData && !o.init_checkpoint.empty())
            checkInitCheckpoint(o, *r.bert_config, *r.meta_data, diag);
        // The run already in model_dir (run_config.json, checkpoints): core/formats/runidentity.h.
        if (scope.check_model_dir_run)
            checkModelDir(o, *r.bert_config, *r.meta_data, r.schedule ? &*r.schedule : nullptr, diag);
    }
    return r;
}

} // namespace wb
