// SPDX-License-Identifier: Apache-2.0
// The torch-free part of the learning-rate range test (core/train/lrfind.h): the schedule,
// the analysis of a loss curve, and lr_find.json's writer and reader. Also what the window
// runs on a saved lr_find.json (LrFindDialog::showSaved); fuzz/fuzz_lrfind.cpp fuzzes the reader.
#include "core/train/lrfind.h"

#include "core/config/jsonrecord.h"

#include <nlohmann/json.hpp>

#include <filesystem>

#include <algorithm>
#include <cmath>

namespace wb {

double lrFindLearningRate(int64_t k, int64_t steps, double start, double end)
{
    if (steps <= 1)
        return start;
    return start * std::pow(end / start, double(k) / double(steps - 1));
}

void analyzeLrFind(LrFindResult &r)
{
    const size_t n = std::min(r.learning_rates.size(), r.losses.size());
    r.smoothed.clear();
    r.suggestion_index = r.min_index = -1;
    r.suggestion = r.min_loss_lr = r.min_over_10 = 0;
    double avg = 0;
    for (size_t k = 0; k < n; ++k) {
        avg = kLrFindBeta * avg + (1 - kLrFindBeta) * r.losses[k];
        r.smoothed.push_back(avg / (1 - std::pow(kLrFindBeta, double(k + 1))));
    }
    if (n == 0)
        return;
    // The first steps' smoothed values rest on a handful of losses, so their noise would pass
    // for the steepest descent or the minimum of a flat curve: like fastai's skip_start=10,
    // the search skips them (up to a tenth of the steps).
    const size_t skip = std::min<size_t>(kLrFindSkipStart, n / 10);
    size_t best = skip;
    for (size_t k = skip + 1; k < n; ++k)
        if (std::isfinite(r.smoothed[k]) && r.smoothed[k] < r.smoothed[best])
            best = k;
    r.min_index = int64_t(best);
    r.min_loss_lr = r.learning_rates[best];
    r.min_over_10 = r.min_loss_lr / 10;
    // Steepest descent: most negative d(smoothed)/d(ln lr), up to the minimum.
    const size_t last = best >= skip + 2 ? best : n - 1;
    size_t steep = 0;
    double steepest = 0;
    bool found = false;
    for (size_t k = skip; k <= last && n >= 2; ++k) {
        const size_t a = k == 0 ? 0 : k - 1, b = std::min(k + 1, n - 1);
        if (a == b)
            continue;
        const double dx = std::log(r.learning_rates[b]) - std::log(r.learning_rates[a]);
        if (dx <= 0 || !std::isfinite(r.smoothed[a]) || !std::isfinite(r.smoothed[b]))
            continue;
        const double g = (r.smoothed[b] - r.smoothed[a]) / dx;
        if (!found || g < steepest) {
            steepest = g;
            steep = k;
            found = true;
        }
    }
    r.suggestion_index = int64_t(found ? steep : best);
    r.suggestion = r.learning_rates[size_t(r.suggestion_index)];
}

std::string lrFindJson(const LrFindResult &r)
{
    nlohmann::ordered_json j;
    const auto finite = [](const std::vector<double> &v) {
        nlohmann::ordered_json a = nlohmann::ordered_json::array();
        for (double x : v)
            a.push_back(std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json());
        return a;
    };
    j["steps"] = r.steps;
    j["learning_rates"] = r.learning_rates;
    j["losses"] = finite(r.losses);
    j["smoothed"] = finite(r.smoothed);
    j["suggestion"] = r.suggestion;
    j["min_loss_lr"] = r.min_loss_lr;
    j["min_over_10"] = r.min_over_10;
    j["diverged"] = r.diverged;
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
    r.suggestion = j.number("suggestion").value_or(0);
    r.min_loss_lr = j.number("min_loss_lr").value_or(0);
    r.min_over_10 = j.number("min_over_10").value_or(0);
    r.diverged = j.boolean("diverged").value_or(false);
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
