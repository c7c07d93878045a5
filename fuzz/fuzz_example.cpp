// SPDX-License-Identifier: Apache-2.0
// Fuzzes tf.train.Example → classifier record: decodeClassifierRecord against a RecordSpec
// taken from the first 4 bytes (max_seq_length 1..64, num_labels 1..8, float labels, sample
// weights, vocab/type_vocab bounds on or off); the rest is the serialized Example.
#include "core/data/example.pb.h"
#include "core/data/examplecodec.h"
#include "core/util/error.h"

#include <cstdlib>
#include <algorithm>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    wb::RecordSpec spec;
    spec.max_seq_length = 1 + data[0] % 64;
    spec.num_labels = 1 + data[1] % 8;
    spec.float_labels = data[2] & 1;
    spec.has_sample_weights = data[2] & 2;
    spec.vocab_size = (data[2] & 4) ? 1 + data[3] : 0;
    spec.type_vocab_size = (data[2] & 8) ? 2 : 0;
    spec.multi_label = !spec.float_labels && (data[2] & 16);
    const std::string_view payload(reinterpret_cast<const char *>(data + 4), size - 4);
    try {
        wb::ClassifierRecord record;
        wb::decodeClassifierRecord(payload, spec, record);
        if (int64_t(record.input_ids.size()) != spec.max_seq_length || record.input_mask.size() != record.input_ids.size()
            || record.segment_ids.size() != record.input_ids.size())
            std::abort(); // accepted a record of the wrong shape
        if (!spec.float_labels && (record.label_id < 0 || record.label_id >= spec.num_labels))
            std::abort(); // accepted a label out of range
        if (spec.multi_label
            && (int64_t(record.label_set.size()) != spec.num_labels
                || std::any_of(record.label_set.begin(), record.label_set.end(), [](int64_t v) { return v != 0 && v != 1; })))
            std::abort(); // accepted a label set that is not multi-hot of num_labels
        (void)wb::encodeClassifierRecord(record);
    } catch (const wb::Error &e) {
        if (std::string(e.what()).empty())
            std::abort();
    }
    try {
        const auto example = wb::parseExample(payload);
        (void)wb::describeFeatures(example);
    } catch (const wb::Error &) {
    }
    return 0;
}
