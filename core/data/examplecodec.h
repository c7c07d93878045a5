// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tensorflow {
class Example;
class Feature;
}

namespace wb {

/// One classifier example as create_finetuning_data.py writes it (official/nlp/data/classifier_data_lib.py file_based_convert_examples_to_features).
///
/// input_ids, input_mask, segment_ids: int64 × max_seq_length. label_ids is int64[1]
/// (classification), float[1] (regression, `float_label`) or int64[num_labels] multi-hot 0/1
/// (multi-label, problem_type multi_label_classification: `label_set` non-empty). A plain value.
struct ClassifierRecord
{
    std::vector<int64_t> input_ids;
    std::vector<int64_t> input_mask;
    std::vector<int64_t> segment_ids;
    int64_t label_id = 0;          ///< class index (classification)
    float label_value = 0.0f;      ///< raw label (regression)
    bool float_label = false;      ///< label_ids is a FloatList
    /// Multi-label: label_set[k] is 1 when the text carries label k, else 0 (length num_labels);
    /// empty for single-label and regression records. Encoded as label_ids int64[num_labels].
    std::vector<int64_t> label_set;
    std::optional<float> weight;   ///< `weight` feature (has_sample_weights)
    /// Distillation (docs/distillation.md): the teacher's logits for this text, float[num_labels]
    /// (regression: its value, float[1]); empty: none (the feature is not written).
    std::vector<float> teacher_logits;
    /// Distillation: 1 when label_ids is a gold label, 0 for a transfer text, whose label_ids is
    /// the teacher's prediction and which the hard-label term leaves out. Written as the int64[1]
    /// feature `has_label` only when 0 or when teacher_logits is set; read as 1 when absent.
    int64_t has_label = 1;
    int64_t is_real_example = 1;   ///< always written as [1]
    std::optional<int64_t> example_id; ///< written as [id] when set
};

/// What a record must look like (from the meta data and the model config).
struct RecordSpec
{
    int64_t max_seq_length = 128;  ///< exact length of the three sequence features
    int64_t num_labels = 2;        ///< label_ids in [0, num_labels) unless float_labels
    bool float_labels = false;     ///< label_type float: label_ids must be a FloatList
    /// problem_type multi_label_classification: label_ids must be int64[num_labels], each 0 or 1
    bool multi_label = false;
    bool has_sample_weights = false; ///< the float `weight` feature must be present
    /// Distillation: the float `teacher_logits` feature must be present with this many finite
    /// values (num_labels; 1 for regression); 0: not read.
    int64_t teacher_outputs = 0;
    int64_t vocab_size = 0;        ///< input_ids < vocab_size (0: unchecked)
    int64_t type_vocab_size = 0;   ///< segment_ids < type_vocab_size (0: unchecked)
};

/// Serializes `record` as a tf.train.Example with the features input_ids, input_mask,
/// segment_ids, label_ids, is_real_example (+ weight, example_id, teacher_logits and has_label
/// when set).
std::string encodeClassifierRecord(const ClassifierRecord &record);

/// Parses a serialized tf.train.Example into `record` and checks it against `spec`:
/// the features exist with the right kind and length, label in range, ids in range.
/// Extra features are ignored. Throws wb::Error with an empty field and a message naming
/// the feature and the value (callers prefix the record location). Thread-safe.
void decodeClassifierRecord(std::string_view payload, const RecordSpec &spec, ClassifierRecord &record);

class TFRecordReader;

/// decodeClassifierRecord of `payload`, the record `reader` last returned; a wb::Error is
/// thrown again with the field reader.location() ("<file>: record <i> at byte <offset>"), its
/// message and hint kept.
void decodeClassifierRecordAt(const TFRecordReader &reader, std::string_view payload, const RecordSpec &spec,
                              ClassifierRecord &record);

/// Parses a serialized tf.train.Example; throws wb::Error when it is not one.
tensorflow::Example parseExample(std::string_view payload);

/// Returns a one-line description of the features of `example`, e.g.
/// "input_ids: int64[128], label_ids: float[1]" (sorted by name), for error messages.
std::string describeFeatures(const tensorflow::Example &example);

/// Returns the kind of `feature` as the messages name it: "bytes_list", "float_list",
/// "int64_list", or "empty feature".
const char *featureKindName(const tensorflow::Feature &feature);

/// Returns the feature `name` of `example`, or null when it has none.
const tensorflow::Feature *findFeature(const tensorflow::Example &example, const std::string &name);

/// Returns the feature `name` of `example`. Throws wb::Error (empty field, hint `hint`) when
/// it is missing: "feature 'name' is missing (expected <what>); the record has <describeFeatures>".
/// `hint` builds the error's hint (the wording in force names commands and options), called
/// only when the feature is missing: records that decode well pay nothing for it.
const tensorflow::Feature &requireFeature(const tensorflow::Example &example, const std::string &name,
                                          const std::string &what, std::string (*hint)());

/// The hints of readInt64Feature's three errors (each may be empty).
struct FeatureHints
{
    std::string missing; ///< the feature is missing
    std::string kind;    ///< the feature is not an int64_list
    std::string length;  ///< the feature has another number of values
};

/// Reads the int64_list feature `name` of `example`, which must hold exactly `length` values,
/// into `out`; `lengthName` names the length in the messages ("max_seq_length"). Throws
/// wb::Error (empty field; callers prefix the record location) when it is missing, of another
/// kind ("feature 'input_ids' is a float_list, expected an int64_list of max_seq_length = 128")
/// or of another length ("feature 'input_ids' has 64 values but max_seq_length is 128").
/// `hints` builds the errors' hints, called only on an error. Thread-safe.
void readInt64Feature(const tensorflow::Example &example, const std::string &name, int64_t length,
                      const char *lengthName, FeatureHints (*hints)(), std::vector<int64_t> &out);

/// The hints of checkSequenceIds' three errors (each may be empty).
struct SequenceHints
{
    std::string vocab;   ///< an input id outside [0, vocab_size)
    std::string mask;    ///< an input_mask value other than 0 and 1
    std::string segment; ///< a segment id outside [0, type_vocab_size)
};

/// Checks the first `length` positions of a record's three sequences (each holds at least
/// `length` values): input_ids in [0, vocabSize), input_mask 0 or 1, segment_ids in
/// [0, typeVocabSize) (a size of 0: unchecked). Throws wb::Error (empty field; callers prefix
/// the record location) at the first bad value, e.g. "input_ids[3] = 40000 is outside
/// [0, vocab_size = 30522)"; `hints` builds the errors' hints, called only on an error.
/// Thread-safe.
void checkSequenceIds(const std::vector<int64_t> &inputIds, const std::vector<int64_t> &inputMask,
                      const std::vector<int64_t> &segmentIds, int64_t length, int64_t vocabSize,
                      int64_t typeVocabSize, SequenceHints (*hints)());

} // namespace wb
