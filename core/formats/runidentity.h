// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/bertconfig.h"
#include "core/config/diagnostics.h"
#include "core/config/inputmetadata.h"
#include "core/config/schedule.h"
#include "core/config/trainingoptions.h"
#include "core/tokenize/tokenizercasing.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace wb {

/// `model_dir/run_config.json`: what defines a training run, written (atomically, before
/// its checkpoint is committed) with the first checkpoint of the run (docs/reliability.md):
///
///   {"format": "bert-workbench run_config 1",
///    "defining": {"bert_config": {…}, "num_labels": 2, "max_seq_length": 16,
///                 "label_type": "int", "train_batch_size": 8, "num_train_epochs": 1,
///                 "num_eval_per_epoch": 1, "train_data_size": 64, "learning_rate": 0.001,
///                 "end_lr": 0, "warmup_fraction": 0.1, "optimizer_type": "adamw",
///                 "weight_decay_rate": 0.01, "seed": 42, "steps_per_epoch": 8,
///                 "total_steps": 8, "warmup_steps": 0},
///    "fingerprints": {"bert_config_sha256": "…"},
///    "data_files": {"train_data_path": {"path": …, "sha256": "…"}, "eval_data_path": {…},
///                   "input_meta_data_path": {…}},
///    "informational": {"bert_config_file": …, "input_meta_data_path": …,
///                      "train_data_path": …, "eval_data_path": …, "vocab_file": …,
///                      "do_lower_case": …, "pretrained_model": …,
///                      "working_directory": "/where/the/run/was/started", "version": …},
///    "tokenizer": {"do_lower_case": false, "do_lower_case_source": "input_meta_data.json",
///                  "vocab_file": "/abs/vocab.txt", "vocab_sha256": "…"}}
///
/// The paths are recorded as given; `working_directory` (the process's current directory
/// when the run started) is what relative ones are relative to (fillFromRecordedRun).
/// "informational" holds the flags as the user gave them (do_lower_case "" when not given);
/// "tokenizer" holds how the text was really read, after every source was consulted.
///
/// "tokenizer" is how the run's data was tokenized (dataTokenizer(); do_lower_case null and
/// the vocab keys absent when unknown): export, classify and Try it read text with it, and a
/// resume compares it (runTokenizerDifferences). Apart from that only "defining" is compared: a difference there changes the model or its schedule
/// (train_data_size is the examples per evaluation interval after --train_data_size, as
/// run_classifier's schedule uses it). Paths may move between runs and are not compared.
/// --dtype and --gradient_accumulation_steps are "informational": checkpoints stay float32
/// whatever the number format (a run may resume in another dtype), and accumulation with
/// the same train_batch_size keeps the schedule and, up to rounding, each step.
/// A plain value; thread-safe functions.
struct RunIdentity
{
    nlohmann::ordered_json json;

    /// The identity of a train_and_eval run with these inputs.
    static RunIdentity of(const TrainingOptions &options, const BertConfig &config, const InputMetaData &meta,
                          const Schedule &schedule);
};

/// How a run's data was tokenized: its casing and vocabulary.
struct RunTokenizer
{
    TokenizerCasing casing;
    std::string vocab_file;   ///< --vocab_file, else prepare_report.json's; empty: unknown
    std::string vocab_sha256; ///< of the vocab_file's bytes (else the report's); empty: unknown
};

/// The tokenizer of the data a run with `o` reads (`meta`: its input_meta_data.json): the
/// casing from --do_lower_case, else the meta data's do_lower_case, else prepare_report.json's
/// beside it, else inferred from the vocab (--vocab_file, else the report's) with a warning
/// (resolveCasing). Reads the report and the vocab; never throws.
RunTokenizer dataTokenizer(const TrainingOptions &o, const InputMetaData &meta);

/// The casing run_config.json of `modelDir` records ("tokenizer"."do_lower_case"); unset when
/// absent, null or unreadable. Never throws.
std::optional<bool> recordedRunCasing(const std::string &modelDir);

/// One line per tokenizer entry the saved run and these options both know and that differs,
/// naming both sides: "do_lower_case: false (the run: cased, from input_meta_data.json) → true
/// (now: lower-cased, from prepare_report.json)", "vocab_sha256: …", "pretrained_model: …".
/// Pure.
std::vector<std::string> runTokenizerDifferences(const RunIdentity &saved, const RunIdentity &current);

/// Returns `<modelDir>/run_config.json`.
std::string runConfigPath(const std::string &modelDir);

/// Writes run_config.json atomically. Throws wb::Error("<modelDir>/run_config.json", reason).
void writeRunConfig(const std::string &modelDir, const RunIdentity &identity);

/// Reads run_config.json; nothing when absent. An unreadable file is an error in `diag`.
std::optional<RunIdentity> readRunConfig(const std::string &modelDir, Diagnostics &diag);

/// The options a run_config.json records that the window's run table shows, typed; each is
/// unset where the file has no such key (written by older versions, or by hand).
struct RecordedRunOptions
{
    std::optional<double> learning_rate;          ///< defining
    std::optional<int64_t> train_batch_size;      ///< defining
    std::optional<int64_t> num_train_epochs;      ///< defining
    std::optional<std::string> dtype;             ///< informational
    std::optional<std::string> input_meta_data_path; ///< informational, as given to the run
};

/// Fills the options a command that reads the run in `o.model_dir` needs and was not given,
/// from what its run_config.json recorded ("informational"): bert_config_file,
/// input_meta_data_path, vocab_file, do_lower_case, train_data_path when `withTrainData`
/// (lr_find on a run) and eval_data_path when `withEvalData` (distil's teacher); pretrained_model only when no bert_config_file was
/// recorded. Every command that reads a run uses this (predict, export, lr_find, classify and
/// the window's Try it through TextClassifier). A relative recorded path resolves against the
/// recorded working_directory, else (runs written before it was recorded) the current
/// directory, then against model_dir; the first that exists is taken. Returns one line per
/// option filled, "--bert_config_file not given: using the run's /abs/bert_config.json (from
/// RUN/run_config.json, recorded as bert_config.json)" (the window shows it in form words).
/// Nothing happens without a model_dir or a run_config.json. Throws wb::Error naming the
/// option for a recorded bert_config_file or input_meta_data_path that exists nowhere (the
/// message lists the places tried); a missing recorded vocab_file is left unset with a line
/// saying so. Reads files; thread-safe.
std::vector<std::string> fillFromRecordedRun(TrainingOptions &o, bool withTrainData = false, bool withEvalData = false);

/// Sets an unset o.learning_rate as a run with `o` will use it: the rate the run already in
/// o.model_dir recorded in its run_config.json (a resumed run goes on at its own rate), else
/// the default of the start (defaultLearningRate(), core/advice/runfacts.h). Returns the line
/// that says which ("5e-05, the default from pretrained weights (--learning_rate not given)";
/// "0.0005, the default after a short pretraining of your own …"),
/// or "" when the rate was given. An unreadable run_config.json counts as none (the model_dir
/// check reports it). Reads model_dir/run_config.json; thread-safe.
std::string resolveLearningRate(TrainingOptions &o);

/// The model config at `path` (bert_config.json or Hugging Face's config.json), for a command
/// that reads a run (classify, Try it, fill_mask): its first error becomes wb::Error naming the
/// file or key ("pass --bert_config_file" when it cannot be read at all). Reads the file.
BertConfig loadRunModelConfig(const std::string &path);

/// The input_meta_data.json at `path`, as loadRunModelConfig() does for the config.
InputMetaData loadRunMetaData(const std::string &path);

/// Returns what `identity` records (`source`: its file, named in errors). Throws
/// wb::Error("<source>: defining: learning_rate", …) for a key of another type. Pure.
RecordedRunOptions recordedRunOptions(const RunIdentity &identity, const std::string &source);

/// Appends one line per entry of `a` and `b` that differs, "<prefix>name: old → new"
/// (objects on both sides are compared entry by entry, "<prefix>outer.inner: …"; a side
/// without the entry reads "(absent)"), in the order of `a`, then entries only `b` has.
/// Pure; thread-safe.
void jsonDifferences(const std::string &prefix, const nlohmann::ordered_json &a, const nlohmann::ordered_json &b,
                     std::vector<std::string> &out);

/// One line per data file ("data_files": train_data_path, eval_data_path,
/// input_meta_data_path, each {"path", "sha256"} of its bytes when the run started) whose
/// content differs: "train_data_path: /d/train.tf_record changed (sha256 1a2b3c4d5e6f →
/// 0f9e8d7c6b5a)", or "<flag>: <old path> (sha256 …) → <new path> (sha256 …)" when it moved
/// too; a file that moved with the same bytes is no difference. Nothing when either side was
/// written without "data_files" (older runs). Pure.
std::vector<std::string> runDataFileDifferences(const RunIdentity &saved, const RunIdentity &current);

/// The changed data files first (runDataFileDifferences), then one line per defining entry
/// that differs, "name: old → new" (bert_config entries as "bert_config.hidden_size: 32 →
/// 64"), in the order of `saved`, then entries only one side has. When a data file changed,
/// the entries that follow from it (train_data_size, steps_per_epoch, total_steps,
/// warmup_steps) are left out: the file is the change.
std::vector<std::string> runIdentityDifferences(const RunIdentity &saved, const RunIdentity &current);

/// The model_dir pre-flight check (validate, train, the window's validation dialog), all
/// findings as errors in `diag` (exit 2 in the CLI):
///  * train_and_eval with a checkpoint in model_dir: run_config.json is compared with these
///    options (its "defining" entries, and the data's casing, vocab sha256 and pretrained
///    model against its "tokenizer" record); each difference is one error "<option>: <old> → <new>", after one error
///    on model_dir naming the checkpoint and the two ways out (a new --model_dir, or a new
///    one with --init_checkpoint=<that checkpoint> to start from its weights). Without a
///    run_config.json (older runs) the checkpoint itself is compared (architecture, num_labels).
///  * predict/export_only: the checkpoint they will read is compared with the config.
/// (An --init_checkpoint, a training checkpoint included, is checkInitCheckpoint's.)
/// `schedule` may be null (then only the model is compared). Reads files; never throws.
void checkModelDir(const TrainingOptions &options, const BertConfig &config, const InputMetaData &meta,
                   const Schedule *schedule, Diagnostics &diag);

/// True when `path` names a training checkpoint of this program (file name "ckpt-<N>"),
/// rather than a safetensors init checkpoint.
bool isTrainingCheckpointPath(const std::string &path);

} // namespace wb
