// SPDX-License-Identifier: Apache-2.0
#pragma once
// The torch-free half of the learning-rate range test: its result, schedule, analysis and
// lr_find.json (core/engine/lrfind.h runs the test).


#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb {

struct RunFacts;

/// The learning-rate range test (Smith, "Cyclical Learning Rates for Training Neural
/// Networks", 2017; fastai's lr_find): a short run whose learning rate rises exponentially,
/// step by step, and the loss it produces.
struct LrFindResult
{
    std::vector<int64_t> steps;          ///< 1-based steps taken
    std::vector<double> learning_rates;  ///< learning rate of each step
    std::vector<double> losses;          ///< training loss of each step (mean cross-entropy / MSE)
    std::vector<double> smoothed;        ///< bias-corrected exponential moving average of losses (β = 0.98)
    /// The suggested learning rate: fastai's "valley" of `smoothed` (lrFindValley); 0 when the
    /// curve says nothing (verdict not "ok"), written as null in lr_find.json.
    double suggestion = 0;
    int64_t suggestion_index = -1;
    double min_loss_lr = 0;              ///< learning rate at the minimum of `smoothed`
    /// The second suggestion, min_loss_lr / 10 — below the minimum, where the loss starts to
    /// rise again; 0 when the curve says nothing or it lies below the tested range.
    double min_over_10 = 0;
    int64_t min_index = -1;
    double steep = 0;                    ///< learning rate of the steepest descent of `smoothed` over ln(lr) (shown, not suggested)
    int64_t steep_index = -1;
    /// "ok"; "flat" (the smoothed loss falls by less than kLrFindFlatDrop of its start before its
    /// minimum); "noisy" (it falls by less than the noise of single losses); "rising" (the
    /// valley lies in the first kLrFindFirstPoints searched steps and the loss really rises
    /// from there, or fell only in those first steps: the range starts too high); "short"
    /// (fewer than kLrFindMinSteps steps). lrFindVerdictText says it in words.
    std::string verdict = "ok";
    bool diverged = false;               ///< stopped because smoothed > 4 × its minimum (or a non-finite loss)
    std::string path;                    ///< lr_find.json written, or empty
};

/// Smoothing of the loss curve (fastai's β).
constexpr double kLrFindBeta = 0.98;
/// The test stops once the smoothed loss exceeds this multiple of its minimum.
constexpr double kLrFindDivergence = 4.0;

/// Learning rate of step k (0-based) of `steps`: start·(end/start)^(k/(steps−1)). Pure.
double lrFindLearningRate(int64_t k, int64_t steps, double start, double end);

/// The minimum and the steepest descent are searched after the first min(this, steps / 10)
/// steps, whose smoothed loss rests on too few losses (fastai's skip_start).
constexpr int64_t kLrFindSkipStart = 10;

/// A curve whose smoothed loss falls by less than this share of its start is "flat".
constexpr double kLrFindFlatDrop = 0.05;
/// The descent starts at the last step whose smoothed loss is above its top − this share of the drop.
constexpr double kLrFindDescentStart = 0.1;
/// Fewer steps than this say nothing ("short").
constexpr int64_t kLrFindMinSteps = 20;
/// A valley within this many steps of the first searched one is never suggested: the curve
/// shows no descent inside the range ("rising" or "flat"), only the start of the sweep.
constexpr int64_t kLrFindFirstPoints = 5;
/// A curve "rises from its first points" when its smoothed loss climbs kLrFindFlatDrop above
/// its minimum within this share of the searched steps; a curve flat at its start and rising
/// only later (the blow-up at high rates) is "flat", not "rising".
constexpr double kLrFindRiseWithin = 0.25;

/// fastai's "valley" rule (fastai.callback.schedule.valley): over values[begin, end), the
/// longest strictly decreasing subsequence (lds[i], ending at i; the first longest one), from
/// max_start = max_end − lds[max_end] to its end max_end; returns max_start + ⌊s⌋ + ⌊s / 2⌋
/// with s = (max_end − max_start) / 3: a point two thirds … half way down the longest
/// descent. Non-finite values are skipped. Returns `begin` when the range is empty. Pure.
size_t lrFindValley(const std::vector<double> &values, size_t begin, size_t end);

/// Fills smoothed, min_*, steep*, suggestion*, verdict of `r` from learning_rates and losses.
/// All are searched after the first kLrFindSkipStart steps (at most a tenth of them): the
/// minimum of smoothed; then, up to the minimum, the steepest descent (the most negative
/// central difference of smoothed over ln(learning rate)) and the valley (the suggestion),
/// searched from the start of the descent (the last step above top − kLrFindDescentStart ×
/// drop) to the minimum. The drop is the highest smoothed value up to the minimum (top)
/// minus the minimum; the noise is the
/// standard deviation of single losses there, std(losses[k+1] − losses[k]) / √2. Verdict
/// When the valley lies within kLrFindFirstPoints of the first searched step: "rising" when
/// the smoothed loss climbs kLrFindFlatDrop above its minimum within kLrFindRiseWithin of the
/// searched steps, else "flat" / "noisy" as below, else "rising" (it fell only in those
/// first steps). Otherwise "flat" when drop < kLrFindFlatDrop × that highest value, "noisy"
/// when drop < the noise. For every verdict but "ok" suggestion and min_over_10 are 0, so a
/// suggestion is never one of the first points of the sweep. Pure; thread-safe.
void analyzeLrFind(LrFindResult &r);

/// Returns what the verdict of `r` means and what to do for the run whose facts are `facts`
/// (runFactsFor on the range test's options: its start and that start's row of
/// kLearningRateRanges), or "" for "ok". A flat curve names the usual range of the run's start
/// (or, for a start without one, that it is unknown) and the finder at a wider span; only a
/// run from random weights is told to start from a pretrained model. Pure.
std::string lrFindVerdictText(const LrFindResult &r, const RunFacts &facts);

/// What the range test of `r` says, in the sentences every front-end shows (the CLI's
/// `lr_find` prints them, the Find Learning Rate dialog shows them): "Suggested learning rate:
/// 1.8e-3 (the valley of the smoothed loss); minimum / 10: 3.1e-4." — and where the
/// suggestion lies outside the usual range of the run's start, a sentence that says so — or
/// "No suggestion: " + lrFindVerdictText + ".". Rates have two significant digits
/// (rateWords). Pure.
std::string lrFindSummary(const LrFindResult &r, const RunFacts &facts);

/// Returns `r` as lr_find.json's text: {"steps", "learning_rates", "losses", "smoothed",
/// "suggestion", "min_loss_lr", "min_over_10", "diverged", "suggestion_rule" ("valley"),
/// "steep", "verdict"}. A rate that is 0 or not finite in `r` (none: a curve that says
/// nothing, a range with no step) is null, never 0; so is a loss that is not finite.
std::string lrFindJson(const LrFindResult &r);

/// Returns model_dir/lr_find.json's path.
std::string lrFindPath(const std::string &modelDir);

/// Reads lr_find.json's text (`source` names it in errors) — lrFindJson's twin: steps,
/// learning_rates, losses and smoothed (null, a value that was not finite, reads as NaN;
/// "smoothed" may be absent), suggestion, min_loss_lr, min_over_10 and diverged come back as
/// written (steep and verdict when present, else 0 and "ok"); a rate that is null, absent,
/// 0 or negative reads as 0 (none); suggestion_index, min_index
/// and steep_index (not in the file) are -1, path is `source`.
/// "steps" absent reads as 1 … N. Throws wb::Error("<source>: <key>", …) when the text is
/// not a JSON object, "learning_rates" or "losses" is missing or empty, an array's length
/// differs from learning_rates', or a key has another type. Pure; thread-safe.
LrFindResult parseLrFindJson(const std::string &text, const std::string &source);

/// Reads the lr_find.json at `path` (parseLrFindJson); nothing when it does not exist.
/// Throws wb::Error naming the file as parseLrFindJson, or when it cannot be read.
std::optional<LrFindResult> readLrFindJson(const std::string &path);

} // namespace wb
