// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/bertconfig.h"
#include "core/config/diagnostics.h"
#include "core/config/inputmetadata.h"
#include "core/config/trainingoptions.h"

namespace wb {

/// The data part of the pre-flight check: the train/eval paths of `options` (files, globs
/// or comma-separated lists) must match files whose records frame correctly; the first
/// 1000 records of each path are decoded against `meta` and `config` (max_seq_length,
/// label type, vocab_size, type_vocab_size) and the record counts are compared with
/// train_data_size / eval_data_size (a warning when they differ). Problems go to `diag`
/// naming the flag and the record. Reads files; thread-safe; never throws.
void checkDataFiles(const TrainingOptions &options, const BertConfig &config, const InputMetaData &meta,
                    Diagnostics &diag);

} // namespace wb
