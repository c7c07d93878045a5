// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/tokenize/vocab.h"

#include <cstdint>
#include <random>
#include <vector>

namespace wb {

/// How applyMlmMasking() chooses the positions to predict (google-research/bert
/// create_pretraining_data.py's flags of the same names).
struct MlmMaskingOptions
{
    double masked_lm_prob = 0.15;         ///< share of the real tokens (not [CLS]/[SEP]/padding) to predict
    int64_t max_predictions_per_seq = 20; ///< P: at most this many predictions, the length of the masked_lm_* lists
    bool whole_word_masking = false;      ///< mask every piece of a word ("##" continuation pieces) together
};

/// One masked sequence. `input_ids` has the length L of the input; the three masked_lm_*
/// lists have length P (max_predictions_per_seq): the predictions sorted by position, then
/// zero padding (position 0, id 0, weight 0.0). A plain value.
struct MlmMasked
{
    std::vector<int64_t> input_ids;           ///< the masked sequence (80 % [MASK], 10 % random, 10 % kept)
    std::vector<int64_t> masked_lm_positions; ///< int64[P]: indexes into input_ids
    std::vector<int64_t> masked_lm_ids;       ///< int64[P]: the original token ids at those positions
    std::vector<float> masked_lm_weights;     ///< float[P]: 1.0 for a prediction, 0.0 for padding
};

/// Masks one packed sequence as google-research/bert's create_masked_lm_predictions does.
///
/// `input_ids`, `input_mask`: one sequence of length L ([CLS] … [SEP] (… [SEP]) then zero
/// padding; input_mask 1 for a real token, 0 for padding). The candidates are the positions
/// with input_mask 1 whose token is neither [CLS] nor [SEP]; with `whole_word_masking` a
/// "##" piece joins the word of the position before it. The candidate words are shuffled and
/// taken in that order while they fit into num_to_predict = min(P, max(1, round(n ×
/// masked_lm_prob))), n the number of candidate tokens (round half to even, as Python 3's
/// round()); a word that does not fit is skipped. Each chosen position becomes [MASK] with
/// probability 0.8, else keeps its token (0.1) or becomes a uniformly drawn vocabulary id (0.1).
/// A sequence without candidates gets no prediction.
///
/// Deterministic: the same `rng` state gives the same result; the draws are made from rng()
/// directly (not std::*_distribution), so they are the same with every standard library.
/// Thread rules: pure apart from `rng`; one rng per thread.
/// Throws wb::Error naming the vocab file when it has no [MASK], and for inputs of unequal
/// length or ids outside the vocabulary.
MlmMasked applyMlmMasking(const std::vector<int64_t> &input_ids, const std::vector<int64_t> &input_mask,
                          const Vocab &vocab, const MlmMaskingOptions &options, std::mt19937_64 &rng);

/// Returns a uniform double in [0, 1) from 53 bits of one rng() draw.
inline double mlmUniform(std::mt19937_64 &rng)
{
    return double(rng() >> 11) * (1.0 / 9007199254740992.0);
}

/// Returns a uniform integer in [0, n) (n > 0) from one rng() draw (modulo; the bias is
/// below 2^-40 for every n used here).
inline uint64_t mlmBelow(std::mt19937_64 &rng, uint64_t n)
{
    return rng() % n;
}

/// Returns the number of predictions applyMlmMasking() makes for `candidates` candidate tokens:
/// min(P, max(1, round(candidates × masked_lm_prob))), 0 when there is no candidate.
int64_t mlmNumToPredict(int64_t candidates, const MlmMaskingOptions &options);

} // namespace wb
