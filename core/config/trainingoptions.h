// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// Everything a run needs, named and defaulted as the flags of run_classifier.py (tensorflow/models, official/nlp/bert),
/// plus our own `seed`, `keep_checkpoint_max` and `metrics_file`.
///
/// `Trainer::run` takes it. Paths are stored as given (relative paths resolve against the
/// working directory). A plain value; copy it to the training thread. The member
/// initialisers are the defaults; core/config/optiontable.h describes every member (flag
/// name, type, unit, help, form group), and the CLI, the project file and the window are
/// driven by that table.
struct TrainingOptions
{
    // Strategy. No default: empty means "not specified".
    std::string distribution_strategy;
    int num_gpus = 0;           ///< run_classifier's default is 1; we default to CPU-only (0)
    // Cluster (multi_worker_mirrored).
    std::string worker_hosts;   ///< comma-separated host:port list
    int task_index = -1;
    int num_local_workers = 0;  ///< >0: spawn this many local workers on loopback
    int worker_timeout = 300;   ///< seconds to wait for every worker (--worker_timeout)

    // Files.
    std::string bert_config_file;
    std::string input_meta_data_path;
    std::string train_data_path; ///< file, glob or comma-separated list
    std::string eval_data_path;
    std::string init_checkpoint; ///< safetensors with HF names (optional)
    /// Let encoder tensors the init checkpoint lacks keep their random initialisation (a
    /// warning); false: that is an error (checkInitCheckpoint, core/model/initcheckpoint.h).
    bool allow_partial_init = false;
    /// "Start from": a pretrained BERT by Hugging Face Hub id (org/name[@revision]), catalogue
    /// name (BERT-Tiny) or local model folder. Fills bert_config_file, vocab_file,
    /// do_lower_case and init_checkpoint where they are empty (core/engine/preparedrun.h).
    std::string pretrained_model;
    std::string model_dir;       ///< required to train, predict or export (no default)
    std::string model_export_path;
    /// export: replace an earlier export at model_export_path (a non-empty folder is refused without it).
    bool overwrite_output_dir = false;
    /// export: the number format of onnx/model.onnx ("fp32"), or "none" to leave the ONNX file out.
    std::string onnx_dtype = "fp32";
    /// export: write the web demo, demo/index.html with onnxruntime-web's files in demo/ort/
    /// (from onnxruntime_web_dir, else fetched from the npm registry; core/formats/onnxruntimeweb.h).
    bool demo = false;
    /// export --demo: a folder holding onnxruntime-web's ort.wasm.min.js,
    /// ort-wasm-simd-threaded.wasm and ort-wasm-simd-threaded.mjs (or an unpacked package with
    /// them in dist/); empty: the npm cache, filled from the registry.
    std::string onnxruntime_web_dir;
    std::string predict_checkpoint_path;
    std::string metrics_file;    ///< default: <model_dir>/metrics.jsonl

    // Mode: train_and_eval, predict, export_only.
    std::string mode = "train_and_eval";

    // Hyperparameters.
    int64_t train_batch_size = 32;
    int64_t eval_batch_size = 32;
    /// Peak learning rate. Unset (the default): it follows the start, defaultLearningRate()
    /// (core/advice/runfacts.h): 5e-5 from pretrained weights, 5e-4 from one's own pretraining,
    /// kFromScratchLearningRate from random weights; prepareRun() sets it, and a run resumed in
    /// its model_dir keeps the rate its run_config.json records.
    std::optional<double> learning_rate;
    double end_lr = 0.0;
    int64_t num_train_epochs = 3;
    int64_t num_eval_per_epoch = 1;
    std::optional<int64_t> train_data_size; ///< cap on training examples
    std::optional<int64_t> steps_per_loop;
    int64_t log_steps = 100;      ///< examples/s logging interval (0 disables)
    std::string optimizer_type = "adamw";
    double weight_decay_rate = 0.01;
    double warmup_fraction = 0.1; ///< warmup_steps = int(epochs·N·0.1/B)
    /// `pretrain` only (google-research/bert run_pretraining.py's --num_train_steps): the
    /// run's optimizer steps, instead of num_train_epochs × steps per epoch; evaluations stay
    /// every steps_per_epoch steps, plus one at the last step. Unset: the epochs decide.
    std::optional<int64_t> num_train_steps;
    /// `pretrain` only (run_pretraining.py's --num_warmup_steps): linear warmup steps, instead of
    /// warmup_fraction. Unset: warmup_fraction of the steps.
    std::optional<int64_t> num_warmup_steps;
    int64_t seed = 42;
    int keep_checkpoint_max = 5;  ///< newest checkpoints kept; 0 keeps all, as TF's CheckpointManager(max_to_keep=None)
    int64_t save_checkpoints_steps = 0; ///< also checkpoint every N steps (TF Estimator RunConfig); 0: only at evaluations
    int num_threads = 0;          ///< intra-op threads (--num_threads); 0: automatic
    /// Number format of the matmuls (run_classifier's --dtype): "fp32", "bf16" (autocast
    /// to bfloat16, CPU and CUDA) or "fp16" (CUDA only, dynamic loss scaling). Parameters,
    /// optimizer state, loss, softmax and checkpoints stay float32.
    std::string dtype = "fp32";
    /// Micro-batches of train_batch_size / N per optimizer step (Hugging Face's name); the
    /// schedule, step count, logged loss and metrics are those of the whole batch.
    int64_t gradient_accumulation_steps = 1;
    /// Recompute each encoder block's activations in the backward pass instead of keeping
    /// them (per-layer activation checkpointing): about 30 % more compute per step for the
    /// activation memory of one block plus the blocks' inputs (docs/benchmarks.md, "Memory").
    bool activation_checkpointing = false;

    // Teaching (issue 14): best model, early stopping, the learning-rate range test.
    std::string best_checkpoint_metric; ///< "", a name of bestCheckpointMetrics(): keep model_dir/best/
    /// Multi-label only (docs/multi-label.md): "none", or "balanced": each label's positive term
    /// of the binary cross-entropy weighted by negatives / positives in the training records
    /// (PyTorch's BCEWithLogitsLoss pos_weight), clipped to [1, 100].
    std::string pos_weight = "none";
    /// Distillation (data whose meta data has has_teacher_logits; docs/distillation.md): the
    /// temperature T of the soft labels, softmax(z / T) of teacher and student (Hinton et al.
    /// 2015); the soft term is scaled by T² so its gradients keep their size. > 0.
    double distillation_temperature = 1.0;
    /// Distillation: the share of the soft-label term in the loss, α·T²·KL(teacher ‖ student) +
    /// (1 − α)·cross-entropy on the gold labels (transfer texts have none and add only the soft
    /// term). 1: soft labels only (Turc et al. 2019's pre-trained distillation). In [0, 1].
    double distillation_alpha = 1.0;
    /// How a batch's rows are padded (Hugging Face tokenizers' terms): "max_length", every batch
    /// as the records have it (max_seq_length positions); "longest", each batch cut to its
    /// longest text (training, evaluation, pretraining and the range test): short texts cost what their
    /// wordpieces cost; the results move by float rounding and dropout draws only
    /// (trimmedToLongest, core/engine/batching.h).
    std::string padding = "max_length";
    int64_t early_stopping_patience = 0; ///< stop after N evaluations without improvement (0: never)
    /// Write each evaluation's pooled [CLS] vectors to model_dir/embeddings/step-N.safetensors
    /// (the Embeddings tab; 4 bytes x hidden_size per eval example per evaluation). false: none.
    bool save_embeddings = true;
    /// Single-label classification: record each training example's gold-label probability every
    /// time the training forward pass sees it, in model_dir/training_dynamics.jsonl (the data map,
    /// docs/data-map.md). false: none.
    bool record_training_dynamics = true;
    int64_t lr_find_steps = 100;  ///< lr_find: at most this many steps
    double lr_find_start = 1e-7;  ///< lr_find: first learning rate
    double lr_find_end = 1.0;     ///< lr_find: last learning rate (rises exponentially)

    // Export and classify: the tokenizer that made the data (create_finetuning_data.py's flags).
    std::string vocab_file;             ///< default: the vocab recorded in prepare_report.json
    std::string do_lower_case;          ///< "true", "false", or "" (prepare_report.json's, else true)

    /// Returns metrics_file or <model_dir>/metrics.jsonl.
    std::string metricsPath() const;
};

/// The default peak learning rate from pretrained weights: run_classifier's and Hugging Face
/// Trainer's 5e-5 (BERT's fine-tuning range is 2e-5 … 5e-5, Devlin et al. 2019, appendix A.3).
inline constexpr double kPretrainedLearningRate = 5e-5;
/// The default peak learning rate from random weights: 5e-4, the middle of the range small
/// BERTs train well in from scratch (1e-4 … 1e-3; docs/pretrained-models.md).
inline constexpr double kFromScratchLearningRate = 5e-4;

/// Whether a run with `o` starts from trained weights (a pretrained_model or an
/// init_checkpoint is set). Pure.
bool startsFromPretrainedWeights(const TrainingOptions &o);

/// The rate as the options alone tell (an init checkpoint counts as pretrained): o.learning_rate,
/// else kPretrainedLearningRate or kFromScratchLearningRate; a run uses defaultLearningRate(). Pure.
double learningRate(const TrainingOptions &o);

/// Returns `o` as `bert-workbench-cli train` flags ("--name=value", run_classifier's names):
/// distribution_strategy always (when set), every other option only where it differs from
/// the default, in the order of the CLI's --help. Numbers use the shortest text that reads
/// back to the same value (5e-4 → "5e-04"). Parsing the result with the CLI gives `o`
/// back (tested). `mode` is left out: the subcommand sets it. Thread-safe.
std::vector<std::string> toCommandLineFlags(const TrainingOptions &o);

/// Joins `args` into one line a POSIX shell reads back as the same words ('…' quoting
/// where needed), for "Copy as command line".
std::string shellJoin(const std::vector<std::string> &args);

} // namespace wb
