// SPDX-License-Identifier: Apache-2.0
#include "core/data/examplecodec.h"

#include "core/config/optionwords.h"
#include "core/data/example.pb.h"
#include "core/data/tfrecordreader.h"
#include "core/util/error.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace wb {

namespace {

void setInt64(tensorflow::Features &f, const std::string &name, const std::vector<int64_t> &values)
{
    auto *list = (*f.mutable_feature())[name].mutable_int64_list();
    list->mutable_value()->Add(values.begin(), values.end());
}

void setInt64(tensorflow::Features &f, const std::string &name, int64_t value)
{
    (*f.mutable_feature())[name].mutable_int64_list()->add_value(value);
}

void setFloat(tensorflow::Features &f, const std::string &name, float value)
{
    (*f.mutable_feature())[name].mutable_float_list()->add_value(value);
}

/// The hints of a bad record, in the wording in force (the command's and the option's names
/// follow it); built only when a record is bad.
FeatureHints recordHints()
{
    FeatureHints hints;
    hints.missing = "Write the records with create_finetuning_data.py or " + commandName("prepare") + ".";
    hints.length = "Use the input_meta_data.json written together with these records, or re-create the "
                   "records with the wanted "
                   + optionName("max_seq_length") + ".";
    return hints;
}

std::string missingRecordHint() { return recordHints().missing; }

/// The hints of a record's out-of-range ids (a bad input_mask value has none).
SequenceHints classifierSequenceHints()
{
    return {"The records were made with a different vocab.txt than the model's bert_config.json.", {},
            "Check type_vocab_size in bert_config.json."};
}

const tensorflow::Feature &require(const tensorflow::Example &ex, const std::string &name, const char *what)
{
    return requireFeature(ex, name, what, missingRecordHint);
}

void readSequence(const tensorflow::Example &ex, const std::string &name, const RecordSpec &spec,
                  std::vector<int64_t> &out)
{
    readInt64Feature(ex, name, spec.max_seq_length, "max_seq_length", recordHints, out);
}

/// label_ids of a regression record: float_list[1].
void readFloatLabel(const tensorflow::Feature &label, ClassifierRecord &r)
{
    if (label.kind_case() != tensorflow::Feature::kFloatList)
        throw Error({}, std::string("feature 'label_ids' is a ") + featureKindName(label)
                            + ", but label_type is float (regression) in the meta data",
                    "Use the input_meta_data.json written together with these records.");
    if (label.float_list().value_size() != 1)
        throw Error({}, "feature 'label_ids' has " + std::to_string(label.float_list().value_size())
                            + " values, expected 1");
    r.label_value = label.float_list().value(0);
}

/// label_ids of a multi-label record: int64_list[num_labels], each value 0 or 1.
void readLabelSet(const tensorflow::Feature &label, const RecordSpec &spec, ClassifierRecord &r)
{
    const std::string hint = "Use the input_meta_data.json written together with these records: "
                             "problem_type multi_label_classification needs label_ids of num_labels 0/1 values.";
    if (label.kind_case() != tensorflow::Feature::kInt64List)
        throw Error({}, std::string("feature 'label_ids' is a ") + featureKindName(label)
                            + ", but problem_type is multi_label_classification (int64_list of 0/1 values)",
                    hint);
    const auto &values = label.int64_list().value();
    if (values.size() != spec.num_labels)
        throw Error({}, "feature 'label_ids' has " + std::to_string(values.size()) + " values, expected num_labels = "
                            + std::to_string(spec.num_labels) + " (one 0/1 value per label)",
                    hint);
    r.label_set.assign(values.begin(), values.end());
    for (size_t k = 0; k < r.label_set.size(); ++k)
        if (r.label_set[k] != 0 && r.label_set[k] != 1)
            throw Error({}, "label_ids[" + std::to_string(k) + "] = " + std::to_string(r.label_set[k])
                                + ", expected 0 or 1 (multi-label records are multi-hot)",
                        hint);
    r.label_id = 0;
    r.label_value = 0.0f;
}

/// label_ids of a single-label record: int64_list[1] in [0, num_labels).
void readClassLabel(const tensorflow::Feature &label, const RecordSpec &spec, ClassifierRecord &r)
{
    if (label.kind_case() != tensorflow::Feature::kInt64List)
        throw Error({}, std::string("feature 'label_ids' is a ") + featureKindName(label)
                            + ", but the meta data describe a classification task with int labels",
                    "Use the input_meta_data.json written together with these records (regression "
                    "data needs label_type float and num_labels 1).");
    if (label.int64_list().value_size() != 1)
        throw Error({}, "feature 'label_ids' has " + std::to_string(label.int64_list().value_size())
                            + " values, expected 1",
                    label.int64_list().value_size() == spec.num_labels
                        ? "The records look multi-hot (one value per label): set problem_type "
                          "multi_label_classification in input_meta_data.json."
                        : std::string());
    r.label_id = label.int64_list().value(0);
    if (r.label_id < 0 || r.label_id >= spec.num_labels)
        throw Error({}, "label_ids = " + std::to_string(r.label_id) + " is outside [0, num_labels = "
                            + std::to_string(spec.num_labels) + ")",
                    "num_labels in input_meta_data.json must match the labels in the records.");
    r.label_value = float(r.label_id);
}

void readLabel(const tensorflow::Example &ex, const RecordSpec &spec, ClassifierRecord &r)
{
    const char *what = spec.float_labels ? "float_list[1]" : spec.multi_label ? "int64_list[num_labels]" : "int64_list[1]";
    const tensorflow::Feature &label = require(ex, "label_ids", what);
    r.float_label = spec.float_labels;
    r.label_set.clear();
    if (spec.float_labels)
        readFloatLabel(label, r);
    else if (spec.multi_label)
        readLabelSet(label, spec, r);
    else
        readClassLabel(label, spec, r);
}

std::string distillationHint()
{
    return "Records with teacher outputs are written by " + commandName("distil")
           + " (docs/distillation.md); distil again from the teacher run to get whole ones.";
}

// The distillation features: teacher_logits float[teacher_outputs], finite; has_label 0 or 1.
void readDistillation(const tensorflow::Example &ex, const RecordSpec &spec, ClassifierRecord &r)
{
    r.teacher_logits.clear();
    r.has_label = 1;
    if (spec.teacher_outputs <= 0)
        return;
    const std::string what = "float_list[" + std::to_string(spec.teacher_outputs) + "]";
    const tensorflow::Feature *t = &requireFeature(ex, "teacher_logits", what, distillationHint);
    if (t->kind_case() != tensorflow::Feature::kFloatList || t->float_list().value_size() != spec.teacher_outputs)
        throw Error({}, std::string("feature 'teacher_logits' is a ") + featureKindName(*t) + " of "
                            + std::to_string(t->kind_case() == tensorflow::Feature::kFloatList ? t->float_list().value_size() : 0)
                            + " values, expected " + what + " (one per label)",
                    distillationHint());
    for (float v : t->float_list().value()) {
        if (!std::isfinite(v))
            throw Error({}, "feature 'teacher_logits' holds a value that is not a finite number", distillationHint());
        r.teacher_logits.push_back(v);
    }
    if (const tensorflow::Feature *h = findFeature(ex, "has_label")) {
        if (h->kind_case() != tensorflow::Feature::kInt64List || h->int64_list().value_size() != 1
            || (h->int64_list().value(0) != 0 && h->int64_list().value(0) != 1))
            throw Error({}, "feature 'has_label' must be int64_list[1] holding 0 or 1", distillationHint());
        r.has_label = h->int64_list().value(0);
    }
}

} // namespace

std::string encodeClassifierRecord(const ClassifierRecord &r)
{
    tensorflow::Example ex;
    auto &f = *ex.mutable_features();
    setInt64(f, "input_ids", r.input_ids);
    setInt64(f, "input_mask", r.input_mask);
    setInt64(f, "segment_ids", r.segment_ids);
    if (r.float_label)
        setFloat(f, "label_ids", r.label_value);
    else if (!r.label_set.empty())
        setInt64(f, "label_ids", r.label_set);
    else
        setInt64(f, "label_ids", r.label_id);
    setInt64(f, "is_real_example", r.is_real_example);
    if (r.weight)
        setFloat(f, "weight", *r.weight);
    if (r.example_id)
        setInt64(f, "example_id", *r.example_id);
    if (!r.teacher_logits.empty()) {
        auto &list = *f.mutable_feature()->operator[]("teacher_logits").mutable_float_list();
        for (float v : r.teacher_logits)
            list.add_value(v);
    }
    if (!r.teacher_logits.empty() || r.has_label != 1)
        setInt64(f, "has_label", r.has_label);
    // Deterministic: map entries sorted by key, so equal records give equal bytes.
    std::string out;
    {
        google::protobuf::io::StringOutputStream stream(&out);
        google::protobuf::io::CodedOutputStream coded(&stream);
        coded.SetSerializationDeterministic(true);
        ex.SerializeToCodedStream(&coded);
    }
    return out;
}

tensorflow::Example parseExample(std::string_view payload)
{
    tensorflow::Example ex;
    if (!ex.ParseFromArray(payload.data(), static_cast<int>(payload.size())))
        throw Error({}, "the record is not a serialized tf.train.Example (protobuf parse failed, "
                            + std::to_string(payload.size()) + " bytes)",
                    "The file holds other data than tf.train.Example records.");
    return ex;
}

std::string describeFeatures(const tensorflow::Example &ex)
{
    std::map<std::string, std::string> sorted;
    for (const auto &[name, f] : ex.features().feature()) {
        std::string d;
        switch (f.kind_case()) {
        case tensorflow::Feature::kBytesList: d = "bytes[" + std::to_string(f.bytes_list().value_size()) + "]"; break;
        case tensorflow::Feature::kFloatList: d = "float[" + std::to_string(f.float_list().value_size()) + "]"; break;
        case tensorflow::Feature::kInt64List: d = "int64[" + std::to_string(f.int64_list().value_size()) + "]"; break;
        default: d = "empty"; break;
        }
        sorted[name] = d;
    }
    if (sorted.empty())
        return "no features";
    std::string out;
    for (const auto &[name, d] : sorted)
        out += (out.empty() ? "" : ", ") + name + ": " + d;
    return out;
}

const char *featureKindName(const tensorflow::Feature &f)
{
    switch (f.kind_case()) {
    case tensorflow::Feature::kBytesList: return "bytes_list";
    case tensorflow::Feature::kFloatList: return "float_list";
    case tensorflow::Feature::kInt64List: return "int64_list";
    default: return "empty feature";
    }
}

const tensorflow::Feature *findFeature(const tensorflow::Example &ex, const std::string &name)
{
    const auto &map = ex.features().feature();
    const auto it = map.find(name);
    return it == map.end() ? nullptr : &it->second;
}

namespace {

[[noreturn]] void throwMissing(const tensorflow::Example &ex, const std::string &name, const std::string &what,
                               std::string hint)
{
    throw Error({}, "feature '" + name + "' is missing (expected " + what + "); the record has " + describeFeatures(ex),
                std::move(hint));
}

} // namespace

const tensorflow::Feature &requireFeature(const tensorflow::Example &ex, const std::string &name,
                                          const std::string &what, std::string (*hint)())
{
    const tensorflow::Feature *f = findFeature(ex, name);
    if (!f)
        throwMissing(ex, name, what, hint());
    return *f;
}

void readInt64Feature(const tensorflow::Example &ex, const std::string &name, int64_t length, const char *lengthName,
                      FeatureHints (*hints)(), std::vector<int64_t> &out)
{
    const auto what = [&] { return "int64_list of " + std::string(lengthName) + " = " + std::to_string(length); };
    const tensorflow::Feature *f = findFeature(ex, name);
    if (!f)
        throwMissing(ex, name, what(), hints().missing);
    if (f->kind_case() != tensorflow::Feature::kInt64List)
        throw Error({}, "feature '" + name + "' is a " + featureKindName(*f) + ", expected an " + what(), hints().kind);
    const auto &v = f->int64_list().value();
    if (v.size() != length)
        throw Error({}, "feature '" + name + "' has " + std::to_string(v.size()) + " values but " + lengthName + " is "
                            + std::to_string(length),
                    hints().length);
    out.assign(v.begin(), v.end());
}

void checkSequenceIds(const std::vector<int64_t> &inputIds, const std::vector<int64_t> &inputMask,
                      const std::vector<int64_t> &segmentIds, int64_t length, int64_t vocabSize,
                      int64_t typeVocabSize, SequenceHints (*hints)())
{
    for (int64_t i = 0; i < length; ++i) {
        const int64_t id = inputIds[size_t(i)];
        if (id < 0 || (vocabSize > 0 && id >= vocabSize))
            throw Error({}, "input_ids[" + std::to_string(i) + "] = " + std::to_string(id) + " is outside [0, vocab_size = "
                                + std::to_string(vocabSize) + ")",
                        hints().vocab);
        const int64_t m = inputMask[size_t(i)];
        if (m != 0 && m != 1)
            throw Error({}, "input_mask[" + std::to_string(i) + "] = " + std::to_string(m) + " is not 0 or 1", hints().mask);
        const int64_t s = segmentIds[size_t(i)];
        if (s < 0 || (typeVocabSize > 0 && s >= typeVocabSize))
            throw Error({}, "segment_ids[" + std::to_string(i) + "] = " + std::to_string(s)
                                + " is outside [0, type_vocab_size = " + std::to_string(typeVocabSize) + ")",
                        hints().segment);
    }
}

void decodeClassifierRecord(std::string_view payload, const RecordSpec &spec, ClassifierRecord &r)
{
    const tensorflow::Example ex = parseExample(payload);
    readSequence(ex, "input_ids", spec, r.input_ids);
    readSequence(ex, "input_mask", spec, r.input_mask);
    readSequence(ex, "segment_ids", spec, r.segment_ids);
    checkSequenceIds(r.input_ids, r.input_mask, r.segment_ids, spec.max_seq_length, spec.vocab_size,
                     spec.type_vocab_size, classifierSequenceHints);
    readLabel(ex, spec, r);
    r.weight.reset();
    if (spec.has_sample_weights) {
        const tensorflow::Feature &w = require(ex, "weight", "float_list[1]");
        if (w.kind_case() != tensorflow::Feature::kFloatList || w.float_list().value_size() != 1)
            throw Error({}, std::string("feature 'weight' is a ") + featureKindName(w) + ", expected float_list[1]");
        r.weight = w.float_list().value(0);
    }
    readDistillation(ex, spec, r);
    r.example_id.reset();
    const auto &map = ex.features().feature();
    if (auto it = map.find("example_id"); it != map.end() && it->second.int64_list().value_size() == 1)
        r.example_id = it->second.int64_list().value(0);
}

void decodeClassifierRecordAt(const TFRecordReader &reader, std::string_view payload, const RecordSpec &spec,
                              ClassifierRecord &record)
{
    try {
        decodeClassifierRecord(payload, spec, record);
    } catch (const Error &e) {
        throw Error(reader.location(), e.what(), e.hint());
    }
}

} // namespace wb
