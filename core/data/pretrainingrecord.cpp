// SPDX-License-Identifier: Apache-2.0
#include "core/data/pretrainingrecord.h"

#include "core/data/pretrainingdataset.h"

namespace wb {

// One codec of the format: the pretraining run's (encodeMaskedLmRecord/decodeMaskedLmRecord,
// core/data/pretrainingdataset.h). These are its names in prepare_pretraining's terms.

std::string encodePretrainingRecord(const PretrainingRecord &r)
{
    MaskedLmRecord m;
    m.input_ids = r.input_ids;
    m.input_mask = r.input_mask;
    m.segment_ids = r.segment_ids;
    m.has_masks = r.has_masked_lm;
    m.masked_lm_positions = r.masked_lm_positions;
    m.masked_lm_ids = r.masked_lm_ids;
    m.masked_lm_weights = r.masked_lm_weights;
    m.next_sentence_label = r.next_sentence_labels;
    return encodeMaskedLmRecord(m);
}

void decodePretrainingRecord(std::string_view payload, const PretrainingRecordSpec &spec, PretrainingRecord &r)
{
    MaskedLmSpec s;
    s.max_seq_length = spec.max_seq_length;
    s.max_predictions_per_seq = spec.max_predictions_per_seq;
    s.vocab_size = spec.vocab_size;
    s.type_vocab_size = 2; // segment ids 0 (A) and 1 (B), as create_pretraining_data.py writes
    s.masks_required = spec.require_masked_lm;
    MaskedLmRecord m;
    decodeMaskedLmRecord(payload, s, m);
    r.input_ids = std::move(m.input_ids);
    r.input_mask = std::move(m.input_mask);
    r.segment_ids = std::move(m.segment_ids);
    r.has_masked_lm = m.has_masks;
    if (m.has_masks) {
        r.masked_lm_positions = std::move(m.masked_lm_positions);
        r.masked_lm_ids = std::move(m.masked_lm_ids);
        r.masked_lm_weights = std::move(m.masked_lm_weights);
    } else {
        r.masked_lm_positions.clear();
        r.masked_lm_ids.clear();
        r.masked_lm_weights.clear();
    }
    r.next_sentence_labels = m.next_sentence_label;
}

} // namespace wb
