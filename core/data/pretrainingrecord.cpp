// SPDX-License-Identifier: Apache-2.0
#include "core/data/pretrainingrecord.h"

#include "core/data/example.pb.h"
#include "core/data/examplecodec.h"
#include "core/util/error.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace wb {

namespace {

void putInt64(tensorflow::Features &f, const char *name, const std::vector<int64_t> &values)
{
    auto *list = (*f.mutable_feature())[name].mutable_int64_list();
    list->mutable_value()->Add(values.begin(), values.end());
}

const tensorflow::Feature &need(const tensorflow::Example &ex, const std::string &name, const std::string &expected)
{
    const auto &map = ex.features().feature();
    const auto it = map.find(name);
    if (it == map.end())
        throw Error({}, "feature '" + name + "' is missing (expected " + expected + "); the record has "
                            + describeFeatures(ex),
                    "Write the records with 'bert-workbench-cli prepare_pretraining' or google-research/bert's "
                    "create_pretraining_data.py.");
    return it->second;
}

void readInt64(const tensorflow::Example &ex, const std::string &name, int64_t length, std::vector<int64_t> &out)
{
    const std::string expected = "int64_list of " + std::to_string(length) + " values";
    const tensorflow::Feature &f = need(ex, name, expected);
    if (f.kind_case() != tensorflow::Feature::kInt64List)
        throw Error({}, "feature '" + name + "' is not an int64_list (expected " + expected + ")");
    const auto &v = f.int64_list().value();
    if (v.size() != length)
        throw Error({}, "feature '" + name + "' has " + std::to_string(v.size()) + " values, expected " + expected,
                    "Use the input_meta_data.json written together with these records.");
    out.assign(v.begin(), v.end());
}

} // namespace

std::string encodePretrainingRecord(const PretrainingRecord &r)
{
    tensorflow::Example ex;
    auto &f = *ex.mutable_features();
    putInt64(f, "input_ids", r.input_ids);
    putInt64(f, "input_mask", r.input_mask);
    putInt64(f, "segment_ids", r.segment_ids);
    if (r.has_masked_lm) {
        putInt64(f, "masked_lm_positions", r.masked_lm_positions);
        putInt64(f, "masked_lm_ids", r.masked_lm_ids);
        auto *w = (*f.mutable_feature())["masked_lm_weights"].mutable_float_list();
        w->mutable_value()->Add(r.masked_lm_weights.begin(), r.masked_lm_weights.end());
    }
    (*f.mutable_feature())["next_sentence_labels"].mutable_int64_list()->add_value(r.next_sentence_labels);
    std::string out;
    {
        google::protobuf::io::StringOutputStream stream(&out);
        google::protobuf::io::CodedOutputStream coded(&stream);
        coded.SetSerializationDeterministic(true);
        ex.SerializeToCodedStream(&coded);
    }
    return out;
}

void decodePretrainingRecord(std::string_view payload, const PretrainingRecordSpec &spec, PretrainingRecord &r)
{
    const tensorflow::Example ex = parseExample(payload);
    const int64_t L = spec.max_seq_length, P = spec.max_predictions_per_seq;
    readInt64(ex, "input_ids", L, r.input_ids);
    readInt64(ex, "input_mask", L, r.input_mask);
    readInt64(ex, "segment_ids", L, r.segment_ids);
    for (int64_t i = 0; i < L; ++i) {
        const int64_t id = r.input_ids[size_t(i)], m = r.input_mask[size_t(i)], s = r.segment_ids[size_t(i)];
        if (id < 0 || (spec.vocab_size > 0 && id >= spec.vocab_size))
            throw Error({}, "input_ids[" + std::to_string(i) + "] = " + std::to_string(id)
                                + " is outside [0, vocab_size = " + std::to_string(spec.vocab_size) + ")",
                        "The records were made with another vocab.txt than the model's.");
        if (m != 0 && m != 1)
            throw Error({}, "input_mask[" + std::to_string(i) + "] = " + std::to_string(m) + " is not 0 or 1");
        if (s != 0 && s != 1)
            throw Error({}, "segment_ids[" + std::to_string(i) + "] = " + std::to_string(s) + " is not 0 or 1");
    }
    const auto &map = ex.features().feature();
    r.has_masked_lm = map.count("masked_lm_positions") || map.count("masked_lm_ids") || map.count("masked_lm_weights");
    if (spec.require_masked_lm && !r.has_masked_lm)
        throw Error({}, "the record has no masked_lm_positions / masked_lm_ids / masked_lm_weights (dynamic "
                        "masking records) but static masking was expected",
                    "Use the input_meta_data.json written together with these records (\"masking\": \"dynamic\").");
    if (r.has_masked_lm) {
        readInt64(ex, "masked_lm_positions", P, r.masked_lm_positions);
        readInt64(ex, "masked_lm_ids", P, r.masked_lm_ids);
        const std::string expected = "float_list of " + std::to_string(P) + " values";
        const tensorflow::Feature &w = need(ex, "masked_lm_weights", expected);
        if (w.kind_case() != tensorflow::Feature::kFloatList || w.float_list().value_size() != P)
            throw Error({}, "feature 'masked_lm_weights' is not a " + expected);
        r.masked_lm_weights.assign(w.float_list().value().begin(), w.float_list().value().end());
        for (int64_t k = 0; k < P; ++k) {
            const int64_t pos = r.masked_lm_positions[size_t(k)], id = r.masked_lm_ids[size_t(k)];
            const float weight = r.masked_lm_weights[size_t(k)];
            if (weight != 0.0f && weight != 1.0f)
                throw Error({}, "masked_lm_weights[" + std::to_string(k) + "] = " + std::to_string(weight)
                                    + " is not 0 or 1");
            if (pos < 0 || pos >= L)
                throw Error({}, "masked_lm_positions[" + std::to_string(k) + "] = " + std::to_string(pos)
                                    + " is outside the sequence [0, max_seq_length = " + std::to_string(L) + ")");
            if (id < 0 || (spec.vocab_size > 0 && id >= spec.vocab_size))
                throw Error({}, "masked_lm_ids[" + std::to_string(k) + "] = " + std::to_string(id)
                                    + " is outside [0, vocab_size = " + std::to_string(spec.vocab_size) + ")");
        }
    } else {
        r.masked_lm_positions.clear();
        r.masked_lm_ids.clear();
        r.masked_lm_weights.clear();
    }
    std::vector<int64_t> nsp;
    readInt64(ex, "next_sentence_labels", 1, nsp);
    if (nsp[0] != 0 && nsp[0] != 1)
        throw Error({}, "next_sentence_labels = " + std::to_string(nsp[0]) + " is not 0 or 1");
    r.next_sentence_labels = nsp[0];
}

} // namespace wb
