// SPDX-License-Identifier: Apache-2.0
// Fuzzes the pretraining record codec (core/data/pretrainingrecord.h): any bytes as a
// tf.train.Example with google-research's pretraining features; an accepted record keeps its
// values through encode → decode. The first byte picks L, P and whether masks are required.
#include "core/data/pretrainingrecord.h"
#include "core/util/error.h"

#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    wb::PretrainingRecordSpec spec;
    spec.max_seq_length = 1 + (data[0] & 15);
    spec.max_predictions_per_seq = 1 + ((data[0] >> 4) & 7);
    spec.require_masked_lm = (data[0] & 128) != 0;
    spec.vocab_size = 100;
    const std::string_view payload(reinterpret_cast<const char *>(data + 1), size - 1);
    try {
        wb::PretrainingRecord r;
        wb::decodePretrainingRecord(payload, spec, r);
        if (r.input_ids.size() != size_t(spec.max_seq_length) || r.segment_ids.size() != r.input_ids.size())
            std::abort();
        if (r.has_masked_lm && r.masked_lm_weights.size() != size_t(spec.max_predictions_per_seq))
            std::abort();
        wb::PretrainingRecord back;
        wb::decodePretrainingRecord(wb::encodePretrainingRecord(r), spec, back);
        if (back.input_ids != r.input_ids || back.input_mask != r.input_mask || back.segment_ids != r.segment_ids
            || back.masked_lm_positions != r.masked_lm_positions || back.masked_lm_ids != r.masked_lm_ids
            || back.masked_lm_weights != r.masked_lm_weights || back.next_sentence_labels != r.next_sentence_labels
            || back.has_masked_lm != r.has_masked_lm)
            std::abort(); // encode → decode keeps every value
    } catch (const wb::Error &e) {
        if (std::string(e.what()).empty())
            std::abort();
    }
    return 0;
}
