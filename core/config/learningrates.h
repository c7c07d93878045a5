// SPDX-License-Identifier: Apache-2.0
#pragma once

// The usual learning rates for each start of a run, in one table (docs/architecture.md, "One
// source of advice"): the coach's advice (core/advice/coach.h), the learning-rate finder's
// verdicts (core/engine/lrfind.h) and the option help (optionrows.cpp) all name these ranges,
// so a change of the table changes every text that names them. Pure configuration, here so
// that the option table can name the ranges; core/advice/runfacts.h builds the run's facts on it.

#include <string>

namespace wb {

/// Where a run's weights came from.
enum class WeightsStart
{
    HubPretrained,   ///< --pretrained_model: a published pretrained BERT (Hub id, catalogue name or model folder)
    OwnPretraining,  ///< --init_checkpoint of a `pretrain` run of this program (its run_config.json says so)
    OtherCheckpoint, ///< any other --init_checkpoint: this program cannot know how it was trained
    Random,          ///< neither: random weights
    Unknown          ///< a past run whose run_config.json does not record its start (older versions)
};

/// The usual learning rates for one start: the range advice names and stays inside, the band
/// beyond which a rate is far off (the coach's lr_* notes before the first step), and the rate
/// to try when a run outside the range did not learn.
struct LearningRateRange
{
    WeightsStart start;
    double low, high;            ///< the usual range, inclusive
    double far_below, far_above; ///< a rate outside [far_below, far_above] is far off
    double suggest;              ///< the rate to try, inside [low, high]
    const char *words;           ///< "fine-tuning a pretrained model": the start in a sentence
};

/// THE table of learning-rate ranges, one row per start that has one. Where each comes from:
///  * HubPretrained: 2e-5 … 5e-5, BERT's fine-tuning range (Devlin et al. 2019, appendix A.3:
///    5e-5, 3e-5, 2e-5); 5e-5 is run_classifier's and Hugging Face Trainer's default
///    (kPretrainedLearningRate). Far off: a factor 4 below, 10 above.
///  * Random: 1e-4 … 1e-3, the product's own measurement for small BERTs from scratch
///    (docs/pretrained-models.md, docs/tutorial.md: 1e-4 does not learn the example in two
///    epochs, 5e-4 does); 5e-4 is kFromScratchLearningRate. Far off: below 1e-4, above 1e-2.
///  * OwnPretraining: 1e-4 … 1e-3 too: a short pretraining of this program leaves weights far
///    from a published model's; the pretraining lesson on two real sets learns better at 5e-4
///    than at 2e-4 (docs/benchmarks.md, "The pretraining lesson"): 5e-4 is suggested, as from
///    random weights. Far off: below 1e-5, above 1e-2 (an init checkpoint's 5e-5 is not).
/// OtherCheckpoint and Unknown have no row: the program cannot know their usual rate, and the
/// advice is to run the learning-rate finder.
inline constexpr LearningRateRange kLearningRateRanges[] = {
    {WeightsStart::HubPretrained, 2e-5, 5e-5, 5e-6, 5e-4, 5e-5, "fine-tuning a pretrained model"},
    {WeightsStart::OwnPretraining, 1e-4, 1e-3, 1e-5, 1e-2, 5e-4, "fine-tuning a short pretraining of your own"},
    {WeightsStart::Random, 1e-4, 1e-3, 1e-4, 1e-2, 5e-4, "a model trained from random weights"},
};

/// The row of `start` in kLearningRateRanges; nullptr for OtherCheckpoint and Unknown. Pure.
const LearningRateRange *learningRateRange(WeightsStart start);

/// Every row's usual range in words, in the table's order: "2e-5 to 5e-5 for fine-tuning a
/// pretrained model; 1e-4 to 1e-3 for fine-tuning a short pretraining of your own; …". Pure.
std::string usualRangesWords();

/// A learning rate in words as advice writes it: "2e-5", "5e-4", "1e-3" below 0.01, else the
/// shortest decimal ("0.01", "9", "10"); "NaN"/"inf" for those. Pure.
std::string rateWords(double rate);

} // namespace wb
