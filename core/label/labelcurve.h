// SPDX-License-Identifier: Apache-2.0
#pragma once

// The curve of "Label to learn" (issue 47; docs/label-to-learn.md, "In the window"): which points
// of curve.jsonl (core/label/labelsession.h CurvePoint) are drawn, and the rule that says when more
// labels stopped helping.
//
// Torch-free, no Qt, no I/O. Thread rules: pure functions; thread-safe.

#include "core/label/labelsession.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// When the curve says that more labels stopped helping (labelsStoppedHelping()).
struct PlateauRule
{
    int64_t points = 3;        ///< the last this many measured points …
    double within = 0.01;      ///< … lie within this accuracy of each other (0.01 = 1 point) …
    int64_t min_labels = 60;   ///< … and the last of them was measured at this many labels or more
};

/// The measured points of `curve` drawn for `strategy` ("" = every strategy): eval_source
/// "held_out" or "gold", a finite accuracy, strategy equal to `strategy` (a point without a
/// strategy counts as any), sorted by `labels`; of several points at the same label count the
/// last one in file order. Pure.
std::vector<CurvePoint> measuredCurve(const std::vector<CurvePoint> &curve, const std::string &strategy = "");

/// What the plateau rule found.
struct Plateau
{
    bool reached = false;
    int64_t from_labels = 0, to_labels = 0;  ///< the label counts of the first and last of the points
    double lowest = 0, highest = 0;          ///< their lowest and highest accuracy in [0, 1]
};

/// Whether more labels stopped helping on `measured` (measuredCurve()'s points, sorted by
/// labels): the last rule.points points lie within rule.within of each other while the last
/// was measured at rule.min_labels labels or more. Fewer points than rule.points: not reached.
/// Pure.
Plateau labelsStoppedHelping(const std::vector<CurvePoint> &measured, const PlateauRule &rule = {});

/// The coach's line for a reached plateau, e.g. "The last 20 labels did not raise accuracy: 81 % at
/// 40 labels, between 81 % and 82 % since (3 models). More labels of the same kind may not help: …".
/// "" when not reached. Pure.
std::string plateauNote(const Plateau &p, int64_t points);

} // namespace wb
