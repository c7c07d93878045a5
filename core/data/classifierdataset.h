// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// One batch of classifier examples, row-major, ready for torch::from_blob.
///
/// Shapes: input_ids, input_mask, segment_ids are [size × seq_length] int64;
/// label_ids is [size] int64 (classification) or label_values [size] float (regression,
/// label_type float); label_sets [size × num_labels] float 0/1 (multi-label: the multi-hot
/// label_ids, the binary cross-entropy's targets; label_ids then stays empty); weights [size]
/// float when the records carry `weight`, else empty.
struct ClassifierBatch
{
    int64_t size = 0;
    int64_t seq_length = 0;
    std::vector<int64_t> input_ids;
    std::vector<int64_t> input_mask;
    std::vector<int64_t> segment_ids;
    std::vector<int64_t> label_ids;
    std::vector<float> label_values;
    std::vector<float> label_sets;
    std::vector<float> weights;
    /// Distillation (DatasetOptions::teacher_outputs > 0): the teacher's logits, [size × teacher_outputs]
    /// float, and each row's has_label (1 gold label, 0 transfer text) as float [size]; else empty.
    std::vector<float> teacher_logits;
    std::vector<float> has_label;
    /// Each row's record index: its 0-based position among all records of the files in
    /// reading order (before sharding and shuffling; training dynamics, issue 46). [size].
    std::vector<int64_t> record_indices;
};

/// How to read a classifier TFRecord set (official/legacy/bert/input_pipeline.py create_classifier_dataset).
struct DatasetOptions
{
    std::string pattern;            ///< file, glob, or comma-separated list of either
    int64_t max_seq_length = 128;   ///< feature length of input_ids/input_mask/segment_ids
    int64_t num_labels = 2;         ///< label_ids must be in [0, num_labels) (classification)
    bool float_labels = false;      ///< label_type float (regression)
    bool multi_label = false;       ///< problem_type multi_label_classification: multi-hot label_ids
    bool has_sample_weights = false;///< parse the float `weight` feature
    int64_t teacher_outputs = 0;    ///< distillation: parse `teacher_logits` (this many floats) and `has_label`
    int64_t vocab_size = 0;         ///< input_ids must be < vocab_size (0: unchecked)
    int64_t type_vocab_size = 0;    ///< segment_ids must be < type_vocab_size (0: unchecked)
    int64_t batch_size = 32;        ///< per-replica batch
    bool training = false;          ///< true: shuffle, repeat forever, drop_remainder
    int64_t shuffle_buffer = 100;   ///< records in the shuffle buffer (TF uses 100)
    uint64_t seed = 42;             ///< shuffle seed
    int num_shards = 1;             ///< multi-worker: this worker reads every num_shards-th record
    int shard_index = 0;
    std::optional<int64_t> take;    ///< use only the first N records (--train_data_size)
};

/// Streams batches from TFRecord files with bounded memory and a prefetch thread.
///
/// Every record is checked against the options (feature presence, lengths, label range,
/// id ranges); the first bad record throws wb::Error naming file, record index and byte
/// offset. Thread rules: one consumer thread calls next(); the prefetch thread is internal.
class ClassifierDataset
{
public:
    /// Opens the files (throws wb::Error when the pattern matches nothing).
    explicit ClassifierDataset(DatasetOptions options);
    ~ClassifierDataset();

    /// Fills `batch` with the next batch. Training: never returns false (repeats).
    /// Evaluation: returns false after the last (possibly partial) batch.
    bool next(ClassifierBatch &batch);

    /// Restarts an evaluation pass from the first record.
    void reset();

    /// Returns the resolved file list, in reading order.
    const std::vector<std::string> &files() const;

    /// Counts the records of the files (reads framing only; verifies CRCs).
    int64_t countRecords() const;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

/// Expands a TF-style file spec into file names. A spec (or a list entry) that names an
/// existing file is taken literally, whatever characters it holds; otherwise the spec is a
/// comma-separated list ("\," is a comma inside a name) of files and glob(3) patterns
/// (each pattern's matches sorted; "\[" "\*" "\?" are literal). Throws wb::Error naming the
/// entry when a pattern matches nothing (the hint says how to escape), a file is missing or
/// a directory. Thread-safe.
std::vector<std::string> expandFilePattern(const std::string &spec);

} // namespace wb
