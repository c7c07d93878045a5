// SPDX-License-Identifier: Apache-2.0
#include "ui/plot/historyreplay.h"

#include "core/events/trainingobserver.h"
#include "ui/plot/lossplot.h"
#include "ui/runs/runhistory.h"

#include <vector>

namespace wb {

namespace {

/// Returns the value of point `i` of a column, or 0 when the history has none there.
double valueAt(const std::vector<double> &column, size_t i) { return i < column.size() ? column[i] : 0.0; }

/// Calls `add(i)` for the points of `steps`, in order, until one is past `upToStep`; returns how many.
template <class Add>
int replayUpTo(const std::vector<double> &steps, int64_t upToStep, Add add)
{
    size_t i = 0;
    for (; i < steps.size() && !(steps[i] > double(upToStep)); ++i)
        add(i);
    return int(i);
}

} // namespace

int replayHistory(LossPlot &plot, const RunHistory &h, int64_t upToStep)
{
    const int steps = replayUpTo(h.trainStep, upToStep, [&](size_t i) {
        StepMetrics m;
        m.step = int64_t(h.trainStep[i]);
        m.loss = h.trainLoss[i];
        m.learning_rate = valueAt(h.learningRate, i);
        m.wall_time = valueAt(h.trainWallTime, i);
        plot.addStep(m);
    });
    const int evaluations = replayUpTo(h.evalStep, upToStep, [&](size_t i) {
        EvalMetrics e;
        e.step = int64_t(h.evalStep[i]);
        e.eval_loss = h.evalLoss[i];
        e.eval_accuracy = valueAt(h.evalAccuracy, i);
        e.wall_time = valueAt(h.evalWallTime, i);
        plot.addEvaluation(e);
    });
    return steps + evaluations;
}

} // namespace wb
