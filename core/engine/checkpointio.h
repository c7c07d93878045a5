// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include "core/config/bertconfig.h"
#include "core/config/inputmetadata.h"
#include "core/model/bertmodel.h"

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wb {

class AdamW;

/// The training checkpoint format, in this one place. A checkpoint `model_dir/ckpt-<step>`
/// is a libtorch archive (torch::serialize::OutputArchive, zip) with the entries
///   model            dict name → float32 tensor (Hugging Face names, CPU)
///   optimizer_m/_v/_iterations   AdamW slots (core/engine/adamw.h)
///   step             int64, global steps done
///   num_labels       int64
///   bert_config      string, the model config as JSON
///   input_meta_data  string, the meta data as JSON, with the casing the data was tokenized
///                    with ("do_lower_case", when the run knew it: core/formats/runidentity.h)
///   rng_state        uint8 tensor, the state of the model's generator (the run's random
///                    stream: dropout masks; BertForSequenceClassificationImpl::generator).
///                    Checkpoints written before runs owned a generator hold libtorch's
///                    default CPU generator here, the same format; both restore alike.
/// It is written to `ckpt-<step>.tmp`, fsynced and renamed (commitFileAtomic), then the
/// `checkpoint` index names it (core/formats/checkpointstate.h), so a crash leaves the
/// previous checkpoint and index intact.

/// Returns "ckpt-<step>".
std::string checkpointName(int64_t step);

/// What a checkpoint says about the run that wrote it.
struct CheckpointHeader
{
    int64_t step = 0;
    int64_t num_labels = 0;
    BertConfig bert_config;
    std::optional<bool> do_lower_case; ///< input_meta_data's do_lower_case; unset: not recorded
};

/// Reads the header entries of a checkpoint (the archive is opened, tensors are not copied
/// into a model). Throws wb::Error naming `path` when it is missing, unreadable or not ours.
CheckpointHeader readCheckpointHeader(const std::string &path);

/// Reads a checkpoint into `model` (and `opt` when non-null, and rng_state into
/// model->generator() when `restoreRng`). Throws wb::Error naming `path` for another architecture, another
/// num_labels, a missing or misshapen tensor. Returns the header.
CheckpointHeader loadCheckpoint(const std::string &path, nn::BertForSequenceClassification &model, AdamW *opt,
                                bool restoreRng);

/// Writes a checkpoint of `model`, `opt` and the state of model->generator() at `step` to
/// `path` atomically.
/// On any failure (disk full, EFBIG, read-only folder; libtorch's c10::Error included) the
/// temporary file is removed, `path` is untouched and wb::Error("<path>", reason) is thrown.
void saveCheckpoint(const std::string &path, nn::BertForSequenceClassification &model, const AdamW &opt,
                    int64_t step, const InputMetaData &meta);

/// Any model in the checkpoint format: its parameters (the `model` entry), config, num_labels
/// (0 for a pretraining model, BertForPreTraining: masked-LM heads, no classifier) and
/// generator (rng_state). The classifier functions above are these with the classifier's view.
struct CheckpointModel
{
    torch::nn::Module &module;
    const BertConfig &config;
    int64_t num_labels;
    at::Generator &generator;
};

/// loadCheckpoint for any model: another num_labels (a fine-tuning checkpoint for a
/// pretraining model, or the other way round) is an error saying which kind it is.
CheckpointHeader loadModelCheckpoint(const std::string &path, const CheckpointModel &model, AdamW *opt, bool restoreRng);

/// saveCheckpoint for any model.
void saveModelCheckpoint(const std::string &path, const CheckpointModel &model, const AdamW &opt, int64_t step,
                         const InputMetaData &meta);

/// The model's parameters as (name, tensor) pairs in registration order.
std::vector<std::pair<std::string, torch::Tensor>> namedParameters(nn::BertForSequenceClassification &model);

} // namespace wb
