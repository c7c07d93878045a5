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

/// One series of a run's history as the plot takes it: the points' steps, and beside them the
/// columns that fill a `Metrics` (StepMetrics, EvalMetrics): a value at every point (the loss),
/// a second value and the wall time, each 0 where its column is shorter.
template<class Metrics>
struct HistorySeries
{
    const std::vector<double> &step;
    const std::vector<double> &value;
    double Metrics::*valueField;
    const std::vector<double> &second;
    double Metrics::*secondField;
    const std::vector<double> &wallTime;
};

/// Adds the points of `s`, in order, until one is past `upToStep` (`add`: LossPlot::addStep or
/// addEvaluation); returns how many.
template<class Metrics>
int replaySeries(LossPlot &plot, void (LossPlot::*add)(const Metrics &), const HistorySeries<Metrics> &s, int64_t upToStep)
{
    size_t i = 0;
    for (; i < s.step.size() && !(s.step[i] > double(upToStep)); ++i) {
        Metrics m;
        m.step = int64_t(s.step[i]);
        m.*s.valueField = s.value[i];
        m.*s.secondField = valueAt(s.second, i);
        m.wall_time = valueAt(s.wallTime, i);
        (plot.*add)(m);
    }
    return int(i);
}

} // namespace

int replayHistory(LossPlot &plot, const RunHistory &h, int64_t upToStep)
{
    const int steps = replaySeries<StepMetrics>(
        plot, &LossPlot::addStep,
        {h.trainStep, h.trainLoss, &StepMetrics::loss, h.learningRate, &StepMetrics::learning_rate, h.trainWallTime}, upToStep);
    const int evaluations = replaySeries<EvalMetrics>(
        plot, &LossPlot::addEvaluation,
        {h.evalStep, h.evalLoss, &EvalMetrics::eval_loss, h.evalAccuracy, &EvalMetrics::eval_accuracy, h.evalWallTime}, upToStep);
    return steps + evaluations;
}

} // namespace wb
