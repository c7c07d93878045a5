// SPDX-License-Identifier: Apache-2.0
#include "core/label/labelcurve.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace wb {

std::vector<CurvePoint> measuredCurve(const std::vector<CurvePoint> &curve, const std::string &strategy)
{
    std::map<int64_t, CurvePoint> byLabels; // the last point at each label count wins
    for (const CurvePoint &p : curve) {
        if (p.eval_source != "held_out" && p.eval_source != "gold")
            continue;
        if (!std::isfinite(p.accuracy))
            continue;
        if (!strategy.empty() && !p.strategy.empty() && p.strategy != strategy)
            continue;
        byLabels[p.labels] = p;
    }
    std::vector<CurvePoint> out;
    out.reserve(byLabels.size());
    for (auto &[labels, p] : byLabels)
        out.push_back(p);
    return out;
}

Plateau labelsStoppedHelping(const std::vector<CurvePoint> &measured, const PlateauRule &rule)
{
    Plateau p;
    if (rule.points < 2 || int64_t(measured.size()) < rule.points)
        return p;
    const auto first = measured.end() - rule.points;
    const CurvePoint &last = measured.back();
    if (last.labels < rule.min_labels)
        return p;
    p.lowest = first->accuracy;
    p.highest = first->accuracy;
    for (auto it = first; it != measured.end(); ++it) {
        p.lowest = std::min(p.lowest, it->accuracy);
        p.highest = std::max(p.highest, it->accuracy);
    }
    // A tiny tolerance, so that 0.81 and 0.82 (a difference of 0.01 in binary) count as within.
    p.reached = p.highest - p.lowest <= rule.within + 1e-9;
    p.from_labels = first->labels;
    p.to_labels = last.labels;
    return p;
}

namespace {

std::string percent(double fraction) { return std::to_string(int(std::lround(fraction * 100))) + " %"; }

} // namespace

std::string plateauNote(const Plateau &p, int64_t points)
{
    if (!p.reached)
        return {};
    const std::string range = percent(p.lowest) == percent(p.highest)
                                  ? percent(p.lowest)
                                  : "between " + percent(p.lowest) + " and " + percent(p.highest);
    return "The last " + std::to_string(p.to_labels - p.from_labels) + " labels did not raise accuracy: " + range
           + " from " + std::to_string(p.from_labels) + " to " + std::to_string(p.to_labels) + " labels ("
           + std::to_string(points) + " models). More labels of the same kind may not help: label the texts "
           + "the model gets wrong, or make a project from these labels and train it longer.";
}

} // namespace wb
