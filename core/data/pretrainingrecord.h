// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

/// One pretraining sequence as google-research/bert create_pretraining_data.py writes it
/// (write_instance_to_example_files), one tf.train.Example per record:
/// - input_ids, input_mask, segment_ids: int64[L] (L = max_seq_length; input_mask 1 for a
///   real token, 0 for padding; segment_ids 0 for [CLS] A [SEP], 1 for B [SEP])
/// - masked_lm_positions, masked_lm_ids: int64[P], masked_lm_weights: float[P]
///   (P = max_predictions_per_seq; 1.0 for a prediction, 0.0 and id/position 0 for padding)
/// - next_sentence_labels: int64[1] (1 when B is a random sentence, google-research's
///   is_random_next; always 0 without next-sentence pairs)
/// Records of dynamic masking hold the unmasked input_ids and no masked_lm_* features
/// (`has_masked_lm` false). A plain value.
struct PretrainingRecord
{
    std::vector<int64_t> input_ids, input_mask, segment_ids;
    bool has_masked_lm = true;
    std::vector<int64_t> masked_lm_positions, masked_lm_ids;
    std::vector<float> masked_lm_weights;
    int64_t next_sentence_labels = 0;
};

/// What a pretraining record must look like (from input_meta_data.json).
struct PretrainingRecordSpec
{
    int64_t max_seq_length = 128;         ///< L
    int64_t max_predictions_per_seq = 20; ///< P (checked only when the masked_lm_* features are present)
    bool require_masked_lm = false;       ///< static masking: the masked_lm_* features must be present
    int64_t vocab_size = 0;               ///< ids < vocab_size (0: unchecked)
};

/// Serializes `record` as a tf.train.Example (deterministic bytes: features sorted by name),
/// with encodeMaskedLmRecord (core/data/pretrainingdataset.h), the format's one codec.
std::string encodePretrainingRecord(const PretrainingRecord &record);

/// Parses a serialized tf.train.Example into `record` with decodeMaskedLmRecord and checks it
/// against `spec`: every
/// feature present with google-research's kind and length, input_mask 0/1, ids in range,
/// masked_lm_positions inside the sequence, masked_lm_weights 0 or positive, next_sentence_labels 0
/// or 1. Extra features are ignored. Throws wb::Error with an empty field and a message naming
/// the feature (callers prefix the record location). Thread-safe.
void decodePretrainingRecord(std::string_view payload, const PretrainingRecordSpec &spec, PretrainingRecord &record);

} // namespace wb
