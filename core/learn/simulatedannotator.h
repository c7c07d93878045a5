// SPDX-License-Identifier: Apache-2.0
#pragma once

// The simulated annotator of "Label to learn" (issue 47; docs/label-to-learn.md, "Measuring a
// strategy"): the labelling loop run with the gold labels of a labelled data set standing in for
// the user. Starting from no labels, it asks for a batch of texts by the chosen order, "labels"
// them with their hidden gold labels (saved through the labels file, core/label/labelstore.h, as a
// user's would be), trains a model on the labels so far (core/learn/labelcycle.h) and measures it
// on a separate labelled eval set; again until max_labels. The curve answers "what does each
// label buy, and does the order matter" with numbers instead of a promise.
//
// Header torch-free; wb_core. Thread rules: synchronous; one thread.

#include "core/label/labelsession.h"
#include "core/learn/labelcycle.h"

#include <functional>
#include <string>
#include <vector>

namespace wb {

class StopToken;

struct SimulationSettings
{
    LabelCycleSettings cycle;   ///< the model; cycle.seed is also the queue's seed
    std::string strategy = "uncertain_diverse"; ///< labelQueueStrategies()
    int64_t batch_size = 10;    ///< texts labelled between two models
    int64_t max_labels = 200;   ///< stop after this many labels
    /// A curve point every this many labels (a multiple of batch_size; 0: every batch). The
    /// uncertain order trains a model after every batch whatever this says (it picks with it).
    int64_t measure_every = 0;
    /// labels.csv, curve.jsonl and cycles/ are written here; a labels.csv and curve.jsonl left by
    /// an earlier simulation in it are replaced (a simulation always starts from no labels).
    std::string work_dir;
};

/// A text with its gold label.
struct GoldText
{
    std::string text;
    std::string label;
};

/// Runs the simulation; returns the curve points (also appended to work_dir/curve.jsonl, one per
/// model measured, eval_source "gold"). The first batch is in random order (no model yet); so is
/// every batch while the labels so far have fewer than two labels. `onPoint` is called after each
/// point. Throws wb::Error for bad settings (a label of the pool or eval set that is not in
/// cycle.label_names, batch_size < 1, measure_every not a multiple of batch_size), a failed cycle
/// (its error), and wb::Error("label cycle", "cancelled") on a stop.
std::vector<CurvePoint> simulateAnnotator(const SimulationSettings &settings, const std::vector<GoldText> &pool,
                                          const std::vector<GoldText> &eval, const StopToken &stop,
                                          const std::function<void(const CurvePoint &)> &onPoint = {});

} // namespace wb
