// SPDX-License-Identifier: Apache-2.0
// The torch-free part of the learning-rate range test (core/engine/lrfind.h): the schedule,
// the analysis of a loss curve, and lr_find.json's writer and reader. Also what the window
// runs on a saved lr_find.json (LrFindDialog::showSaved); fuzz/fuzz_lrfind.cpp fuzzes the reader.
#include "core/advice/lrfindanalysis.h"

#include "core/config/jsonrecord.h"
#include "core/config/optionwords.h"
#include "core/advice/runfacts.h"
#include "core/util/jsonnumber.h"

#include <nlohmann/json.hpp>

#include <filesystem>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace wb {

double lrFindLearningRate(int64_t k, int64_t steps, double start, double end)
{
    if (steps <= 1)
        return start;
    return start * std::pow(end / start, double(k) / double(steps - 1));
}

size_t lrFindValley(const std::vector<double> &values, size_t begin, size_t end)
{
    end = std::min(end, values.size());
    if (begin >= end)
        return begin;
    // lds[i]: the length of the longest strictly decreasing subsequence that ends at i.
    std::vector<size_t> lds(end - begin, 1);
    size_t maxEnd = 0;
    for (size_t i = 1; i < lds.size(); ++i) {
        if (!std::isfinite(values[begin + i]))
            continue;
        for (size_t j = 0; j < i; ++j)
            if (std::isfinite(values[begin + j]) && values[begin + i] < values[begin + j] && lds[i] < lds[j] + 1)
                lds[i] = lds[j] + 1;
        if (lds[i] > lds[maxEnd])
            maxEnd = i;
    }
    // fastai: max_start = max_end − lds[max_end] (it can be one before the range; kept inside).
    const size_t maxStart = maxEnd >= lds[maxEnd] ? maxEnd - lds[maxEnd] : 0;
    const double sections = double(maxEnd - maxStart) / 3.0;
    return begin + maxStart + size_t(sections) + size_t(sections / 2);
}

namespace {

/// The bias-corrected exponential moving average (β = kLrFindBeta) of the first `n` losses.
std::vector<double> smoothedLosses(const std::vector<double> &losses, size_t n)
{
    std::vector<double> smoothed;
    double avg = 0;
    for (size_t k = 0; k < n; ++k) {
        avg = kLrFindBeta * avg + (1 - kLrFindBeta) * losses[k];
        smoothed.push_back(avg / (1 - std::pow(kLrFindBeta, double(k + 1))));
    }
    return smoothed;
}

/// The index of the smallest finite value of `smoothed` from `skip` on (`skip` itself when none is).
size_t minimumIndex(const std::vector<double> &smoothed, size_t skip)
{
    size_t best = skip;
    for (size_t k = skip + 1; k < smoothed.size(); ++k)
        if (std::isfinite(smoothed[k]) && (!std::isfinite(smoothed[best]) || smoothed[k] < smoothed[best]))
            best = k;
    return best;
}

/// Steepest descent: the index from `skip` up to the minimum `best` with the most negative
/// d(smoothed)/d(ln lr) (to the end when the minimum lies within two steps of `skip`); `best`
/// when no step has a slope.
size_t steepestDescentIndex(const std::vector<double> &learningRates, const std::vector<double> &smoothed,
                            size_t skip, size_t best)
{
    const size_t n = smoothed.size();
    const size_t last = best >= skip + 2 ? best : n - 1;
    size_t steep = 0;
    double steepest = 0;
    bool found = false;
    for (size_t k = skip; k <= last && n >= 2; ++k) {
        const size_t a = k == 0 ? 0 : k - 1, b = std::min(k + 1, n - 1);
        if (a == b)
            continue;
        const double dx = std::log(learningRates[b]) - std::log(learningRates[a]);
        if (dx <= 0 || !std::isfinite(smoothed[a]) || !std::isfinite(smoothed[b]))
            continue;
        const double g = (smoothed[b] - smoothed[a]) / dx;
        if (!found || g < steepest) {
            steepest = g;
            steep = k;
            found = true;
        }
    }
    return found ? steep : best;
}

/// The largest finite smoothed loss from `skip` to the minimum `best` (at least the minimum's).
double curveTop(const std::vector<double> &smoothed, size_t skip, size_t best)
{
    double top = smoothed[best];
    for (size_t k = skip; k <= best; ++k)
        if (std::isfinite(smoothed[k]))
            top = std::max(top, smoothed[k]);
    return top;
}

/// The start of the descent: the last step from `skip` to the minimum `best` still above
/// top − kLrFindDescentStart of the drop (a long flat start would otherwise draw the valley into it).
size_t descentStart(const std::vector<double> &smoothed, size_t skip, size_t best, double top, double drop)
{
    size_t descent = skip;
    for (size_t k = skip; k <= best; ++k)
        if (std::isfinite(smoothed[k]) && smoothed[k] >= top - kLrFindDescentStart * drop)
            descent = k;
    return descent;
}

/// The step-to-step noise of the raw losses from `skip` to the minimum `best`: the standard
/// deviation of their finite differences over √2 (0 with fewer than two differences).
double lossNoise(const std::vector<double> &losses, size_t skip, size_t best)
{
    double sum = 0, sum2 = 0;
    size_t count = 0;
    for (size_t k = skip; k < best; ++k)
        if (std::isfinite(losses[k]) && std::isfinite(losses[k + 1])) {
            const double d = losses[k + 1] - losses[k];
            sum += d;
            sum2 += d * d;
            ++count;
        }
    return count >= 2 ? std::sqrt(std::max(0.0, (sum2 - sum * sum / double(count)) / double(count - 1)) / 2.0) : 0.0;
}

/// Whether the smoothed loss climbs kLrFindFlatDrop above its minimum `best` within
/// kLrFindRiseWithin of the steps searched from `skip`: a curve that rises from its first
/// points, not one flat at its start that rises only at high rates.
bool risesEarly(const std::vector<double> &smoothed, size_t skip, size_t best)
{
    const size_t n = smoothed.size();
    const size_t within = skip + size_t(std::ceil(double(n - skip) * kLrFindRiseWithin));
    const double threshold = smoothed[best] + kLrFindFlatDrop * std::abs(smoothed[best]);
    for (size_t k = best + 1; k < n && k <= within; ++k)
        if (std::isfinite(smoothed[k]) && smoothed[k] > threshold)
            return true;
    return false;
}

/// The verdict on a curve of `n` steps whose minimum lies `drop` below its `top`, with
/// step-to-step `noise`, whose valley is `early` (within kLrFindFirstPoints of `skip`) and
/// `rises` from its first points: "short", "rising", "flat", "noisy" or "ok" (LrFindResult::verdict).
std::string curveVerdict(size_t n, double top, double drop, double noise, bool early, bool rises)
{
    if (int64_t(n) < kLrFindMinSteps)
        return "short";
    if (early && rises)
        return "rising";
    if (!(drop >= kLrFindFlatDrop * std::abs(top)))
        return "flat";
    if (drop < noise)
        return "noisy";
    return early ? "rising" : "ok"; // a fall only in the first points: the range starts too high
}

/// `rate` with two significant digits in words: "1.8e-3" (rateWords).
std::string rate2(double rate)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1e", rate);
    return rateWords(std::strtod(buf, nullptr));
}

/// The run's usual range in a sentence: "The usual learning rate for a model trained from random
/// weights is 1e-4 to 1e-3 (try 5e-4)"; for a start without a row, that it cannot be known.
std::string usualRangeWords(const RunFacts &facts)
{
    if (const LearningRateRange *range = learningRateRange(facts.start))
        return "The usual learning rate for " + std::string(range->words) + " is " + rateWords(range->low) + " to "
               + rateWords(range->high) + " (try " + rateWords(range->suggest) + ")";
    return "This program cannot know the usual learning rate of " + startWords(facts);
}

/// The finder at a wider span for a flat curve of `r`: 200 steps (kLrFindWiderSteps) from a
/// decade below the run's usual range (1e-6 for a start without one), as far as `r` did not
/// test that already; "" when it did.
std::string widerFinderWords(const LrFindResult &r, const RunFacts &facts)
{
    constexpr int64_t kWiderSteps = 200;
    const LearningRateRange *range = learningRateRange(facts.start);
    const double from = range ? range->low / 10 : 1e-6;
    const bool higherStart = !r.learning_rates.empty() && from > 1.5 * r.learning_rates.front();
    const bool moreSteps = int64_t(r.steps.size()) < kWiderSteps;
    const std::string steps = std::to_string(kWiderSteps), start = rateWords(from);
    if (higherStart && moreSteps)
        return "run the finder for " + steps + " steps from " + start + " (" + optionSetting("lr_find_steps", steps) + " "
               + optionSetting("lr_find_start", start) + " or the dialog's fields)";
    if (higherStart)
        return "run the finder from " + start + " (" + optionSetting("lr_find_start", start) + " or the dialog's field)";
    if (moreSteps)
        return "run the finder for " + steps + " steps (" + optionSetting("lr_find_steps", steps)
               + " or the dialog's field)";
    return {};
}

} // namespace

void analyzeLrFind(LrFindResult &r)
{
    const size_t n = std::min(r.learning_rates.size(), r.losses.size());
    r.suggestion_index = r.min_index = r.steep_index = -1;
    r.suggestion = r.min_loss_lr = r.min_over_10 = r.steep = 0;
    r.verdict = "ok";
    r.smoothed = smoothedLosses(r.losses, n);
    if (n == 0) {
        r.verdict = "short";
        return;
    }
    // The first steps' smoothed values rest on a handful of losses, so their noise would pass
    // for the steepest descent or the minimum of a flat curve: like fastai's skip_start=10,
    // the search skips them (up to a tenth of the steps).
    const size_t skip = std::min<size_t>(kLrFindSkipStart, n / 10);
    const size_t best = minimumIndex(r.smoothed, skip);
    r.min_index = int64_t(best);
    r.min_loss_lr = r.learning_rates[best];
    r.steep_index = int64_t(steepestDescentIndex(r.learning_rates, r.smoothed, skip, best));
    r.steep = r.learning_rates[size_t(r.steep_index)];
    // Does the curve say anything? Its drop up to the minimum against its start and its noise.
    const double top = curveTop(r.smoothed, skip, best);
    const double drop = top - r.smoothed[best];
    // The valley of the descent, from its start to the minimum (the loss starts to rise after it).
    const size_t valley = lrFindValley(r.smoothed, descentStart(r.smoothed, skip, best, top, drop), best + 1);
    // A valley among the first searched points is the start of the sweep, not a descent in it.
    const bool early = valley < skip + size_t(kLrFindFirstPoints);
    r.verdict = curveVerdict(n, top, drop, lossNoise(r.losses, skip, best), early,
                             early && risesEarly(r.smoothed, skip, best));
    if (r.verdict != "ok")
        return;
    r.suggestion_index = int64_t(valley);
    r.suggestion = r.learning_rates[valley];
    // min / 10 only inside the tested range (a minimum near the start gives an absurd rate).
    if (r.min_loss_lr / 10 >= r.learning_rates[skip])
        r.min_over_10 = r.min_loss_lr / 10;
}

std::string lrFindVerdictText(const LrFindResult &r, const RunFacts &facts)
{
    char drop[32];
    std::snprintf(drop, sizeof drop, "%.0f %%", 100 * kLrFindFlatDrop);
    const std::string span = r.learning_rates.empty()
                                 ? std::string("this range")
                                 : rate2(r.learning_rates.front()) + " to " + rate2(r.learning_rates.back());
    if (r.verdict == "flat") {
        std::string t = std::string("the loss curve is flat: the smoothed loss falls by less than ") + drop
                        + " anywhere from " + span + ", so no learning rate stands out. " + usualRangeWords(facts);
        const std::string finder = widerFinderWords(r, facts);
        t += finder.empty() ? "; or run the finder with a larger batch" : "; or " + finder + " or with a larger batch";
        if (facts.start == WeightsStart::Random)
            t += ", or start from a pretrained model";
        return t;
    }
    if (r.verdict == "noisy")
        return "the loss curve is too noisy: the smoothed loss falls by less than the step-to-step noise of the "
               "losses, so no learning rate stands out; try a larger batch or more steps";
    if (r.verdict == "rising") {
        const double first = r.learning_rates.empty() ? 0 : r.learning_rates.front();
        const std::string lowest = r.min_loss_lr > 0 ? " (at " + rate2(r.min_loss_lr) + ")" : std::string();
        return "the loss is lowest in the first points of the range from " + span + lowest
               + " and rises after: its start is already too high; lower " + optionName("lr_find_start") + " (e.g. to "
               + rate2(first / 100) + ", or the dialog's field). " + usualRangeWords(facts);
    }
    if (r.verdict == "short")
        return "too few steps to read a curve: use at least " + std::to_string(kLrFindMinSteps) + " ("
               + optionName("lr_find_steps") + ")";
    return {};
}

std::string lrFindSummary(const LrFindResult &r, const RunFacts &facts)
{
    if (r.verdict != "ok" || !(r.suggestion > 0))
        return "No suggestion: " + lrFindVerdictText(r, facts) + ".";
    std::string t = "Suggested learning rate: " + rate2(r.suggestion) + " (the valley of the smoothed loss)";
    if (r.min_over_10 > 0)
        t += "; minimum / 10: " + rate2(r.min_over_10);
    t += ".";
    if (const LearningRateRange *range = learningRateRange(facts.start);
        range && (r.suggestion < range->low || r.suggestion > range->high))
        t += std::string(" It lies ") + (r.suggestion < range->low ? "below" : "above") + " the usual range for "
             + range->words + " (" + rateWords(range->low) + " to " + rateWords(range->high) + ").";
    return t;
}

std::string lrFindJson(const LrFindResult &r)
{
    nlohmann::ordered_json j;
    const auto finite = [](const std::vector<double> &v) {
        nlohmann::ordered_json a = nlohmann::ordered_json::array();
        for (double x : v)
            a.push_back(numberOrNull<nlohmann::ordered_json>(x));
        return a;
    };
    j["steps"] = r.steps;
    j["learning_rates"] = r.learning_rates;
    j["losses"] = finite(r.losses);
    j["smoothed"] = finite(r.smoothed);
    // A rate the curve did not give (0 in LrFindResult) is null, never 0: a reader would take 0 for a rate.
    const auto rate = [](double v) {
        return std::isfinite(v) && v > 0 ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
    };
    j["suggestion"] = rate(r.suggestion);
    j["min_loss_lr"] = rate(r.min_loss_lr);
    j["min_over_10"] = rate(r.min_over_10);
    j["diverged"] = r.diverged;
    j["suggestion_rule"] = "valley";
    j["steep"] = rate(r.steep);
    j["verdict"] = r.verdict;
    return j.dump(2) + "\n";
}

std::string lrFindPath(const std::string &modelDir)
{
    return (std::filesystem::path(modelDir) / "lr_find.json").string();
}

namespace {

const char *const kLrFindHint = "run the range test again (Training → Find Learning Rate…, or bert-workbench-cli "
                                "lr_find): it writes a new lr_find.json";

} // namespace

LrFindResult parseLrFindJson(const std::string &text, const std::string &source)
{
    const JsonRecord j = JsonRecord::parse(text, source, kLrFindHint);
    const nlohmann::json *lrs = j.array("learning_rates");
    if (!lrs || lrs->empty())
        j.fail("learning_rates", lrs ? "is empty: the file holds no step" : "is missing");
    const size_t n = lrs->size();
    const auto sameLength = [&](const char *key, bool required) {
        const nlohmann::json *a = j.array(key);
        if (!a && required)
            j.fail(key, "is missing");
        if (a && a->size() != n)
            j.fail(key, "has " + std::to_string(a->size()) + " entries, learning_rates " + std::to_string(n));
        return a != nullptr;
    };
    LrFindResult r;
    const bool haveSteps = sameLength("steps", false);
    sameLength("losses", true);
    const bool haveSmoothed = sameLength("smoothed", false);
    for (size_t k = 0; k < n; ++k) {
        r.steps.push_back(haveSteps ? j.integerItem("steps", k) : int64_t(k) + 1);
        r.learning_rates.push_back(j.numberItem("learning_rates", k));
        r.losses.push_back(j.numberItem("losses", k));
        if (haveSmoothed)
            r.smoothed.push_back(j.numberItem("smoothed", k));
    }
    // null (what lrFindJson writes for a rate the curve did not give) or absent: none, 0 here.
    // Files of earlier releases wrote 0 for none: read the same.
    const auto rate = [&j](const char *key) {
        const double v = j.number(key).value_or(0);
        return std::isfinite(v) && v > 0 ? v : 0.0;
    };
    r.suggestion = rate("suggestion");
    r.min_loss_lr = rate("min_loss_lr");
    r.min_over_10 = rate("min_over_10");
    r.diverged = j.boolean("diverged").value_or(false);
    (void)j.string("suggestion_rule"); // checked for its type only
    r.steep = rate("steep");
    r.verdict = j.string("verdict").value_or("ok");
    r.path = source;
    return r;
}

std::optional<LrFindResult> readLrFindJson(const std::string &path)
{
    const auto text = JsonRecord::readText(path, kLrFindHint);
    if (!text)
        return std::nullopt;
    return parseLrFindJson(*text, path);
}

} // namespace wb
