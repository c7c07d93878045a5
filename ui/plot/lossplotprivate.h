// SPDX-License-Identifier: Apache-2.0
// LossPlot's private state, shared by its files: lossplot.cpp (the canvas, axes, graphs,
// legend and controls) and lossplotseries.cpp (the data: steps, evaluations, comparison runs,
// baselines, smoothing, the x axis, exports). Include only from those files, after
// #undef QT_NO_KEYWORDS / QT_NO_FOREACH (QCustomPlot 2.1's header uses Qt's keywords).
#pragma once

#include "ui/plot/lossplot.h"

#include "ui/form/fieldhelp.h"
#include "ui/plot/plotaxes.h"
#include "ui/plot/plotcontrolrow.h"
#include "ui/plot/plotoverlays.h"
#include "ui/plot/smoothing.h"
#include "ui/runs/runcolours.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QSaveFile>
#include <QSlider>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace wb {

namespace lossplotdetail {

constexpr int kReplotIntervalMs = 40;       // ≤ 25 Hz: one coalescing single-shot timer (QCustomPlot::rpQueuedReplot)
constexpr double kLogFloor = 1e-8;          // values ≤ 0 are clamped to this on a log axis
constexpr double kDefaultSmoothing = 0.6;   // TensorBoard's default
// The run shown keeps these; no compared run gets one of them (ui/runs/runcolours.h).
inline const QColor kLossColour = runcolours::kTrainLoss;
inline const QColor kEvalLossColour = runcolours::kEvalLoss;
inline const QColor kEvalAccColour = runcolours::kEvalAccuracy;
inline const QColor kLrColour = runcolours::kLearningRate;

struct Points
{
    std::vector<double> step, wall, value;
    void clear() { step.clear(); wall.clear(); value.clear(); }
    int size() const { return int(step.size()); }
};

/// A baseline accuracy the run should beat (the majority class, the bag-of-words model): a
/// dashed line across the loss rectangle on the accuracy axis, and a legend entry of its own
/// (a graph without data) that names its value. Hidden until set to a finite value.
struct BaselineLine
{
    QCPGraph *key = nullptr;
    QCPItemStraightLine *line = nullptr;
    double value = std::numeric_limits<double>::quiet_NaN();

    /// Creates the hidden line in `rect` on the axes `x` and `y2`, and its legend entry `name`
    /// (kept out of the legend until shown).
    void build(QCustomPlot *plot, QCPAxisRect *rect, QCPAxis *x, QCPAxis *y2, const QPen &pen, const QString &name)
    {
        key = plot->addGraph(x, y2);
        key->setPen(pen);
        key->setName(name);
        key->removeFromLegend();
        line = new QCPItemStraightLine(plot);
        line->setClipAxisRect(rect);
        line->setPen(pen);
        for (QCPItemPosition *p : {line->point1, line->point2})
            p->setAxes(x, y2);
        line->setVisible(false);
    }

    /// Shows the line at `v` with the legend entry `name`, or hides it when `v` is not finite.
    /// Returns false (and changes nothing) when it already shows `v`, or is already hidden.
    bool set(double v, const QString &name)
    {
        const bool show = std::isfinite(v);
        if (show == std::isfinite(value) && (!show || v == value))
            return false;
        value = v;
        line->setVisible(show);
        if (show) {
            line->point1->setCoords(0, v);
            line->point2->setCoords(1, v);
            key->setName(name);
            key->addToLegend();
        } else {
            key->removeFromLegend();
        }
        return true;
    }
};

} // namespace lossplotdetail

using namespace lossplotdetail; // this header is included only by lossplot*.cpp

struct LossPlot::Private
{
    LossPlot *q = nullptr;
    QCustomPlot *plot = nullptr;
    QLabel *notice = nullptr;      ///< setNotice(): above the curves, hidden when empty
    QCPAxisRect *lossRect = nullptr;
    QCPAxisRect *lrRect = nullptr;
    QCPGraph *raw = nullptr, *smoothed = nullptr, *evalLoss = nullptr, *evalAcc = nullptr, *evalNsp = nullptr;
    bool pretraining = false; ///< setPretraining(): the curves are named for masked-LM pretraining
    QString runName;          ///< setRunName(): the live run's legend prefix ("" none)
    /// `text` as the live run's legend entry: "<run>: <text>" when the run has a name.
    QString named(const QString &text) const { return runName.isEmpty() ? text : runName + QStringLiteral(": ") + text; }
    QCPGraph *lr = nullptr, *planned = nullptr;
    BaselineLine baseline; ///< the majority class of the eval data
    BaselineLine bow;      ///< the bag-of-words baseline (prepare_report.json), in a colour of its own
    Points trainData, lrData, evalLossData, evalAccData, evalNspData;
    std::vector<double> plannedStep, plannedLr;
    std::unique_ptr<PlotOverlays> overlays;
    TensorBoardSmoother smoother{kDefaultSmoothing};
    double smoothing = kDefaultSmoothing;
    XAxis xMode = XAxis::Step;
    bool logScale = false;
    bool follow = true; // auto-rescale until the user zooms or pans
    double t0 = std::numeric_limits<double>::quiet_NaN();
    QTimer replotTimer;
    int replots = 0;
    QSlider *slider = nullptr;
    QDoubleSpinBox *smoothingBox = nullptr;
    QComboBox *xCombo = nullptr;
    QCheckBox *logBox = nullptr;

    /// The axes the curves are drawn on: the loss rectangle's step (x), loss (y) and accuracy
    /// (y2) axes; the learning-rate rectangle's step (lrX) and rate (lrY) axes.
    struct Axes
    {
        QCPAxis *x, *y, *y2, *lrX, *lrY;
    };
    Axes axes() const
    {
        return {lossRect->axis(QCPAxis::atBottom), lossRect->axis(QCPAxis::atLeft), lossRect->axis(QCPAxis::atRight),
                lrRect->axis(QCPAxis::atBottom), lrRect->axis(QCPAxis::atLeft)};
    }

    /// The graph that draws `s`.
    QCPGraph *graph(Series s) const
    {
        switch (s) {
        case Series::TrainLoss: return raw;
        case Series::SmoothedTrainLoss: return smoothed;
        case Series::EvalLoss: return evalLoss;
        case Series::EvalAccuracy: return evalAcc;
        case Series::EvalNextSentenceAccuracy: return evalNsp;
        case Series::LearningRate: return lr;
        case Series::PlannedLearningRate: return planned;
        }
        return nullptr;
    }

    double key(double step, double wall, double runT0) const
    {
        switch (xMode) {
        case XAxis::Step: return step;
        case XAxis::RelativeTime: return wall - runT0;
        case XAxis::WallTime: return wall;
        }
        return step;
    }
    double lossValue(double v) const { return logScale && std::isfinite(v) && v <= 0 ? kLogFloor : v; }

    static QVector<QCPGraphData> build(const std::vector<double> &steps, const std::vector<double> &walls,
                                       const std::vector<double> &values, const Private &p, double runT0,
                                       bool lossAxis)
    {
        QVector<QCPGraphData> out;
        out.reserve(int(values.size()));
        for (std::size_t i = 0; i < values.size(); ++i)
            out.append(QCPGraphData(p.key(steps[i], walls.empty() ? 0 : walls[i], runT0),
                                    lossAxis ? p.lossValue(values[i]) : values[i]));
        return out;
    }

    void rebuild()
    {
        const std::vector<double> sm = smoothTensorBoard(trainData.value, smoothing);
        raw->data()->set(build(trainData.step, trainData.wall, trainData.value, *this, t0, true), true);
        smoothed->data()->set(build(trainData.step, trainData.wall, sm, *this, t0, true), true);
        evalLoss->data()->set(build(evalLossData.step, evalLossData.wall, evalLossData.value, *this, t0, true), true);
        evalAcc->data()->set(build(evalAccData.step, evalAccData.wall, evalAccData.value, *this, t0, false), true);
        evalNsp->data()->set(build(evalNspData.step, evalNspData.wall, evalNspData.value, *this, t0, false), true);
        lr->data()->set(build(lrData.step, lrData.wall, lrData.value, *this, t0, false), true);
        planned->data()->set(build(plannedStep, {}, plannedLr, *this, t0, false), true);
        planned->setVisible(xMode == XAxis::Step);
        smoother = TensorBoardSmoother(smoothing);
        for (double v : trainData.value)
            smoother.add(v);
        overlays->rebuild(mapping());
        scheduleReplot();
    }

    PlotMapping mapping() const
    {
        return {[this](double step, double wall, double runT0) { return key(step, wall, runT0); },
                [this](double v) { return lossValue(v); }, smoothing};
    }

    /// Recomputes only the smoothed curves, in place: keys and raw series stay, so a new
    /// smoothing weight costs one EMA pass per series over the existing graph data instead of
    /// rebuilding every container (10^6 points: a few milliseconds plus the replot).
    void resmooth()
    {
        const PlotMapping m = mapping();
        if (!resmoothGraph(smoothed, trainData.value, m, &smoother) || !overlays->resmooth(m))
            rebuild(); // also restarts the live smoother
        scheduleReplot();
    }

    void scheduleReplot()
    {
        if (!replotTimer.isActive())
            replotTimer.start();
    }

    /// As many legend columns (1–4) as the widest entry allows at the canvas' width: long run
    /// names ("pretrain: train MLM loss (raw)") are never cut at 1024×700.
    void fitLegendColumns()
    {
        QCPLegend *legend = plot->legend;
        int widest = 0;
        for (int i = 0; i < legend->itemCount(); ++i)
            if (QCPAbstractLegendItem *item = legend->item(i))
                widest = std::max(widest, item->minimumOuterSizeHint().width());
        const QMargins m = legend->margins();
        const int available = plot->width() - m.left() - m.right();
        const int columns = widest <= 0 ? 3 : std::clamp((available + legend->columnSpacing()) / (widest + legend->columnSpacing()), 1, 4);
        if (legend->wrap() != columns) {
            legend->setWrap(columns);
            legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
        }
    }

    void replot()
    {
        if (follow)
            plotaxes::fit(plot, lossRect, lrRect, evalAccData.value.empty() && !overlays->hasAccuracy() ? 1.0 : 1.05);
        plot->replot(QCustomPlot::rpQueuedReplot);
    }

    static QString tr(const char *s) { return LossPlot::tr(s); }

    const Points *points(Series s) const
    {
        switch (s) {
        case Series::TrainLoss:
        case Series::SmoothedTrainLoss: return &trainData;
        case Series::EvalLoss: return &evalLossData;
        case Series::EvalAccuracy: return &evalAccData;
        case Series::EvalNextSentenceAccuracy: return &evalNspData;
        case Series::LearningRate: return &lrData;
        case Series::PlannedLearningRate: return nullptr;
        }
        return nullptr;
    }

    void showTooltip(QMouseEvent *event);
};

} // namespace wb
