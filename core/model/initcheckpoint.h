// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include "core/config/bertconfig.h"
#include "core/config/diagnostics.h"
#include "core/config/inputmetadata.h"
#include "core/config/trainingoptions.h"
#include "core/model/bertmodel.h"
#include "core/model/safetensors.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace wb {

/// How the tensors of a checkpoint map onto the model.
struct CheckpointMatch
{
    std::vector<std::pair<std::string, std::string>> loaded; ///< (file name, model name)
    std::vector<std::string> missing;     ///< model tensors the file lacks (stay initialised)
    std::vector<std::string> unexpected;  ///< file tensors the model has no use for (ignored)
    bool classifierMissing = false;       ///< classifier.* absent or of another shape: new head
    /// Returns "loaded N tensors, M missing, K unexpected (…)".
    std::string summary() const;
};

/// Matches a safetensors header against the parameters of BertForSequenceClassification
/// (`config`, `num_labels`): HF names, `gamma`/`beta` spellings, optional `bert.` prefix;
/// `position_ids`/`token_type_ids` buffers are ignored. Adds an error to `diag` for every
/// encoder tensor whose shape differs (naming the tensor, both shapes and the config key to
/// change) and for non-float dtypes; a classifier of another shape is a warning (a new head
/// is initialised). Torch-free logic; thread-safe.
CheckpointMatch matchCheckpoint(const SafetensorsHeader &header, const std::string &path, const BertConfig &config,
                                int64_t numLabels, Diagnostics &diag);

/// Loads `path` (safetensors) into `model`; a missing or mismatched classifier head is
/// re-initialised. Throws wb::Error for unreadable files and shape mismatches.
CheckpointMatch loadInitCheckpoint(nn::BertForSequenceClassification &model, const std::string &path);

/// The model part of the pre-flight check: `options.init_checkpoint` must be a readable
/// safetensors file whose names and shapes match `config` (matchCheckpoint, num_labels from
/// `meta`). Problems go to `diag` naming the file and tensor. Reads the header only;
/// thread-safe; never throws.
void checkInitCheckpoint(const TrainingOptions &options, const BertConfig &config, const InputMetaData &meta,
                         Diagnostics &diag);

/// Reads every tensor of a safetensors file (converted to float32 when it is F16/BF16/F64).
std::map<std::string, torch::Tensor> loadSafetensors(const std::string &path);

/// Writes `tensors` (float32, made contiguous) atomically as safetensors with
/// {"format":"pt"} metadata, in the given order. Throws wb::Error naming the path.
void saveSafetensors(const std::string &path, const std::vector<std::pair<std::string, torch::Tensor>> &tensors);

} // namespace wb
