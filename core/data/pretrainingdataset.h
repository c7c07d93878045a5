// SPDX-License-Identifier: Apache-2.0
#pragma once

// Masked-LM pretraining records (google-research/bert create_pretraining_data.py's
// tf.train.Example features) and the batches the pretraining run reads
// (docs/pretraining.md, docs/file-formats.md). Torch-free.

#include "core/data/mlmmasking.h"
#include "core/tokenize/vocab.h"

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

/// One pretraining sequence as create_pretraining_data.py writes it (write_instance_to_example_files):
/// input_ids, input_mask, segment_ids int64 × max_seq_length (L); masked_lm_positions,
/// masked_lm_ids int64 and masked_lm_weights float × max_predictions_per_seq (P), padded with
/// 0 / 0 / 0.0; next_sentence_labels int64[1] (0 = B follows A, 1 = B is random). A plain value.
struct MaskedLmRecord
{
    std::vector<int64_t> input_ids, input_mask, segment_ids;
    std::vector<int64_t> masked_lm_positions, masked_lm_ids;
    std::vector<float> masked_lm_weights;
    int64_t next_sentence_label = 0;
    /// false: a dynamic-masking record (no masked_lm_* features; input_ids unmasked), whose
    /// masks the trainer draws each epoch.
    bool has_masks = true;
};

/// What a pretraining record must look like.
struct MaskedLmSpec
{
    int64_t max_seq_length = 128;          ///< L
    int64_t max_predictions_per_seq = 20;  ///< P
    int64_t vocab_size = 0;                ///< input_ids and masked_lm_ids < vocab_size (0: unchecked)
    int64_t type_vocab_size = 0;           ///< segment_ids < type_vocab_size (0: unchecked)
    bool masks_required = true;            ///< static masking: masked_lm_* must be there
};

/// Serializes `r` as a tf.train.Example with the seven features (masked_lm_* left out when
/// !r.has_masks), deterministically (equal records, equal bytes).
std::string encodeMaskedLmRecord(const MaskedLmRecord &r);

/// Parses a serialized tf.train.Example into `r` and checks it against `spec`: every feature
/// present with its kind and length (L or P), ids in range, positions in [0, L), weights 0 or
/// positive, next_sentence_labels 0 or 1. A record without any masked_lm_* feature is a
/// dynamic-masking record (has_masks false), an error when spec.masks_required; a record with
/// only some of them is an error. Throws wb::Error with an empty field and a message naming
/// the feature, the value and the fix (callers prefix the file and record). Thread-safe.
void decodeMaskedLmRecord(std::string_view payload, const MaskedLmSpec &spec, MaskedLmRecord &r);

/// The shapes of a pretraining record set, read from the records themselves (for records
/// without an input_meta_data.json, such as create_pretraining_data.py's). A plain value.
struct MaskedLmRecordShapes
{
    std::vector<std::string> files;       ///< the files read, in order
    int64_t records = 0;                  ///< records in all files
    int64_t max_seq_length = 0;           ///< L: the length of every record's input_ids
    int64_t max_predictions_per_seq = 0;  ///< P: the length of masked_lm_positions; 0 without masks
    bool has_masks = false;               ///< the records carry masked_lm_* (static masking)
    /// Some record has a segment_ids value of 1 or a next_sentence_labels of 1: sentence pairs
    /// (create_pretraining_data.py always writes them), so the next-sentence head applies.
    bool next_sentence = false;
    std::string first_record;             ///< "<file>: record 0 at byte 0": where L and P were read
};

/// Reads every record of `pattern` (expandFilePattern: a file, globs, a comma-separated list)
/// and returns their shapes. Every record must have the first one's input_ids length and
/// masked_lm_positions length (or no masked_lm_* at all when the first has none); a record
/// that differs, has no input_ids, or does not parse throws wb::Error whose field is
/// "<file>: record <i> at byte <offset>" and whose message names both lengths and the first
/// record. An empty set (no record in any file) throws naming the pattern. Values are not
/// checked here (decodeMaskedLmRecord does that). Reads the files once; memory: one record.
/// Thread-safe.
MaskedLmRecordShapes readMaskedLmRecordShapes(const std::string &pattern);

/// One batch, row-major. [size × L] input_ids/input_mask/segment_ids, [size × P]
/// masked_lm_positions/ids/weights, [size] next_sentence_labels.
struct PretrainingBatch
{
    int64_t size = 0;
    int64_t seq_length = 0;        ///< L
    int64_t predictions = 0;       ///< P
    std::vector<int64_t> input_ids, input_mask, segment_ids;
    std::vector<int64_t> masked_lm_positions, masked_lm_ids;
    std::vector<float> masked_lm_weights;
    std::vector<int64_t> next_sentence_labels;
};

/// How to read a pretraining record set.
struct PretrainingDataOptions
{
    std::string pattern;              ///< file, glob, or comma-separated list (shards: train.tf_record-*)
    MaskedLmSpec spec;
    int64_t batch_size = 32;
    bool training = false;            ///< true: shuffled, repeated forever, whole batches only
    int64_t shuffle_buffer = 1000;    ///< records (run_pretraining.py shuffles files, then records)
    uint64_t seed = 42;
    int num_shards = 1;               ///< this reader takes every num_shards-th record …
    int shard_index = 0;              ///< … starting at shard_index (evaluation across workers)
};

/// Where the pretraining run takes its batches from. The seam of dynamic masking: a static
/// source passes the records' own masks; a dynamic one (after the data branch's
/// wb::applyMlmMasking, core/data/mlmmasking.h) draws new masks for the same sequences each
/// epoch, then fills the same batch. Thread rules: one consumer thread.
class PretrainingBatchSource
{
public:
    virtual ~PretrainingBatchSource() = default;
    /// Fills `batch`. Training: never returns false. Evaluation: false after the last (partial) batch.
    virtual bool next(PretrainingBatch &batch) = 0;
    /// Starts an evaluation pass again from the first record.
    virtual void reset() = 0;
};

/// Streams records from TFRecord files (expandFilePattern: globs, comma lists, shards) with a
/// shuffle buffer of the options' size in training. Every record is checked
/// (decodeMaskedLmRecord); the first bad one throws wb::Error whose field is
/// "<file>: record <i> at byte <offset>". Memory: the shuffle buffer and one batch.
class PretrainingDataset : public PretrainingBatchSource
{
public:
    /// Opens the files; throws wb::Error when the pattern matches nothing or the set holds no record.
    explicit PretrainingDataset(PretrainingDataOptions options);
    ~PretrainingDataset() override;
    bool next(PretrainingBatch &batch) override;
    void reset() override;
    /// Reads the next record (training: shuffled and repeating; evaluation: false at the end).
    bool nextRecord(MaskedLmRecord &r);
    const std::vector<std::string> &files() const;
    /// Records per batch (the options').
    int64_t batchSize() const;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

/// Static masking: the records' own masked_lm_* (create_pretraining_data.py's). Throws
/// wb::Error naming the file and record for a record without masks.
class StaticMaskingBatches : public PretrainingBatchSource
{
public:
    explicit StaticMaskingBatches(PretrainingDataOptions options);
    bool next(PretrainingBatch &batch) override { return m_data.next(batch); }
    void reset() override { m_data.reset(); }

private:
    PretrainingDataset m_data;
};

/// Dynamic masking (RoBERTa; Hugging Face run_mlm.py): the records hold unmasked sequences
/// (prepare_pretraining --masking=dynamic), and every time a record is read it is masked anew
/// with applyMlmMasking() (google-research's 80/10/10 rule, `masking`'s share and whole-word
/// option) — so each epoch sees other masks of the same text. The masks come from this
/// source's own std::mt19937_64, seeded from `seed` (never from a global generator): the same
/// seed and data give the same masks. reset() (evaluation) seeds it again, so every
/// evaluation pass scores the same masks and its losses compare. A record that carries masks
/// is masked anew too. Throws wb::Error as PretrainingDataset, and naming the vocab file when
/// it has no [MASK]. Thread rules: one consumer thread.
class DynamicMaskingBatches : public PretrainingBatchSource
{
public:
    DynamicMaskingBatches(PretrainingDataOptions options, Vocab vocab, MlmMaskingOptions masking);
    bool next(PretrainingBatch &batch) override;
    void reset() override;

private:
    PretrainingDataset m_data;
    Vocab m_vocab;
    MlmMaskingOptions m_masking;
    uint64_t m_seed;
    std::mt19937_64 m_rng;
};

/// Appends `r` as row `batch.size` of `batch` (sizes from the record) and increments size.
void appendToBatch(PretrainingBatch &batch, const MaskedLmRecord &r);

} // namespace wb
