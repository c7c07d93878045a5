// SPDX-License-Identifier: Apache-2.0
#include "core/advice/suspects.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace wb {

std::pair<int64_t, int64_t> mostPredictedLabel(const std::vector<int64_t> &predicted)
{
    // label → (count, position of its last prediction)
    std::map<int64_t, std::pair<int64_t, size_t>> seen;
    for (size_t i = 0; i < predicted.size(); ++i) {
        auto &[count, last] = seen[predicted[i]];
        ++count;
        last = i;
    }
    int64_t best = -1, bestCount = 0;
    size_t bestLast = 0;
    for (const auto &[label, cl] : seen) {
        if (cl.first > bestCount || (cl.first == bestCount && cl.second > bestLast)) {
            best = label;
            bestCount = cl.first;
            bestLast = cl.second;
        }
    }
    return {best, bestCount};
}

namespace {

// The evidence of one row, as docs/file-formats.md ("training_dynamics.jsonl") defines
// confidence, variability and correctness.
Suspect evidence(const SuspectInput &row)
{
    Suspect s;
    s.index = row.index;
    s.label_id = row.label_id;
    const size_t m = row.gold_probabilities.size();
    s.observations = int64_t(m);
    double sum = 0;
    for (const double p : row.gold_probabilities)
        sum += p;
    s.confidence = sum / double(m);
    double squares = 0;
    for (const double p : row.gold_probabilities)
        squares += (p - s.confidence) * (p - s.confidence);
    s.variability = m < 2 ? 0.0 : std::sqrt(squares / double(m));
    const auto right = std::count(row.predicted_label_ids.begin(), row.predicted_label_ids.end(), row.label_id);
    s.correctness = double(right) / double(m);
    const auto [label, count] = mostPredictedLabel(row.predicted_label_ids);
    s.suggested_label_id = label;
    s.suggestion_count = count;
    s.last_gold_probability = row.gold_probabilities.back();
    return s;
}

} // namespace

LearnedCheck learnedCheck(const std::vector<SuspectInput> &rows)
{
    LearnedCheck c;
    std::map<int64_t, int64_t> labels;
    int64_t right = 0;
    for (const SuspectInput &row : rows) {
        if (row.predicted_label_ids.empty())
            continue;
        ++c.examples;
        ++labels[row.label_id];
        right += row.predicted_label_ids.back() == row.label_id ? 1 : 0;
    }
    if (c.examples == 0)
        return c;
    int64_t most = 0;
    for (const auto &[label, count] : labels)
        most = std::max(most, count);
    c.last_accuracy = double(right) / double(c.examples);
    c.majority_share = double(most) / double(c.examples);
    c.learned = c.last_accuracy > c.majority_share;
    return c;
}

std::vector<Suspect> findSuspects(const std::vector<SuspectInput> &rows, const SuspectRule &rule)
{
    std::vector<Suspect> found;
    for (const SuspectInput &row : rows)
        if (row.gold_probabilities.size() != row.predicted_label_ids.size())
            throw std::invalid_argument("training example " + std::to_string(row.index) + ": "
                                        + std::to_string(row.gold_probabilities.size()) + " probabilities but "
                                        + std::to_string(row.predicted_label_ids.size()) + " predictions");
    if (rule.require_learned && !learnedCheck(rows).learned)
        return found;
    for (const SuspectInput &row : rows) {
        if (row.gold_probabilities.empty())
            continue;
        const Suspect s = evidence(row);
        const bool hardToLearn = s.confidence < rule.max_confidence && s.variability < rule.max_variability;
        const bool consistent = s.suggested_label_id != s.label_id
                                && double(s.suggestion_count) > rule.min_suggestion_share * double(s.observations);
        if (hardToLearn && consistent)
            found.push_back(s);
    }
    std::sort(found.begin(), found.end(), [](const Suspect &a, const Suspect &b) {
        return a.confidence != b.confidence ? a.confidence < b.confidence : a.index < b.index;
    });
    return found;
}

std::vector<Suspect> topSuspects(const std::vector<Suspect> &ranked, size_t k)
{
    if (k == 0 || k >= ranked.size())
        return ranked;
    return {ranked.begin(), ranked.begin() + std::ptrdiff_t(k)};
}

} // namespace wb
