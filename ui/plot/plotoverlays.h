// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/runs/runhistory.h"

#include <QColor>
#include <QString>

#include <functional>
#include <vector>

class QCustomPlot;
class QCPAxis;
class QCPGraph;

namespace wb {

class TensorBoardSmoother;

/// How LossPlot draws a recorded series: the x key of a point (step, wall_time in seconds,
/// and the run's first wall_time for relative time), the drawn value of a loss (clamped on
/// a log axis) and the TensorBoard smoothing weight in [0, 0.999].
struct PlotMapping
{
    std::function<double(double step, double wall, double runT0)> key;
    std::function<double(double loss)> lossValue;
    double smoothing = 0.6;
};

/// Writes the TensorBoard-smoothed `values` into `graph`'s values in place (keys kept; a
/// constant series is drawn as it is, see isConstantSeries). Leaves in `*state` (when given)
/// the smoother after the last value, for live appends. Returns false, and changes nothing,
/// when the graph does not hold exactly one point per value.
bool resmoothGraph(QCPGraph *graph, const std::vector<double> &values, const PlotMapping &mapping,
                   TensorBoardSmoother *state = nullptr);

/// The other runs LossPlot draws over the live one (Compare runs, Open TensorBoard Logs, Find
/// runs near model_dir). Each run gets, in its colour, three graphs with one legend entry each:
/// "<run>: train loss" (TensorBoard-smoothed, loss axis), "<run>: eval loss" (square markers,
/// loss axis) and "<run>: eval accuracy" (diamond markers, accuracy axis; only the finite
/// values of RunHistory::evalAccuracy, regression runs have none); a seed group's mean
/// (RunHistory::trainLossLow/High set) also gets its min–max band, filled in its colour, raw
/// (unsmoothed), without a legend entry. Runs are identified by
/// RunHistory::sourcePath. The graphs belong to the QCustomPlot given to the constructor.
/// GUI thread only.
class PlotOverlays
{
public:
    PlotOverlays(QCustomPlot *plot, QCPAxis *x, QCPAxis *loss, QCPAxis *accuracy);

    /// Adds `run` drawn in `colour`, replacing a run with the same sourcePath. The graphs are
    /// empty until rebuild().
    void add(const RunHistory &run, const QColor &colour);
    /// Removes the run read from `sourcePath`; returns false when none is shown.
    bool remove(const QString &sourcePath);
    void clear();
    int count() const { return int(m_runs.size()); }
    /// Returns true when some run has at least one finite eval accuracy.
    bool hasAccuracy() const;

    /// Fills every run's graphs from its history with `mapping`.
    void rebuild(const PlotMapping &mapping);
    /// Recomputes the smoothed train loss in place (keys kept); returns false when a graph's
    /// point count no longer matches its history, and the caller must rebuild().
    bool resmooth(const PlotMapping &mapping);

private:
    struct Run
    {
        RunHistory history;
        QCPGraph *loss = nullptr;
        QCPGraph *evalLoss = nullptr;
        QCPGraph *evalAccuracy = nullptr;
        QCPGraph *bandLow = nullptr, *bandHigh = nullptr; ///< a seed group's min–max train loss
    };

    QCustomPlot *m_plot;
    QCPAxis *m_x, *m_loss, *m_accuracy;
    std::vector<Run> m_runs;
};

} // namespace wb
