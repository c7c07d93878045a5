// SPDX-License-Identifier: Apache-2.0
#pragma once

// The suspects (issue 46, docs/data-map.md "Suspects and corrections"): training examples that
// are probably mislabelled, found in a run's training dynamics (model_dir/training_dynamics.jsonl,
// core/formats/trainingdynamics.h) and ranked. Torch-free and pure. This layer sits below
// core/formats, so the rows come in as SuspectInput (the same arrays as TrainingDynamicsRow);
// suspectInputs() in core/formats/runsuspects.h converts them.
//
// The rule. Dataset cartography (Swayamdipta et al. 2020, "Dataset Cartography: Mapping and
// Diagnosing Datasets with Training Dynamics") finds, by flipping training labels, that
// mislabelled examples have low confidence (the mean probability of the gold label over the
// training passes): the model does not believe the label. Low confidence alone also catches
// examples the model simply has not learned yet; what sets a mislabelled one apart is that the
// model keeps naming one *other* label. So an example is a suspect when
//   confidence < SuspectRule::max_confidence (default 0.5: the gold label was, on average, less
//     likely than not), and
//   the label predicted most often (ties: the one predicted latest) is not the gold label and was
//     predicted in more than SuspectRule::min_suggestion_share (default 0.5, a majority) of the
//     observations: the predictions consistently name another label, which becomes the suggestion.
// The paper's hard-to-learn region also asks for low variability (the spread of that
// probability). The default does not (SuspectRule::max_variability 1, above any population
// standard deviation of values in [0, 1]): with the few passes of a fine-tuning run, a flipped
// example often starts near its given label and leaves it only after a pass or two, so its
// variability is high. On the spam example with 10 % of the train labels flipped
// (docs/benchmarks.md, "Label errors on the spam example"), 86 to 132 of the 544 examples ranked
// first had variability >= 0.2, and 73 to 88 % of those were flipped; requiring < 0.2 lowered the
// precision of the top 544 by up to 3 points. Set max_variability to 0.2 for the paper's region.
// Suspects are ranked by confidence ascending (the most certain mistakes first), then by index.
// All of this presumes a model that learned the data: a model that predicts one label for every
// text (not learning yet) gives every example of the other labels a low confidence and
// the same "suggestion". So when the share of examples whose last prediction was their label is
// not above the most frequent label's share (the accuracy of always predicting it), no example is
// a suspect (learnedCheck(); SuspectRule::require_learned).

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace wb {

/// One training example's observations, as TrainingDynamicsRow holds them: `index` the record's
/// 0-based position in the training TFRecords (file order), `label_id` its gold label, and per
/// observation (same length, in step order) the gold label's probability in [0, 1] and the argmax
/// label. A plain value.
struct SuspectInput
{
    int64_t index = 0;
    int64_t label_id = 0;
    std::vector<double> gold_probabilities;
    std::vector<int64_t> predicted_label_ids;
};

/// The thresholds of the rule (the header comment says why these defaults).
struct SuspectRule
{
    double max_confidence = 0.5;       ///< confidence must be below this
    double max_variability = 1.0;      ///< variability must be below this (1: no limit)
    double min_suggestion_share = 0.5; ///< the suggestion must be predicted in more than this share
    bool require_learned = true;       ///< no suspects unless learnedCheck() says the model learned
};

/// Whether the model learned the training data better than always predicting its most frequent
/// label, at the last observation of each example (rows without observations are left out).
struct LearnedCheck
{
    bool learned = false;       ///< last_accuracy > majority_share
    double last_accuracy = 0;   ///< share of examples whose last prediction was their label
    double majority_share = 0;  ///< share of the most frequent label
    int64_t examples = 0;       ///< examples with observations
};

/// The check above. Pure.
LearnedCheck learnedCheck(const std::vector<SuspectInput> &rows);

/// A probably mislabelled training example and its evidence. A plain value.
struct Suspect
{
    int64_t index = 0;              ///< the training record (SuspectInput::index)
    int64_t label_id = 0;           ///< its label as given
    int64_t suggested_label_id = 0; ///< the label predicted most often (ties: the latest)
    double confidence = 0;          ///< mean gold-label probability, in [0, 1]
    double variability = 0;         ///< population standard deviation of the gold-label probability
    double correctness = 0;         ///< share of observations whose prediction was the gold label
    int64_t suggestion_count = 0;   ///< observations that predicted the suggestion (n of m)
    int64_t observations = 0;       ///< m, the observations
    double last_gold_probability = 0; ///< the gold-label probability of the last observation
};

/// The label predicted most often in `predicted` and how often; among labels predicted equally
/// often, the one whose last prediction came latest. {-1, 0} for no observation. Pure.
std::pair<int64_t, int64_t> mostPredictedLabel(const std::vector<int64_t> &predicted);

/// The suspects among `rows` by `rule`, ranked by confidence ascending, then index ascending.
/// A row without observations is never a suspect; with rule.require_learned, none is when
/// learnedCheck(rows) says the model did not learn. Throws std::invalid_argument naming the index
/// when a row's two arrays differ in length. Pure; thread-safe.
std::vector<Suspect> findSuspects(const std::vector<SuspectInput> &rows, const SuspectRule &rule = {});

/// The first `k` of `ranked` (all of them when k is 0 or at least their number). Pure.
std::vector<Suspect> topSuspects(const std::vector<Suspect> &ranked, size_t k);

} // namespace wb
