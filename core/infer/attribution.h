// SPDX-License-Identifier: Apache-2.0
// Token attributions of a text classifier (issue 25, "Token attributions"): which wordpieces
// pushed the model towards a class and which pushed it away. Torch-free: the window includes it.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// How attributions are computed (`--explain_method`).
enum class AttributionMethod {
    /// Integrated Gradients (Sundararajan, Taly & Yan 2017, "Axiomatic Attribution for Deep
    /// Networks", arXiv:1703.01365) on the word embeddings: a_i = (x_i − x'_i) · (1/m) Σ_k
    /// ∂F/∂x_i (x' + α_k (x − x')), α_k = (k + ½)/m (the midpoint Riemann sum, k = 0…m−1).
    IntegratedGradients,
    /// Gradient × input: a_i = x_i · ∂F/∂x_i (x), one forward and one backward pass.
    GradientXInput,
};

/// "integrated_gradients" / "gradient_x_input" (the CLI's words).
std::string attributionMethodName(AttributionMethod m);
/// The method for its CLI name; nullopt for any other text.
std::optional<AttributionMethod> parseAttributionMethod(const std::string &name);

/// Integrated Gradients steps m by default (`--ig_steps`).
constexpr int64_t kDefaultIgSteps = 32;
/// The completeness tolerance: a relative gap above it says "m too small" (5 %).
constexpr double kCompletenessTolerance = 0.05;
/// Below this absolute gap (in logits) completeness always holds: a logit difference near 0
/// makes any relative gap large although the attributions are right to rounding.
constexpr double kCompletenessAbsoluteFloor = 1e-3;

/// The points per pass for a text of `seq` wordpieces on a model of `hidden` × `layers`:
/// `requested` when > 0, else ⌊2^24 / (seq · hidden · layers)⌋ clamped to [1, 32].
int64_t interpolationBatch(int64_t requested, int64_t seq, int64_t hidden, int64_t layers);

/// What to explain and how.
struct ExplainOptions
{
    AttributionMethod method = AttributionMethod::IntegratedGradients;
    int64_t ig_steps = kDefaultIgSteps;  ///< m, ≥ 1 (Integrated Gradients only)
    int64_t target_label_id = -1;        ///< the class whose logit is explained; −1: the predicted one
    double tolerance = kCompletenessTolerance;
    /// Interpolation points per forward/backward pass (Integrated Gradients); m points take
    /// ⌈m / batch⌉ passes. It bounds the memory (batch × S × hidden activations per layer).
    /// 0: automatic, interpolationBatch() (32 for BERT-Tiny at 128 tokens, 3 for BERT-Base at 512).
    int64_t interpolation_batch = 0;
};

/// The completeness check of Integrated Gradients (Sundararajan et al. 2017, axiom
/// "Completeness"): the attributions add up to F(x) − F(x'), F = the target's logit. The
/// Riemann sum with m steps misses it by `gap`; a relative gap above the tolerance says
/// that m is too small. For gradient × input the same numbers are filled (there is no such
/// axiom for it; `applies` is false and steps_too_small stays false).
struct Completeness
{
    bool applies = false;            ///< true for Integrated Gradients
    double attribution_sum = 0;      ///< Σ_i a_i (logits)
    double logit_input = 0;          ///< F(x): the target's logit for the text
    double logit_baseline = 0;       ///< F(x'): the target's logit for the baseline
    double logit_difference = 0;     ///< F(x) − F(x')
    double gap = 0;                  ///< |Σ a_i − (F(x) − F(x'))| (logits)
    double relative_gap = 0;         ///< gap / |F(x) − F(x')| (0 when both are 0; +inf when only the difference is 0)
    double tolerance = kCompletenessTolerance;
    /// relative_gap > tolerance and gap > kCompletenessAbsoluteFloor (Integrated Gradients only).
    bool steps_too_small = false;
    /// The target's softmax probability for the text and for the baseline (what the model says
    /// about a text with no words); NaN for regression (one output, no probability).
    double probability_input = std::numeric_limits<double>::quiet_NaN();
    double probability_baseline = std::numeric_limits<double>::quiet_NaN();
    int64_t baseline_label_id = -1; ///< the baseline's own predicted class (argmax); −1 for regression and multi-label
    /// The baseline already decides: it predicts the target itself and the text's probability
    /// of the target exceeds the baseline's by less than kBaselineDecidesMargin. The
    /// attributions then add up to a small logit difference and are near 0 although the
    /// prediction is confident: they explain little, and the check says so instead of passing.
    bool baseline_decides = false;
    /// A multi-label model (issue 45): the probabilities above are the target label's own
    /// sigmoid σ(logit), not a softmax over the labels, and the logits are the label's log-odds.
    bool multi_label = false;
    /// Multi-label: the probability at which the target label is predicted (its tuned
    /// threshold, else 0.5); NaN otherwise.
    double threshold = std::numeric_limits<double>::quiet_NaN();
};

/// The least a text must add to the baseline's probability of the target for its attributions
/// to explain the prediction (0.1: ten points of probability).
inline constexpr double kBaselineDecidesMargin = 0.1;

/// Fills probability_input, probability_baseline, baseline_label_id and baseline_decides of `c`
/// from the text's and the baseline's logits (one per label; softmax over them) for `target`.
/// With one logit (regression) or logits of different lengths they stay NaN / −1 / false. Pure.
void judgeBaseline(Completeness &c, const std::vector<double> &textLogits, const std::vector<double> &baselineLogits,
                   int64_t target);

/// The multi-label judgement (issue 45; docs/multi-label.md): each label is its own binary
/// decision, so probability_input = σ(textLogit), probability_baseline = σ(baselineLogit)
/// (the target label's logits, in log-odds), `threshold` is recorded, baseline_label_id is −1,
/// multi_label true, and baseline_decides holds when the baseline alone reaches `threshold`
/// and the text adds less than kBaselineDecidesMargin to it. Pure.
void judgeBaselineMultiLabel(Completeness &c, double textLogit, double baselineLogit, double threshold);

/// Fills gap, relative_gap and steps_too_small from the other fields (the rule above).
void finishCompleteness(Completeness &c);

/// One word of the text: its wordpieces merged (the first piece and its "##" continuations),
/// with the sum of their attributions.
struct WordAttribution
{
    std::string word;          ///< the pieces joined, "##" dropped ("playing" from play ##ing)
    double attribution = 0;    ///< Σ over its pieces
    size_t first_token = 0;    ///< index of its first wordpiece in the token list
    size_t token_count = 0;    ///< how many wordpieces it has
};

/// Merges wordpieces into words: a token starting with "##" continues the word before it;
/// [CLS], [SEP] and [PAD] are no words (they are left out). tokens and attributions have the
/// same length (else wb::Error "attributions").
std::vector<WordAttribution> mergeWordpieces(const std::vector<std::string> &tokens,
                                             const std::vector<double> &attributions);

/// The `count` words with the largest attributions above 0 (forTarget) or the most negative
/// ones below 0 (!forTarget), strongest first; ties keep text order.
std::vector<WordAttribution> topWords(const std::vector<WordAttribution> &words, size_t count, bool forTarget);

/// The attributions of one text for one class.
struct Explanation
{
    AttributionMethod method = AttributionMethod::IntegratedGradients;
    int64_t steps = 0;                   ///< m (Integrated Gradients), 1 for gradient × input
    int64_t target_label_id = 0;
    std::string target_label;            ///< its name ("label N" without names; "value" for regression)
    /// The target is the predicted class (multi-label: it is in the predicted label set, its
    /// probability reaching its threshold, Completeness::threshold).
    bool target_is_predicted = true;
    bool multi_label = false;            ///< a multi-label model: the target is one label's log-odds (σ, not softmax)
    std::vector<std::string> tokens;     ///< [CLS] … [SEP], as TokenizedText::tokens
    std::vector<double> attributions;    ///< one per token, in logits of the target; 0 for [CLS]/[SEP] under IG
    std::vector<double> logits;          ///< the text's logits, one per label
    std::vector<double> baseline_logits; ///< the baseline's logits, one per label (what the model says about no words)
    std::vector<WordAttribution> words;  ///< mergeWordpieces(tokens, attributions)
    Completeness completeness;
    /// The baseline (docs/explain.md): every wordpiece but [CLS] and [SEP] replaced by
    /// [PAD]'s word embedding; position and segment embeddings unchanged.
    std::string baseline = "[PAD] word embeddings, [CLS]/[SEP] kept";
};

/// The sentence about the completeness check, for the CLI and the window:
/// "Σ attributions 2.31 = logit difference 2.35 − gap 0.04 (1.7 %, within 5 %)" or, when m is
/// too small, "… the gap is 23.0 % (over 5 %): m = 2 steps are too few; raise --ig_steps";
/// when the baseline decides (Completeness::baseline_decides), that the attributions explain
/// little, with both probabilities.
std::string completenessText(const Explanation &e);

/// The baseline's own score in words: "with no words (every wordpiece [PAD]) the model says
/// spam 98.5 % (this text: 99.1 %)"; multi-label: "with no words (every wordpiece [PAD]) the
/// model gives P(urgent) 12.0 % (this text: 91.0 %)"; "" for regression. For the CLI and the window.
std::string baselineScoreText(const Explanation &e);

/// What the attributions of `e` explain, in words for a heading: multi-label "P(urgent)" (the
/// label's own sigmoid: its attributions add up to its log-odds difference); else the class
/// name in quotes, "“spam”" (regression: "“value”"). Pure.
std::string explainedQuantity(const Explanation &e);

/// The label id `text` names among `names` (an exact name first, else a 0-based index below
/// `numLabels`). Throws wb::Error on field "explain_class" naming the labels otherwise.
int64_t resolveLabelChoice(const std::string &text, const std::vector<std::string> &names, int64_t numLabels);

} // namespace wb
