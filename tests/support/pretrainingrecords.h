// SPDX-License-Identifier: Apache-2.0
// Test support: masked-LM pretraining records with the features of google-research/bert's
// create_pretraining_data.py, written with the product's TFRecord/Example writer.
#pragma once

#include "core/data/pretrainingdataset.h"
#include "core/data/tfrecordwriter.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace wbtest {

/// A record of the contract's features (L = max_seq_length, P = max_predictions_per_seq): sequence k
/// is [CLS] t+1 … t+len [SEP] padding, about 15 % of its tokens masked ([MASK] = 4), next_sentence_label k % 2.
inline wb::MaskedLmRecord makeMaskedLmRecord(int64_t k, int64_t L, int64_t P, int64_t vocab, std::mt19937_64 &rng)
{
    wb::MaskedLmRecord r;
    const int64_t len = L - 2 - k % 3;
    r.input_ids.assign(size_t(L), 0);
    r.input_mask.assign(size_t(L), 0);
    r.segment_ids.assign(size_t(L), 0);
    r.input_ids[0] = 2; // [CLS]
    // Three families of sequences; a token depends on its position and family only, so a model
    // that learns it predicts held-out masks too (the MLM loss falls on evaluation data).
    const int64_t startTok = 5 + (k % 3) * std::max<int64_t>(1, (vocab - L - 5) / 3);
    for (int64_t i = 1; i <= len; ++i)
        r.input_ids[size_t(i)] = startTok + i;
    r.input_ids[size_t(len + 1)] = 3; // [SEP]
    for (int64_t i = 0; i <= len + 1; ++i)
        r.input_mask[size_t(i)] = 1;
    std::vector<int64_t> candidates;
    for (int64_t i = 1; i <= len; ++i)
        candidates.push_back(i);
    std::shuffle(candidates.begin(), candidates.end(), rng);
    const int64_t n = std::min<int64_t>(P - 1, std::max<int64_t>(1, len * 15 / 100 + 1));
    std::vector<int64_t> chosen(candidates.begin(), candidates.begin() + n);
    std::sort(chosen.begin(), chosen.end());
    for (int64_t pos : chosen) {
        r.masked_lm_positions.push_back(pos);
        r.masked_lm_ids.push_back(r.input_ids[size_t(pos)]);
        r.masked_lm_weights.push_back(1.0f);
        r.input_ids[size_t(pos)] = 4; // [MASK]
    }
    while (int64_t(r.masked_lm_positions.size()) < P) {
        r.masked_lm_positions.push_back(0);
        r.masked_lm_ids.push_back(0);
        r.masked_lm_weights.push_back(0.0f);
    }
    r.next_sentence_label = k % 2;
    return r;
}

inline void writeMaskedLmRecords(const std::string &path, int64_t n, int64_t L, int64_t P, int64_t vocab, uint64_t seed = 7)
{
    std::mt19937_64 rng(seed);
    wb::TFRecordWriter w(path);
    for (int64_t k = 0; k < n; ++k)
        w.write(wb::encodeMaskedLmRecord(makeMaskedLmRecord(k, L, P, vocab, rng)));
    w.commit();
}


} // namespace wbtest
