// SPDX-License-Identifier: Apache-2.0
// google-research/bert create_pretraining_data.py create_masked_lm_predictions, on ids.
#include "core/data/mlmmasking.h"

#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace wb {

int64_t mlmNumToPredict(int64_t candidates, const MlmMaskingOptions &options)
{
    if (candidates <= 0)
        return 0;
    // Python 3's round() rounds half to even, as nearbyint does in the default rounding mode.
    const auto wanted = int64_t(std::nearbyint(double(candidates) * options.masked_lm_prob));
    return std::min<int64_t>(options.max_predictions_per_seq, std::max<int64_t>(1, wanted));
}

MlmMasked applyMlmMasking(const std::vector<int64_t> &input_ids, const std::vector<int64_t> &input_mask,
                          const Vocab &vocab, const MlmMaskingOptions &options, std::mt19937_64 &rng)
{
    const std::string where = vocab.path().empty() ? std::string("vocab") : vocab.path();
    const int32_t maskId = vocab.find("[MASK]");
    if (maskId < 0)
        throw Error(where, "the vocabulary has no [MASK] token, which masked-language-model pretraining needs",
                    "Use the vocab.txt of a BERT model (it has [MASK]), or add a line [MASK] to this one.");
    if (input_ids.size() != input_mask.size())
        throw Error("input_mask", "input_ids has " + std::to_string(input_ids.size()) + " values but input_mask "
                                      + std::to_string(input_mask.size()));
    const int32_t cls = vocab.find("[CLS]"), sep = vocab.find("[SEP]");
    const int64_t vocabSize = vocab.size();

    // Candidate words: [first, last] position ranges in sequence order.
    std::vector<std::pair<int64_t, int64_t>> words;
    int64_t candidates = 0;
    for (size_t i = 0; i < input_ids.size(); ++i) {
        const int64_t id = input_ids[i];
        if (input_mask[i] == 0)
            continue;
        if (id < 0 || id >= vocabSize)
            throw Error("input_ids", "id " + std::to_string(id) + " at position " + std::to_string(i)
                                         + " is outside the vocabulary (" + std::to_string(vocabSize) + " tokens)");
        if (id == cls || id == sep)
            continue;
        ++candidates;
        const std::string &token = vocab.token(int32_t(id));
        if (options.whole_word_masking && !words.empty() && words.back().second == int64_t(i) - 1
            && token.size() > 2 && token[0] == '#' && token[1] == '#')
            words.back().second = int64_t(i);
        else
            words.emplace_back(int64_t(i), int64_t(i));
    }
    for (size_t i = words.size(); i > 1; --i)
        std::swap(words[i - 1], words[size_t(mlmBelow(rng, i))]);

    const int64_t numToPredict = mlmNumToPredict(candidates, options);
    MlmMasked out;
    out.input_ids = input_ids;
    std::vector<std::pair<int64_t, int64_t>> predictions; // (position, original id)
    for (const auto &[first, last] : words) {
        if (int64_t(predictions.size()) >= numToPredict)
            break;
        if (int64_t(predictions.size()) + (last - first + 1) > numToPredict)
            continue;
        for (int64_t p = first; p <= last; ++p) {
            int64_t replacement;
            if (mlmUniform(rng) < 0.8)
                replacement = maskId;
            else if (mlmUniform(rng) < 0.5)
                replacement = input_ids[size_t(p)];
            else
                replacement = int64_t(mlmBelow(rng, uint64_t(vocabSize)));
            out.input_ids[size_t(p)] = replacement;
            predictions.emplace_back(p, input_ids[size_t(p)]);
        }
    }
    std::sort(predictions.begin(), predictions.end());
    const auto P = size_t(std::max<int64_t>(0, options.max_predictions_per_seq));
    out.masked_lm_positions.assign(P, 0);
    out.masked_lm_ids.assign(P, 0);
    out.masked_lm_weights.assign(P, 0.0f);
    for (size_t k = 0; k < predictions.size() && k < P; ++k) {
        out.masked_lm_positions[k] = predictions[k].first;
        out.masked_lm_ids[k] = predictions[k].second;
        out.masked_lm_weights[k] = 1.0f;
    }
    return out;
}

} // namespace wb
