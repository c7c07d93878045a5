// SPDX-License-Identifier: Apache-2.0
#include "core/infer/attribution.h"

#include "core/config/optionwords.h"
#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace wb {

std::string attributionMethodName(AttributionMethod m)
{
    return m == AttributionMethod::IntegratedGradients ? "integrated_gradients" : "gradient_x_input";
}

std::optional<AttributionMethod> parseAttributionMethod(const std::string &name)
{
    if (name == "integrated_gradients")
        return AttributionMethod::IntegratedGradients;
    if (name == "gradient_x_input")
        return AttributionMethod::GradientXInput;
    return std::nullopt;
}

int64_t interpolationBatch(int64_t requested, int64_t seq, int64_t hidden, int64_t layers)
{
    if (requested > 0)
        return requested;
    const int64_t perPoint = std::max<int64_t>(1, seq) * std::max<int64_t>(1, hidden) * std::max<int64_t>(1, layers);
    return std::clamp<int64_t>((int64_t(1) << 24) / perPoint, 1, 32);
}

void finishCompleteness(Completeness &c)
{
    c.logit_difference = c.logit_input - c.logit_baseline;
    c.gap = std::abs(c.attribution_sum - c.logit_difference);
    const double scale = std::abs(c.logit_difference);
    c.relative_gap = scale > 0 ? c.gap / scale : (c.gap > 0 ? std::numeric_limits<double>::infinity() : 0.0);
    c.steps_too_small = c.applies && c.relative_gap > c.tolerance && c.gap > kCompletenessAbsoluteFloor;
}

void judgeBaseline(Completeness &c, const std::vector<double> &textLogits, const std::vector<double> &baselineLogits,
                   int64_t target)
{
    if (textLogits.size() < 2 || textLogits.size() != baselineLogits.size() || target < 0
        || size_t(target) >= textLogits.size())
        return;
    const auto probability = [target](const std::vector<double> &logits) {
        const double top = *std::max_element(logits.begin(), logits.end());
        double sum = 0;
        for (double l : logits)
            sum += std::exp(l - top);
        return std::exp(logits[size_t(target)] - top) / sum;
    };
    c.probability_input = probability(textLogits);
    c.probability_baseline = probability(baselineLogits);
    c.baseline_label_id = int64_t(std::max_element(baselineLogits.begin(), baselineLogits.end()) - baselineLogits.begin());
    c.baseline_decides =
        c.baseline_label_id == target && c.probability_input - c.probability_baseline < kBaselineDecidesMargin;
}

void judgeBaselineMultiLabel(Completeness &c, double textLogit, double baselineLogit, double threshold)
{
    const auto sigmoid = [](double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); };
    c.multi_label = true;
    c.threshold = threshold;
    c.probability_input = sigmoid(textLogit);
    c.probability_baseline = sigmoid(baselineLogit);
    c.baseline_label_id = -1;
    c.baseline_decides =
        c.probability_baseline >= threshold && c.probability_input - c.probability_baseline < kBaselineDecidesMargin;
}

namespace {

bool isSpecial(const std::string &t) { return t == "[CLS]" || t == "[SEP]" || t == "[PAD]"; }

std::string number(double v, const char *format)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

} // namespace

std::vector<WordAttribution> mergeWordpieces(const std::vector<std::string> &tokens,
                                             const std::vector<double> &attributions)
{
    if (tokens.size() != attributions.size())
        throw Error("attributions", std::to_string(attributions.size()) + " attributions for " +
                                        std::to_string(tokens.size()) + " tokens");
    std::vector<WordAttribution> words;
    bool open = false; // the last word may take "##" continuations
    for (size_t i = 0; i < tokens.size(); ++i) {
        const std::string &t = tokens[i];
        if (isSpecial(t)) {
            open = false;
            continue;
        }
        const bool continuation = t.size() > 2 && t.compare(0, 2, "##") == 0;
        if (continuation && open) {
            WordAttribution &w = words.back();
            w.word += t.substr(2);
            w.attribution += attributions[i];
            ++w.token_count;
            continue;
        }
        words.push_back({continuation ? t.substr(2) : t, attributions[i], i, 1});
        open = true;
    }
    return words;
}

std::vector<WordAttribution> topWords(const std::vector<WordAttribution> &words, size_t count, bool forTarget)
{
    std::vector<WordAttribution> out;
    for (const auto &w : words)
        if (forTarget ? w.attribution > 0 : w.attribution < 0)
            out.push_back(w);
    std::stable_sort(out.begin(), out.end(), [forTarget](const WordAttribution &a, const WordAttribution &b) {
        return forTarget ? a.attribution > b.attribution : a.attribution < b.attribution;
    });
    if (out.size() > count)
        out.resize(count);
    return out;
}

std::string baselineScoreText(const Explanation &e)
{
    const Completeness &c = e.completeness;
    if (!std::isfinite(c.probability_baseline))
        return {};
    if (e.multi_label || c.multi_label)
        return "with no words (every wordpiece [PAD]) the model gives P(" + e.target_label + ") "
               + number(100.0 * c.probability_baseline, "%.1f") + " % (this text: "
               + number(100.0 * c.probability_input, "%.1f") + " %)";
    return "with no words (every wordpiece [PAD]) the model says " + e.target_label + " "
           + number(100.0 * c.probability_baseline, "%.1f") + " % (this text: "
           + number(100.0 * c.probability_input, "%.1f") + " %)";
}

std::string completenessText(const Explanation &e)
{
    const Completeness &c = e.completeness;
    const std::string head = "Σ attributions " + number(c.attribution_sum, "%.4g") + ", logit difference "
                             + number(c.logit_difference, "%.4g") + " (" + number(c.logit_input, "%.4g") + " − baseline "
                             + number(c.logit_baseline, "%.4g") + "): gap " + number(c.gap, "%.3g");
    if (!c.applies)
        return head + " (gradient × input need not add up to it; Integrated Gradients does)";
    const std::string rel = std::isfinite(c.relative_gap) ? number(100.0 * c.relative_gap, "%.1f") + " %" : "∞";
    const std::string tol = number(100.0 * c.tolerance, "%g") + " %";
    if (c.steps_too_small)
        return head + " = " + rel + " (over " + tol + "): m = " + std::to_string(e.steps)
               + " steps are too few; raise the steps (" + optionName("ig_steps") + "), e.g. to "
               + std::to_string(std::max<int64_t>(2 * e.steps, 64));
    if (c.baseline_decides)
        return head + " = " + rel + " (within " + tol + "), but the attributions explain little: " + baselineScoreText(e)
               + ", so the words added less than " + number(100.0 * kBaselineDecidesMargin, "%g")
               + " points and the prediction is mostly what the model says about any text";
    return head + " = " + rel + " (within " + tol + ")";
}

std::string explainedQuantity(const Explanation &e)
{
    return e.multi_label ? "P(" + e.target_label + ")" : "\u201c" + e.target_label + "\u201d";
}

int64_t resolveLabelChoice(const std::string &text, const std::vector<std::string> &names, int64_t numLabels)
{
    for (size_t k = 0; k < names.size(); ++k)
        if (names[k] == text)
            return int64_t(k);
    const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits && text.size() < 10) {
        const int64_t id = std::stoll(text);
        if (id < numLabels)
            return id;
    }
    std::string known;
    for (size_t k = 0; k < names.size(); ++k)
        known += (k ? ", " : "") + names[k];
    throw Error("explain_class", "'" + text + "' is neither a label name nor a label index below " + std::to_string(numLabels),
                known.empty() ? "pass an index from 0 to " + std::to_string(numLabels - 1)
                              : "pass one of: " + known + " (or its index from 0 to " + std::to_string(numLabels - 1) + ")");
}

} // namespace wb
