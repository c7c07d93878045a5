// SPDX-License-Identifier: Apache-2.0
// The rows of the option table (optiontable.h): every flag the CLI, the form and the project
// file share, section by section in the form's order.
#include "core/config/optionrows.h"

#include "core/config/commandoptions.h"
#include "core/config/learningrates.h"

#include <initializer_list>
#include <limits>

namespace wb {

namespace {


using O = TrainingOptions;

// Upper bound of int64-valued form fields: int64's maximum, which a double holds only rounded up
// to 2^63 (the form saturates it to the member's type).
constexpr double kInt64Max = double(std::numeric_limits<int64_t>::max());

const char *const kJsonFiles = "JSON (*.json);;All files (*)";
const char *const kRecordFiles = "TFRecord (*.tf_record *.tfrecord *.tfrecords);;All files (*)";

/// One row of the table: option()'s texts, then the form's details named one by one
/// (option(…).in(FormGroup::Files).file(kJsonFiles)); each setter returns the row.
struct Row : OptionSpec
{
    /// The form group the field stands in.
    Row &in(FormGroup g)
    {
        group = g;
        return *this;
    }
    /// A file path, with the file dialog's filter `types` ("" for all files).
    Row &file(const char *types = "")
    {
        path = PathKind::File;
        file_types = types;
        return *this;
    }
    /// A folder path.
    Row &directory()
    {
        path = PathKind::Directory;
        return *this;
    }
    /// The form's combo box offers `values`; the CLI takes other values too.
    Row &offers(std::vector<std::string> values)
    {
        choices = std::move(values);
        return *this;
    }
    /// The CLI accepts only one of `values` (the form's combo box offers them).
    Row &only(std::vector<std::string> values)
    {
        offers(std::move(values));
        strict_choices = true;
        return *this;
    }
    /// A bool: only "false" or "true".
    Row &trueOrFalse() { return only({"false", "true"}); }
    /// The form's range of numbers, [lo, hi] (the pre-flight check's too).
    Row &range(double lo, double hi)
    {
        minimum = lo;
        maximum = hi;
        return *this;
    }
    /// What 0 stands for ("all", "automatic").
    Row &zeroMeans(const char *words)
    {
        zero_means = words;
        return *this;
    }
    /// A Real shown in a spin box with this step and number of decimals.
    Row &spin(double by, int places)
    {
        step = by;
        decimals = places;
        return *this;
    }
    /// The option defines the run (OptionSpec::defines_run).
    Row &definesRun()
    {
        defines_run = true;
        return *this;
    }
};

Row option(const char *flag, std::vector<std::string> aliases, OptionMember member, const char *unit,
           const char *summary, const char *label, const char *help)
{
    Row s;
    s.flag = flag;
    s.aliases = std::move(aliases);
    s.member = member;
    s.unit = unit;
    s.summary = summary;
    s.label = label;
    s.help = help;
    return s;
}

/// A start's usual range of kLearningRateRanges in words: "2e-5 to 5e-5".
std::string rangeWords(WeightsStart start)
{
    const LearningRateRange *r = learningRateRange(start);
    return r ? rateWords(r->low) + " to " + rateWords(r->high) : std::string();
}

/// The pretrained_model row's help; the learning rates it names come from kLearningRateRanges.
const char *pretrainedModelHelp()
{
    static const std::string text =
        "A pretrained BERT to fine-tune: a Hugging Face Hub id such as google/bert_uncased_L-2_H-128_A-2 "
        "(BERT-Tiny) or google-bert/bert-base-uncased, a short name (BERT-Tiny, BERT-Mini, BERT-Small, "
        "BERT-Medium), or a folder with config.json, vocab.txt and weights. It is downloaded once into the "
        "Hugging Face cache (HF_HOME; HF_HUB_OFFLINE=1 uses the cache only) and sets the model config, "
        "vocabulary, casing and init checkpoint. Leave empty to start from random weights (then use a "
        "larger learning rate, "
        + rangeWords(WeightsStart::Random) + " for a small model); with a pretrained model "
        + rangeWords(WeightsStart::HubPretrained) + " is the usual range.";
    return text.c_str();
}

/// The learning_rate row's help: the default of each start (defaultLearningRate(),
/// core/advice/runfacts.h) and the usual
/// range of each row of kLearningRateRanges, so a change of the table changes the help.
const char *learningRateHelp()
{
    static const std::string text = [] {
        const double own = learningRateRange(WeightsStart::OwnPretraining)->suggest;
        std::string t = "How big each update step is, at its peak (after warmup). Too high and the loss jumps or "
                        "becomes NaN; too low and it barely moves. Left empty, it follows the start: "
                        + rateWords(kPretrainedLearningRate)
                        + " from pretrained weights (a pretrained model or an init checkpoint), but "
                        + (own == kFromScratchLearningRate
                               ? rateWords(own) + " from a checkpoint of this program's own pretraining and from "
                               : rateWords(own) + " from a checkpoint of this program's own pretraining, and "
                                     + rateWords(kFromScratchLearningRate) + " from ")
                        + "random weights; a resumed run keeps the rate it recorded. The usual ranges: ";
        return t + usualRangesWords() + ".";
    }();
    return text.c_str();
}

/// The table under construction: buildTable()'s sections append to it in the form's order.
struct OptionRows
{
    std::vector<OptionSpec> t;
    void add(OptionSpec s) { t.push_back(std::move(s)); }
    /// Appends `rows` in their order.
    void append(std::initializer_list<OptionSpec> rows) { t.insert(t.end(), rows); }
};

/// 1. Where to train (run_classifier's distribution flags).
void addStrategyOptions(OptionRows &rows)
{
    rows.append({
        option("distribution_strategy", {"ds"}, &O::distribution_strategy, "",
               "one_device, mirrored or multi_worker_mirrored (required; no default)", "Distribution strategy",
               "How training is spread over your hardware. one_device trains on one CPU or one GPU "
               "(the right choice on a laptop). mirrored copies the model to every local GPU and "
               "averages their gradients. multi_worker_mirrored does the same across several "
               "processes or machines. There is no default: you must choose one.")
            .in(FormGroup::Strategy).offers({"one_device", "mirrored", "multi_worker_mirrored"}),

        option("num_gpus", {"ng"}, &O::num_gpus, "GPUs", "GPUs per worker (0 = CPU)", "GPUs",
               "How many GPUs to use. 0 trains on the CPU. one_device allows at most 1; mirrored uses "
               "one replica per GPU. Typical: 0 without a GPU, 1 with one.")
            .in(FormGroup::Strategy).range(0, 64),

        option("worker_hosts", {}, &O::worker_hosts, "", "comma-separated host:port list (multi_worker_mirrored)",
               "Worker hosts",
               "multi_worker_mirrored only: the cluster's workers as host:port, comma-separated, the chief first. "
               "TF_CONFIG or MASTER_ADDR/WORLD_SIZE/RANK describe a cluster too."),

        option("task_index", {}, &O::task_index, "", "this worker's index in --worker_hosts", "Task index",
               "This process's position in the worker host list (0 is the chief). -1: not given.")
            .range(-1, 1024),

        option("num_local_workers", {}, &O::num_local_workers, "workers",
               "multi_worker_mirrored: start this many workers on this machine", "Local workers",
               "multi_worker_mirrored only: start this many worker processes on this computer. "
               "Each trains on its share of every batch and the gradients are averaged, so the "
               "result matches one worker. The plot shows the chief's (worker 0) curves. Off (0) "
               "joins the cluster described by TF_CONFIG or MASTER_ADDR/WORLD_SIZE/RANK instead. "
               "The training batch size must divide by the number of workers.")
            .in(FormGroup::Strategy).range(0, 64).zeroMeans("off (use TF_CONFIG or the environment)"),

        option("worker_timeout", {"worker_timeout_seconds"}, &O::worker_timeout, "s",
               "seconds to wait for every worker to join", "Worker timeout",
               "multi_worker_mirrored only: how long every worker waits for the others to join, "
               "and for each exchange of gradients. A worker that does not come, or dies, ends the "
               "run with an error naming it after at most this long. 300 s (the default) leaves "
               "time to start workers by hand on several machines; 30 s is plenty for local workers.")
            .in(FormGroup::Strategy).range(1, 24 * 3600),
    });
}

/// The model config, the meta data and the prepared training and evaluation records.
void addDataFileOptions(OptionRows &rows)
{
    rows.append({
        option("bert_config_file", {}, &O::bert_config_file, "", "bert_config.json", "BERT config",
               "bert_config.json describes the model's shape: layers, width, attention heads, "
               "vocabulary size. It must match the init checkpoint. Use Model → New config from "
               "preset to write one (BERT-Tiny trains in minutes on a CPU).")
            .in(FormGroup::Files).file(kJsonFiles),

        option("input_meta_data_path", {}, &O::input_meta_data_path, "", "input_meta_data.json", "Input meta data",
               "input_meta_data.json is written when the data is prepared. It says how many "
               "examples and labels there are and the sequence length, which the schedule below "
               "is computed from.")
            .in(FormGroup::Files).file(kJsonFiles),

        option("train_data_path", {}, &O::train_data_path, "", "training TFRecord file(s) or glob", "Training data",
               "TFRecord file(s) with the training examples (a file, a glob such as train-*.tf_record, "
               "or a comma-separated list). Make them with File → Prepare Data.")
            .in(FormGroup::Files).file(kRecordFiles),

        option("eval_data_path", {}, &O::eval_data_path, "", "evaluation (or predict) TFRecord file(s) or glob",
               "Evaluation data",
               "TFRecord file(s) with held-out examples. The model never trains on them; they "
               "measure how well it generalises after each epoch.")
            .in(FormGroup::Files).file(kRecordFiles),
    });
}

/// What training starts from: a pretrained model or an init checkpoint, and how strictly it loads.
void addStartingWeightOptions(OptionRows &rows)
{
    rows.append({
        option("pretrained_model", {"model_name_or_path"}, &O::pretrained_model, "",
               sharedFlagRow("pretrained_model").summary, // one text for every command that takes the flag
               "Start from", pretrainedModelHelp())
            .in(FormGroup::Files),

        option("init_checkpoint", {}, &O::init_checkpoint, "", "pre-trained weights (HF safetensors or pytorch_model.bin, TF checkpoint)",
               "Init checkpoint",
               "Pre-trained weights to start from: a Hugging Face model folder or its model.safetensors / "
               "pytorch_model.bin (sharded or not; a .bin is read without running code), or a TensorFlow "
               "checkpoint. "
               "Fine-tuning a pre-trained model needs far less data. Leave empty to start from "
               "random weights (fine for small experiments, much worse accuracy).")
            .in(FormGroup::Files).file("Weights (*.safetensors *.bin *.pt *.pth *.index.json *.index);;All files (*)"),

        option("allow_partial_init", {}, &O::allow_partial_init, "",
               "let encoder tensors the init checkpoint lacks keep their random initialisation (true/false; "
               "default false: that is an error)",
               "Allow a partly loaded encoder",
               "When the init checkpoint lacks some of the encoder's tensors (its names are under a scope this "
               "program does not read, or it holds only a classifier head), the run stops with an error that "
               "says how many are missing: a model trained on a half-random encoder is much worse without "
               "saying so. Turn this on only to train with those tensors randomly initialised on purpose. A "
               "missing classifier head is always fine (fine-tuning makes a new one).")
            .in(FormGroup::Files).trueOrFalse(),
    });
}

/// Where a run writes: the model directory, and the export folder with its ONNX file and web demo.
void addOutputOptions(OptionRows &rows)
{
    rows.append({
        option("model_dir", {"md"}, &O::model_dir, "", "checkpoints, metrics and summaries (required)", "Model directory",
               "Where checkpoints, metrics.jsonl, TensorBoard summaries and predictions are "
               "written. Training again with the same directory resumes from its latest "
               "checkpoint (the window asks first: continue that run, or start a new one in a fresh "
               "folder); choose a new directory for a fresh run.")
            .in(FormGroup::Files).directory(),

        option("model_export_path", {}, &O::model_export_path, "", "export directory", "Export directory",
               "export_only: the directory the trained model is exported to.")
            .directory(),

        option("overwrite_output_dir", {}, &O::overwrite_output_dir, "",
               "export: replace an earlier export in --model_export_path (a non-empty folder is refused without it)",
               "Replace an earlier export",
               "export: replace the earlier export in the export directory. Without it a folder that is not "
               "empty is refused, so an export never mixes its files with other ones.")
            .trueOrFalse(),

        option("onnx_dtype", {}, &O::onnx_dtype, "",
               "export: the number format of onnx/model.onnx: fp32, int8 (dynamic quantization of the dense "
               "layers' weights and the word embeddings), fp16 (float16 weights), or none to leave the ONNX file out",
               "ONNX number format",
               "export: the number format of the ONNX graph written to onnx/model.onnx (ONNX Runtime, "
               "transformers.js). fp32 keeps the model's float32 weights; int8 stores the encoder's dense "
               "weights and the word embeddings as int8 with a scale per column or row (about a quarter of "
               "the size, faster in ONNX Runtime; docs/file-formats.md); fp16 stores every weight as float16 "
               "(half the size, computed in float32: no faster); none writes no ONNX file.")
            .only({"fp32", "int8", "fp16", "none"}),

        option("demo", {}, &O::demo, "",
               "export: write the web demo (demo/index.html and onnxruntime-web's files in demo/ort/, fetched once from "
               "the npm registry, or from --onnxruntime_web_dir)",
               "Web demo",
               "export: write demo/index.html, a web page that classifies as you type in the browser, with the "
               "onnxruntime-web files it runs on in demo/ort/, so the folder works offline. The files are fetched "
               "once from the npm registry (npm_config_registry) and cached; --onnxruntime_web_dir takes them "
               "from a local folder instead.")
            .trueOrFalse(),

        option("onnxruntime_web_dir", {}, &O::onnxruntime_web_dir, "",
               "export --demo: a folder with onnxruntime-web's ort.wasm.min.js, ort-wasm-simd-threaded.wasm and "
               "ort-wasm-simd-threaded.mjs (or an unpacked onnxruntime-web package); no network",
               "onnxruntime-web folder",
               "export --demo: take onnxruntime-web's browser files from this folder (or its dist/) instead of the "
               "npm registry.")
            .directory(),
    });
}

/// The checkpoint predict and export read, the metrics file and what a run does.
void addRunModeOptions(OptionRows &rows)
{
    rows.append({
        option("predict_checkpoint_path", {}, &O::predict_checkpoint_path, "",
               "the checkpoint to read: a ckpt-N, 'best' or 'latest' (default: the best checkpoint when the run "
               "kept one, else the latest)",
               "Predict checkpoint",
               "predict and export: the checkpoint to read, a ckpt-N file, 'best' or 'latest' (default: the best "
               "checkpoint when the run kept one with Keep best model by, else the latest in the model directory).")
            .file(),

        option("metrics_file", {}, &O::metrics_file, "", "metrics.jsonl path (default <model_dir>/metrics.jsonl)",
               "Metrics file", "Where the run's metrics.jsonl is written (default: in the model directory).")
            .file(),

        option("mode", {}, &O::mode, "", "train_and_eval, predict or export_only", "Mode",
               "What a run does: train and evaluate, predict with a checkpoint, or export one.")
            .only({"train_and_eval", "predict", "export_only"}),
    });
}

/// 2. Model and data.
void addModelAndDataOptions(OptionRows &rows)
{
    addDataFileOptions(rows);
    addStartingWeightOptions(rows);
    addOutputOptions(rows);
    addRunModeOptions(rows);
}

/// The batch sizes and the learning rate at its peak and at the end of the decay.
void addBatchAndRateOptions(OptionRows &rows)
{
    rows.append({
        option("train_batch_size", {}, &O::train_batch_size, "examples", "global training batch", "Train batch size",
               "Examples per training step. Larger batches give smoother gradients but need more "
               "memory. Typical: 16 or 32 for BERT-Base, 32–128 for small models.")
            .in(FormGroup::Hyperparameters).range(1, 65536).definesRun(),

        option("eval_batch_size", {}, &O::eval_batch_size, "examples", "global evaluation batch", "Eval batch size",
               "Examples per evaluation step. Only affects speed and memory, not results. "
               "Typical: the same as the train batch size or larger.")
            .in(FormGroup::Hyperparameters).range(1, 65536),
    });

    // learning_rate: the one row whose fields are set one by one.
    const auto add = [&rows](OptionSpec s) { rows.add(std::move(s)); };
    OptionSpec s;
    s = option("learning_rate", {}, &O::learning_rate, "", "peak learning rate", "Learning rate",
               learningRateHelp());
    s.group = FormGroup::Hyperparameters;
    s.maximum = 10;
    s.defines_run = true;
    add(s);

    rows.append({
        option("end_lr", {}, &O::end_lr, "", "final learning rate of the decay", "End learning rate",
               "The learning rate decays linearly from its peak to this value at the last step. "
               "Typical: 0.")
            .in(FormGroup::Hyperparameters).range(0, 10).definesRun(),
    });
}

/// How long training runs, how often it evaluates, its warmup and its weight decay.
void addScheduleOptions(OptionRows &rows)
{
    rows.append({
        option("num_train_epochs", {}, &O::num_train_epochs, "epochs", "real epochs", "Epochs",
               "How many times the model sees every training example. Typical: 2–4 for "
               "fine-tuning. More epochs can overfit: watch the eval loss rise while the train "
               "loss keeps falling.")
            .in(FormGroup::Hyperparameters).range(1, 10000).definesRun(),

        option("num_eval_per_epoch", {}, &O::num_eval_per_epoch, "", "evaluations per epoch", "Evaluations per epoch",
               "How often to evaluate (and checkpoint) within one epoch. 1 evaluates at the end of "
               "each epoch; higher values give more points on the eval curve but cost time.")
            .in(FormGroup::Hyperparameters).range(1, 1000).definesRun(),

        option("warmup_fraction", {}, &O::warmup_fraction, "", "share of the steps with linear warmup", "Warmup fraction",
               "Part of training during which the learning rate ramps up from 0 to its peak; "
               "this keeps the first updates from wrecking pre-trained weights. Typical: 0.1 "
               "(run_classifier's fixed value).")
            .in(FormGroup::Hyperparameters).range(0, 1).spin(0.05, 2).definesRun(),

        // google-research/bert run_pretraining.py's step counts (docs/pretraining.md, "From
        // google-research/bert"); `pretrain` only, so no form field. Not defines_run: the
        // total_steps and warmup_steps they give are recorded (run_config.json of older runs
        // has no such key, and resuming them must not see a difference).
        option("num_train_steps", {}, &O::num_train_steps, "steps",
               "pretrain: optimizer steps of the run (run_pretraining.py's flag; replaces num_train_epochs)",
               "Training steps",
               "pretrain only: how many optimizer steps the run takes, as run_pretraining.py's --num_train_steps; "
               "the data repeats as often as needed. Unset: num_train_epochs decides.")
            .range(1, kInt64Max),

        option("num_warmup_steps", {}, &O::num_warmup_steps, "steps",
               "pretrain: linear warmup steps (run_pretraining.py's flag; replaces warmup_fraction)", "Warmup steps",
               "pretrain only: how many steps the learning rate ramps up from 0 to its peak, as run_pretraining.py's "
               "--num_warmup_steps. Unset: warmup_fraction of the steps.")
            .range(0, kInt64Max),

        option("weight_decay_rate", {}, &O::weight_decay_rate, "", "AdamW weight decay (not on LayerNorm and biases)",
               "Weight decay",
               "AdamW's pull of the weights towards zero, a mild regulariser (not applied to "
               "biases and LayerNorm). Typical: 0.01.")
            .in(FormGroup::Hyperparameters).range(0, 1).spin(0.01, 4).definesRun(),
    });
}

/// The data cap, the progress and logging intervals, the seed and the optimizer.
void addLoopOptions(OptionRows &rows)
{
    rows.append({
        option("train_data_size", {}, &O::train_data_size, "examples", "cap on training examples",
               "Train data size cap",
               "Use at most this many training examples per evaluation interval (0 = all); with one "
               "evaluation per epoch that is per epoch. Handy for a quick trial run on a large dataset.")
            .in(FormGroup::Hyperparameters).range(0, kInt64Max).zeroMeans("all"),

        option("steps_per_loop", {}, &O::steps_per_loop, "steps", "steps between progress reports", "Steps per loop",
               "How many training steps run between two progress reports (default: every step).")
            .range(1, kInt64Max),

        option("seed", {}, &O::seed, "", "random seed (init, dropout, shuffling)", "Random seed",
               "Fixes the random initialisation and shuffling so a run can be repeated exactly. "
               "Try a few seeds: small datasets give noticeably different results per seed.")
            .in(FormGroup::Hyperparameters).range(0, kInt64Max).definesRun(),

        option("log_steps", {}, &O::log_steps, "steps", "examples/s logging interval (0 disables)", "Log steps",
               "How often (in steps) a speed line with examples per second is written to the log. "
               "Typical: 100; smaller for short runs.")
            .in(FormGroup::Hyperparameters).range(0, 1000000),

        option("optimizer_type", {}, &O::optimizer_type, "", "optimizer (adamw)", "Optimizer", "The optimizer: adamw (AdamW).")
            .definesRun(),
    });
}

/// How many checkpoints are kept and how often they are written between evaluations.
void addCheckpointOptions(OptionRows &rows)
{
    rows.append({
        option("keep_checkpoint_max", {}, &O::keep_checkpoint_max, "checkpoints", "checkpoints to keep (default 5; 0 = all)",
               "Checkpoints kept",
               "How many recent checkpoints to keep in the model directory (default 5; 0 keeps all); older "
               "ones are deleted. Each BERT-Base checkpoint takes about 1.3 GB with optimizer state; the "
               "space the checkpoints take now is shown beside the field.")
            .in(FormGroup::Hyperparameters).range(0, 10000).zeroMeans("all"),

        option("save_checkpoints_steps", {"save_steps"}, &O::save_checkpoints_steps, "steps",
               "also checkpoint every N steps (0 = only at evaluations)", "Checkpoint every",
               "Writes a checkpoint every N training steps besides the ones after each evaluation "
               "(TF Estimator's save_checkpoints_steps, Hugging Face's save_steps), so that a crash "
               "or a killed process loses at most N steps. 0 checkpoints only at evaluations.")
            .in(FormGroup::Hyperparameters).range(0, 1e9).zeroMeans("evaluations only"),
    });
}

/// Threads, the number format, and the two ways to train in less memory (micro-batches, recomputation).
void addComputeOptions(OptionRows &rows)
{
    rows.append({
        option("num_threads", {"intra_op_threads"}, &O::num_threads, "threads", "intra-op threads (0 = automatic)",
               "Threads", "How many CPU threads one training process uses for its operations (0 = automatic).")
            .range(0, 1024).zeroMeans("automatic"),

        option("dtype", {}, &O::dtype, "", "number format of the matmuls: fp32, bf16 (CPU and CUDA) or fp16 (CUDA only)",
               "Number format",
               "fp32 computes everything in 32-bit floats. bf16 runs the matrix products (linear layers, "
               "attention) in bfloat16, about 1.5x faster on CPUs with avx512_bf16 or amx_bf16 and on "
               "recent GPUs; weights, optimizer state, softmax, loss and checkpoints stay fp32, so a run "
               "can resume in another format. fp16 needs a CUDA GPU and uses dynamic loss scaling "
               "(run_classifier's --dtype).")
            .in(FormGroup::Hyperparameters).only({"fp32", "bf16", "fp16"}),

        option("gradient_accumulation_steps", {}, &O::gradient_accumulation_steps, "micro-batches",
               "micro-batches of train_batch_size/N per optimizer step", "Gradient accumulation",
               "Splits each training batch into N micro-batches of train_batch_size/N examples and adds "
               "their gradients before one optimizer step: the same steps, schedule and results as the "
               "whole batch, with about 1/N of the activation memory (Hugging Face's "
               "gradient_accumulation_steps). train_batch_size must be divisible by N (and by the replicas x N).")
            .in(FormGroup::Hyperparameters).range(1, 4096),

        option("activation_checkpointing", {}, &O::activation_checkpointing, "",
               "recompute each encoder block's activations in the backward pass (true/false): ~30% more compute, "
               "much less activation memory",
               "Recompute activations (saves memory)",
               "Keeps only each encoder block's input during the forward pass and recomputes the block in the "
               "backward pass (per-layer activation checkpointing). Costs about 30% more compute per step and "
               "needs much less activation memory: BERT-Base at batch 32, sequence 128 trains in 2.6 GB "
               "instead of 5.6 GB. Results are the same, dropout included. Combines with Gradient accumulation "
               "and bf16 on a small machine.")
            .in(FormGroup::Hyperparameters).trueOrFalse(),
    });
}

/// 3. Hyperparameters.
void addHyperparameterOptions(OptionRows &rows)
{
    addBatchAndRateOptions(rows);
    addScheduleOptions(rows);
    addLoopOptions(rows);
    addCheckpointOptions(rows);
    addComputeOptions(rows);
}

/// Distillation (issue 48, docs/distillation.md): the soft-label term of a student's loss.
void addDistillationOptions(OptionRows &rows)
{
    rows.append({
        option("distillation_temperature", {}, &O::distillation_temperature, "",
               "distillation (records from 'distil'): the temperature T of the teacher's and the student's "
               "softmax in the soft-label term, which is scaled by T^2 (Hinton et al. 2015)",
               "Distillation temperature",
               "Only for data made by Distil (the records carry a teacher's outputs). Above 1, the teacher's "
               "probabilities are softened, so the student also learns which wrong labels the teacher found "
               "nearly right. 1 takes the teacher's probabilities as they are.")
            .in(FormGroup::Hyperparameters).range(0.01, 100),

        option("distillation_alpha", {}, &O::distillation_alpha, "",
               "distillation: the share of the teacher's soft labels in the loss; the rest is cross-entropy on "
               "the gold labels (texts without a gold label add only the soft term)",
               "Soft-label share",
               "Only for data made by Distil. 1 learns from the teacher's probabilities alone; 0.5 mixes them "
               "half and half with the labelled texts' own labels; 0 ignores the teacher (the texts without a "
               "label then teach nothing).")
            .in(FormGroup::Hyperparameters).range(0, 1),
    });
}

/// Teaching: best model, early stopping, the multi-label loss (issue 14).
void addTeachingOptions(OptionRows &rows)
{
    rows.append({
        option("best_checkpoint_metric", {}, &O::best_checkpoint_metric, "",
               "keep the best checkpoint by this metric in <model_dir>/best/ (eval_accuracy, eval_loss, eval_f1, "
               "eval_mcc, eval_macro_f1; multi-label also eval_micro_f1, eval_samples_f1, eval_hamming_loss); "
               "--predict_checkpoint_path=best uses it",
               "Keep best model by",
               "After every evaluation, keeps a copy of the checkpoint with the best value of this metric so far "
               "in the model directory's best/ folder (never deleted by Checkpoints kept). Predict, export and "
               "classify can use it (checkpoint 'best'). eval_f1 and eval_mcc need two labels; eval_micro_f1, "
               "eval_samples_f1 and eval_hamming_loss a multi-label task. Empty: off.")
            .in(FormGroup::Hyperparameters)
            .only({"", "eval_accuracy", "eval_loss", "eval_f1", "eval_mcc", "eval_macro_f1", "eval_micro_f1",
                   "eval_samples_f1", "eval_hamming_loss"}),

        option("early_stopping_patience", {}, &O::early_stopping_patience, "evaluations",
               "stop after N evaluations without improvement of --best_checkpoint_metric (eval_loss when unset; "
               "0 = never)",
               "Early stopping patience",
               "Stops training when this many evaluations in a row did not improve the best-model metric "
               "(eval_loss when none is chosen), as Hugging Face's EarlyStoppingCallback. The best checkpoint "
               "is kept. 0 never stops early.")
            .in(FormGroup::Hyperparameters).range(0, 1000).zeroMeans("never"),

        option("pos_weight", {}, &O::pos_weight, "",
               "multi-label: none, or balanced (each label's positive examples weighted by negatives/positives in "
               "the training records, clipped to [1, 100]; PyTorch's BCEWithLogitsLoss pos_weight)",
               "Rare-label weights",
               "Multi-label tasks only. balanced: a label that few texts carry counts more in the loss (its "
               "positive examples are weighted by how many texts lack it per text that has it, at most 100), so "
               "the model does not learn to never predict it. none: every label counts the same.")
            .in(FormGroup::Hyperparameters).only({"none", "balanced"}),

        option("padding", {}, &O::padding, "",
               "max_length (every batch as long as the records: max_seq_length positions) or longest (each batch "
               "cut to its longest text: short texts train faster; results differ by float rounding only)",
               "Padding",
               "longest: each batch is only as long as its longest text, so short texts (a sentence, a product "
               "title) train and evaluate several times faster; the model learns the same, though the numbers "
               "differ in the last digits. max_length: every batch has all max_seq_length positions, as "
               "run_classifier.py trains.")
            .in(FormGroup::Hyperparameters).only({"max_length", "longest"}),

    });
}

/// What a run records for the views, and the learning-rate range test (issue 14).
void addViewAndRangeTestOptions(OptionRows &rows)
{
    rows.append({
        option("save_embeddings", {}, &O::save_embeddings, "",
               "write each evaluation's pooled [CLS] vectors to <model_dir>/embeddings/ for the Embeddings tab "
               "(true/false; 4 bytes x hidden_size per eval example per evaluation)",
               "Save embeddings (Embeddings tab)",
               "After every evaluation, writes each eval example's pooled [CLS] vector to the model directory's "
               "embeddings/ folder, which the Embeddings tab draws. Each evaluation costs 4 bytes x hidden size per "
               "eval example (BERT-Tiny, 10,000 examples: 5 MB). Turn it off for a big eval set to keep the model "
               "directory small; the Embeddings tab is then empty. Eval sets over 10,000 examples are never saved.")
            .in(FormGroup::Hyperparameters).trueOrFalse(),

        option("record_training_dynamics", {}, &O::record_training_dynamics, "",
               "single-label classification: record each training example's gold-label probability every time "
               "training sees it in <model_dir>/training_dynamics.jsonl, for the data map and the suspects "
               "(true/false)",
               "Record training dynamics (Data map)",
               "Keeps, for every training text, how sure the model was of its label each time training saw it. "
               "The Data map draws it (easy, ambiguous and hard-to-learn examples) and the suspects list comes "
               "from it: texts that are probably mislabelled. It costs little (the probabilities come from the "
               "training pass itself); turn it off to leave the model directory without the file.")
            .in(FormGroup::Hyperparameters).trueOrFalse(),

        option("lr_find_steps", {}, &O::lr_find_steps, "steps", "lr_find: at most this many steps",
               "Range test steps", "Learning-rate range test: how many steps it takes at most.")
            .range(2, 100000),

        option("lr_find_start", {}, &O::lr_find_start, "", "lr_find: first learning rate", "Range test start",
               "Learning-rate range test: the learning rate of its first step.")
            .range(0, 10),

        option("lr_find_end", {}, &O::lr_find_end, "", "lr_find: last learning rate (rises exponentially)",
               "Range test end", "Learning-rate range test: the learning rate of its last step.")
            .range(0, 100),
    });
}

/// The tokenizer of the data, for export and classify.
void addTokenizerOptions(OptionRows &rows)
{
    rows.append({
        option("vocab_file", {}, &O::vocab_file, "",
               sharedFlagRow("vocab_file").summary, "Vocabulary",
               "The vocab.txt the data was prepared with. Export copies it into the export folder so that the "
               "folder classifies texts on its own. Default: the one Prepare data recorded.")
            .in(FormGroup::Files).file("Vocabulary (*.txt)"),

        option("do_lower_case", {}, &O::do_lower_case, "",
               sharedFlagRow("do_lower_case").summary, "Lower-case", "Whether the data was lower-cased when it was prepared (uncased models). Default: what "
               "Prepare data recorded, else true.")
            .only({"", "true", "false"}),
    });
}

} // namespace

std::vector<OptionSpec> buildOptionTable()
{
    OptionRows rows;
    addStrategyOptions(rows);
    addModelAndDataOptions(rows);
    addHyperparameterOptions(rows);
    addTeachingOptions(rows);
    addDistillationOptions(rows);
    addViewAndRangeTestOptions(rows);
    addTokenizerOptions(rows);
    return std::move(rows.t);
}

} // namespace wb
