// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include "core/config/bertconfig.h"
#include "core/config/inputmetadata.h"
#include "core/model/bertmodel.h"

#include <string>
#include <vector>

namespace wb {

/// Writes the export folder `dir` (run_classifier's export_only, as files a Hugging Face
/// loader reads): model.safetensors (float32, HF names), bert_config.json,
/// input_meta_data.json and labels.txt (one name per line: `prepare`'s labels.txt beside
/// `metaDataPath` when it has num_labels lines, else the meta data's labels / label_list /
/// label_names, else 0…num_labels−1). Every file is written atomically; throws wb::Error
/// naming the file on failure (earlier files of the folder stay complete).
void exportModelFiles(const std::string &dir, nn::BertForSequenceClassification &model, const BertConfig &cfg,
                      const InputMetaData &meta, const std::string &metaDataPath);

/// Writes `model_dir/test_results.tsv` as run_classifier's predict does: one line per
/// example of tab-separated class probabilities (or the regression value), "%.9g".
/// Atomic; throws wb::Error naming the file on failure. Returns its path.
std::string writePredictions(const std::string &modelDir, const std::vector<std::vector<float>> &outputs);

} // namespace wb
