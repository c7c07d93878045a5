// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include "core/config/bertconfig.h"
#include "core/config/diagnostics.h"
#include "core/config/inputmetadata.h"
#include "core/config/trainingoptions.h"
#include "core/model/bertmodel.h"
#include "core/weights/safetensors.h"
#include "core/weights/tfcheckpoint.h"
#include "core/weights/torchpickle.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace wb {

/// How the tensors of a checkpoint map onto the model.
struct CheckpointMatch
{
    std::string format = "safetensors";  ///< "safetensors", "PyTorch", "sharded safetensors", "sharded PyTorch", "TensorFlow checkpoint" or "training checkpoint"
    std::vector<std::pair<std::string, std::string>> loaded; ///< (file name, model name)
    std::vector<std::string> missing;     ///< model tensors the file lacks (stay initialised)
    std::vector<std::string> unexpected;  ///< file tensors the model has no use for (ignored)
    std::vector<std::string> skipped;     ///< TF optimizer slots (adam_m/adam_v) and bookkeeping (global_step)
    /// The masked-LM and next-sentence heads of a pre-training checkpoint (`cls/predictions/…`,
    /// `cls.seq_relationship.…`, under any scope): a classifier has no use for them; skipped, said in summary().
    std::vector<std::string> pretraining_head;
    /// What resolving the path found worth saying (locateCheckpoint's CheckpointSource::notes):
    /// e.g. a `checkpoint` file's absolute path from another machine replaced by the file beside it.
    std::vector<std::string> notes;
    bool classifierMissing = false;       ///< classifier.* absent or of another shape: new head
    /// The scope most encoder tensors were found under ("module/" for a TF-Hub classifier,
    /// "encoder/" for tensorflow/models TF2, "module." for a DataParallel state dict), or "".
    std::string scope;
    /// Returns "loaded N tensors, M missing, K unexpected (…)", plus the skipped optimizer
    /// state, the skipped pre-training heads ("skipped 5 pretraining-head tensors cls/… (…)"),
    /// the notes, and the newly initialised classifier head (expected on a pretrained encoder).
    std::string summary() const;
};

/// What `--init_checkpoint` points at, once resolved.
enum class CheckpointFormat
{
    Safetensors, ///< a .safetensors file (Hugging Face names, or gamma/beta spellings)
    TensorFlow,  ///< a tensor bundle: `<prefix>.index` + `<prefix>.data-NNNNN-of-MMMMM`
    PyTorch,     ///< a torch.save state dict (pytorch_model.bin), read by the weights-only reader (torchpickle.h)
    Sharded,     ///< `model.safetensors.index.json` or `pytorch_model.bin.index.json` and the shards it names
    /// a training checkpoint `ckpt-N` of this program's model_dir (a libtorch archive whose
    /// `model` entry maps Hugging Face names to float32 tensors; core/engine/checkpointio.h),
    /// a fine-tuning run's or a pre-training run's
    Training
};

/// A resolved init checkpoint.
struct CheckpointSource
{
    CheckpointFormat format = CheckpointFormat::Safetensors;
    std::string path;        ///< the weights file, the shard index, or the TensorFlow checkpoint prefix
    std::string config_json; ///< `config.json` beside the weights of a Hugging Face folder, else empty
    /// Warnings met while resolving, for the log and the pre-flight check: a `checkpoint`
    /// file's absolute model_checkpoint_path from another machine replaced by the file of that
    /// name beside it (both paths named).
    std::vector<std::string> notes;
};

/// Resolves `input` (docs/file-formats.md, "Init checkpoints"): a TensorFlow checkpoint
/// prefix, its `.index` file, a data shard, or a folder with a `checkpoint` file; a
/// model_dir of a training or pre-training run of this program (its `checkpoint` index names
/// the latest `ckpt-N`; without an index, the `ckpt-N` with the largest N) or one `ckpt-N`
/// file of it (Training); an export folder or a
/// Hugging Face model folder (the first of `model.safetensors`,
/// `model.safetensors.index.json`, `pytorch_model.bin`, `pytorch_model.bin.index.json`;
/// optionally `config.json`); a folder with exactly one `*.index`; a folder with `model.pt`
/// or `model.pth`; a `*.index.json` shard index; a PyTorch file (`.bin`, `.pt`, `.pth`, or
/// content that starts as a zip or a pickle); or a safetensors file. Does not parse the
/// weights. Throws wb::Error naming the path and saying why for everything else: a Keras
/// HDF5 or Flax file, or a folder with only those (the message names the files found), a
/// missing `.index` beside data shards, a path that does not exist, a folder with none of
/// these (the message lists what was looked for). Thread-safe.
CheckpointSource locateCheckpoint(const std::string &input);

/// Matches a safetensors header against the parameters of BertForSequenceClassification
/// (`config`, `num_labels`): HF names, `gamma`/`beta` spellings, optional `bert.` prefix,
/// optional `module.`/`model.` scope (canonicalParameterName); `position_ids`/`token_type_ids`
/// buffers are ignored. Every model tensor comes from exactly one file tensor. Adds an error
/// to `diag`:
/// - for every encoder tensor whose shape differs (naming the tensor, both shapes and the
///   config key to change) and for non-float dtypes;
/// - for two file tensors that map to one model tensor (naming both; neither is loaded);
/// - when encoder tensors (embeddings, layers, a pooler the file has only half of) are not
///   in the file and would keep their random initialisation, naming how many and the
///   scopes the file's names use (a warning instead when `allowPartialInit`,
///   --allow_partial_init);
/// - when no tensor matches.
/// A missing classifier head is expected (info), a classifier of another shape is a warning
/// (a new head is initialised), a file without any pooler tensor is a warning. TensorFlow
/// variable names in a safetensors file are an error that says so. Torch-free logic;
/// thread-safe.
CheckpointMatch matchCheckpoint(const SafetensorsHeader &header, const std::string &path, const BertConfig &config,
                                int64_t numLabels, Diagnostics &diag, bool allowPartialInit = false);

/// Matches the tensors of a TensorFlow checkpoint index (mapTfVariableName: google-research/bert
/// TF1 names, also under the scopes module/, model/, encoder/, bert/; tensorflow/models TF2
/// names under any scope) against the model, with the same rules as
/// matchCheckpoint; shapes are compared after transposing kernels to [out, in]. Optimizer
/// slots and global_step are listed in `skipped`; sliced (partitioned) variables are errors.
/// Does not read the data shards. Torch-free logic; thread-safe.
CheckpointMatch matchTfCheckpoint(const TfBundle &bundle, const BertConfig &config, int64_t numLabels,
                                  Diagnostics &diag, bool allowPartialInit = false);

/// Throws wb::Error(field, message, hint) of the first error in `diag`; returns when it has none.
void throwFirstError(const Diagnostics &diag);

/// matchTfCheckpoint for a load: throws wb::Error with the match's first error, then for a
/// data shard of `bundle` that is missing (naming it and saying to copy it beside the
/// `.index`); returns the match otherwise. Reads no tensor data.
CheckpointMatch matchTfCheckpointToLoad(const TfBundle &bundle, const BertConfig &config, int64_t numLabels,
                                        bool allowPartialInit);

/// Tensor `e` of a TensorFlow checkpoint as float32 (DT_DOUBLE, DT_HALF and DT_BFLOAT16
/// converted), its bytes read and checked by readTfTensorBytes. Throws wb::Error naming
/// "<prefix>: <name>" for another dtype, and as readTfTensorBytes.
torch::Tensor readTfTensor(const TfBundle &bundle, const TfBundleEntry &e);

/// The tensor `fileName` of a TensorFlow checkpoint, one that matchTfCheckpoint loaded, in
/// the model's layout: float32, kernels transposed to [out, in], flattened where the model's
/// tensor is 1-D (mapTfVariableName). Throws as readTfTensor.
torch::Tensor readTfModelTensor(const TfBundle &bundle, const std::string &fileName);

/// Reads the names, dtypes and shapes of every tensor of a Hugging Face weights source
/// (Safetensors, PyTorch, Sharded or Training; not TensorFlow) without the data, as a safetensors
/// header (begin/end are 0 for PyTorch and training-checkpoint tensors; a training
/// checkpoint's archive is read whole to list them). For a sharded checkpoint every shard's
/// table is read and must agree with the index: a tensor in two shards, a tensor the index
/// maps elsewhere or not at all, a tensor missing from its shard, and a missing shard are
/// errors naming the shard and the tensor. Throws wb::Error. Torch-free logic; thread-safe.
SafetensorsHeader readWeightsTable(const CheckpointSource &src);

/// Reads the `model` entry of a training checkpoint `ckpt-N` (core/engine/checkpointio.h
/// describes the archive; only this entry is read here): Hugging Face name → float32 tensor,
/// contiguous, on the CPU. Throws wb::Error naming the file when it is no libtorch archive or
/// has no `model` dictionary.
std::map<std::string, torch::Tensor> loadTrainingCheckpointWeights(const std::string &path);

/// Loads every tensor of a Hugging Face weights source (Safetensors, PyTorch or Sharded),
/// the shards merged; F16/BF16/F64 become float32 as in loadSafetensors, views become
/// contiguous copies. Throws wb::Error as readWeightsTable and on unreadable data.
std::map<std::string, torch::Tensor> loadWeights(const CheckpointSource &src);

/// Reads every tensor of a torch.save state dict with the weights-only reader
/// (readTorchCheckpoint: no code in the file is run) as loadSafetensors does: contiguous,
/// F16/BF16/F64 converted to float32, other dtypes kept. Throws wb::Error naming the file.
std::map<std::string, torch::Tensor> loadTorchWeights(const std::string &path);

/// Loads `path` (anything locateCheckpoint accepts) into `model`; a missing or mismatched
/// classifier head is re-initialised. For TensorFlow checkpoints every data shard must be
/// present and every loaded tensor's CRC32C is verified. Throws wb::Error for unreadable
/// files, shape mismatches, missing shards, checksum mismatches, two file tensors for one
/// model tensor, and encoder tensors the file lacks unless `allowPartialInit`
/// (matchCheckpoint). CheckpointMatch::loaded counts model tensors (each once).
CheckpointMatch loadInitCheckpoint(nn::BertForSequenceClassification &model, const std::string &path,
                                   bool allowPartialInit = false);

/// The model part of the pre-flight check: `options.init_checkpoint` must be a readable
/// checkpoint (locateCheckpoint) whose names and shapes match `config` (matchCheckpoint or
/// matchTfCheckpoint, num_labels from `meta`, `options.allow_partial_init`). Problems go to `diag` naming the file and
/// tensor. Reads the tables only (readWeightsTable, readTfBundle); thread-safe; never throws.
void checkInitCheckpoint(const TrainingOptions &options, const BertConfig &config, const InputMetaData &meta,
                         Diagnostics &diag);

/// Reads every tensor of a safetensors file (converted to float32 when it is F16/BF16/F64).
std::map<std::string, torch::Tensor> loadSafetensors(const std::string &path);

/// Writes `tensors` (float32, made contiguous) atomically as safetensors with
/// {"format":"pt"} metadata, in the given order. Throws wb::Error naming the path.
void saveSafetensors(const std::string &path, const std::vector<std::pair<std::string, torch::Tensor>> &tensors);

} // namespace wb
