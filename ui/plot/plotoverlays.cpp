// SPDX-License-Identifier: Apache-2.0
// QCustomPlot 2.1's header uses Qt's keywords (signals, foreach); allow them in this file only.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/plot/plotoverlays.h"

#include "ui/plot/smoothing.h"

#include <QCoreApplication>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace wb {

namespace {

QString tr(const char *s) { return QCoreApplication::translate("wb::PlotOverlays", s); }

/// Points of `values` at `steps`/`walls`; non-finite values are left out when `finiteOnly`.
QVector<QCPGraphData> points(const std::vector<double> &steps, const std::vector<double> &walls,
                             const std::vector<double> &values, double runT0, const PlotMapping &m,
                             bool lossAxis, bool finiteOnly = false)
{
    QVector<QCPGraphData> out;
    const std::size_t n = std::min(steps.size(), values.size());
    out.reserve(int(n));
    for (std::size_t i = 0; i < n; ++i) {
        if (finiteOnly && !std::isfinite(values[i]))
            continue;
        out.append(QCPGraphData(m.key(steps[i], i < walls.size() ? walls[i] : 0, runT0),
                                lossAxis ? m.lossValue(values[i]) : values[i]));
    }
    return out;
}

} // namespace

bool resmoothGraph(QCPGraph *graph, const std::vector<double> &values, const PlotMapping &mapping,
                   TensorBoardSmoother *state)
{
    if (graph->dataCount() != int(values.size()))
        return false;
    TensorBoardSmoother s(mapping.smoothing);
    const bool constant = isConstantSeries(values);
    auto it = graph->data()->begin();
    for (std::size_t i = 0; i < values.size(); ++i, ++it) {
        const double sm = s.add(values[i]);
        it->value = mapping.lossValue(constant ? values[i] : sm);
    }
    if (state)
        *state = s;
    return true;
}

PlotOverlays::PlotOverlays(QCustomPlot *plot, QCPAxis *x, QCPAxis *loss, QCPAxis *accuracy)
    : m_plot(plot), m_x(x), m_loss(loss), m_accuracy(accuracy)
{
}

void PlotOverlays::add(const RunHistory &history, const QColor &colour)
{
    remove(history.sourcePath);
    Run r;
    r.history = history;
    r.loss = m_plot->addGraph(m_x, m_loss);
    r.loss->setName(tr("%1: train loss").arg(history.name));
    r.loss->setPen(QPen(colour, 1.5));
    r.evalLoss = m_plot->addGraph(m_x, m_loss);
    r.evalLoss->setName(tr("%1: eval loss").arg(history.name));
    r.evalLoss->setPen(QPen(colour, 1, Qt::DotLine));
    r.evalLoss->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(colour, 1.5), QBrush(Qt::white), 7));
    r.evalAccuracy = m_plot->addGraph(m_x, m_accuracy);
    r.evalAccuracy->setName(tr("%1: eval accuracy").arg(history.name));
    r.evalAccuracy->setPen(QPen(colour, 1, Qt::DashDotLine));
    r.evalAccuracy->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(colour, 1.5), QBrush(colour), 8));
    if (!history.trainLossLow.empty() && history.trainLossLow.size() == history.trainLossHigh.size()) {
        QColor fill = colour;
        fill.setAlpha(50);
        r.bandLow = m_plot->addGraph(m_x, m_loss);
        r.bandHigh = m_plot->addGraph(m_x, m_loss);
        for (QCPGraph *g : {r.bandLow, r.bandHigh}) {
            g->setName(tr("%1: train loss min–max").arg(history.name));
            g->setPen(Qt::NoPen);
            g->removeFromLegend();
        }
        r.bandHigh->setBrush(QBrush(fill));
        r.bandHigh->setChannelFillGraph(r.bandLow);
    }
    m_runs.push_back(r);
}

bool PlotOverlays::remove(const QString &sourcePath)
{
    auto it = std::find_if(m_runs.begin(), m_runs.end(),
                           [&](const Run &r) { return r.history.sourcePath == sourcePath; });
    if (it == m_runs.end())
        return false;
    m_plot->removeGraph(it->loss);
    m_plot->removeGraph(it->evalLoss);
    m_plot->removeGraph(it->evalAccuracy);
    if (it->bandLow) {
        m_plot->removeGraph(it->bandHigh);
        m_plot->removeGraph(it->bandLow);
    }
    m_runs.erase(it);
    return true;
}

void PlotOverlays::clear()
{
    while (!m_runs.empty())
        remove(m_runs.front().history.sourcePath);
}

bool PlotOverlays::hasAccuracy() const
{
    return std::any_of(m_runs.begin(), m_runs.end(), [](const Run &r) {
        return std::any_of(r.history.evalAccuracy.begin(), r.history.evalAccuracy.end(),
                           [](double v) { return std::isfinite(v); });
    });
}

void PlotOverlays::rebuild(const PlotMapping &m)
{
    for (Run &r : m_runs) {
        const RunHistory &h = r.history;
        const double t0 = h.trainWallTime.empty() ? (h.evalWallTime.empty() ? 0 : h.evalWallTime.front())
                                                  : h.trainWallTime.front();
        r.loss->data()->set(points(h.trainStep, h.trainWallTime, smoothTensorBoard(h.trainLoss, m.smoothing), t0, m, true), true);
        r.evalLoss->data()->set(points(h.evalStep, h.evalWallTime, h.evalLoss, t0, m, true), true);
        r.evalAccuracy->data()->set(points(h.evalStep, h.evalWallTime, h.evalAccuracy, t0, m, false, true), true);
        if (r.bandLow) {
            r.bandLow->data()->set(points(h.trainStep, h.trainWallTime, h.trainLossLow, t0, m, true), true);
            r.bandHigh->data()->set(points(h.trainStep, h.trainWallTime, h.trainLossHigh, t0, m, true), true);
        }
    }
}

bool PlotOverlays::resmooth(const PlotMapping &m)
{
    for (Run &r : m_runs)
        if (!resmoothGraph(r.loss, r.history.trainLoss, m))
            return false;
    return true;
}

} // namespace wb
