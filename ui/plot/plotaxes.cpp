// SPDX-License-Identifier: Apache-2.0
// QCustomPlot 2.1's header uses Qt's keywords (signals, foreach); allow them in this file only.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/plot/plotaxes.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace wb::plotaxes {

namespace {

class LearningRateTicker : public QCPAxisTicker
{
protected:
    QVector<double> createTickVector(double tickStep, const QCPRange &range) override
    {
        m_step = tickStep;
        return QCPAxisTicker::createTickVector(tickStep, range);
    }
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar, int precision) override
    {
        // Tick positions are multiples of the step, up to rounding: within 10⁻⁷ steps of 0 is 0.
        if (std::abs(tick) <= 1e-7 * std::abs(m_step))
            return QStringLiteral("0");
        return QCPAxisTicker::getTickLabel(tick, locale, formatChar, precision);
    }

private:
    double m_step = 0;
};

/// Steps are whole numbers: a tick step under 1 (a 3-step run's 0.5) becomes 1, and one
/// between (2.5) the whole number below it.
class StepTicker : public QCPAxisTicker
{
protected:
    double getTickStep(const QCPRange &range) override
    {
        const double step = QCPAxisTicker::getTickStep(range);
        return step < 1 ? 1.0 : std::floor(step);
    }
    int getSubTickCount(double tickStep) override
    {
        // Sub-ticks only on whole steps too.
        const int n = QCPAxisTicker::getSubTickCount(tickStep);
        return tickStep <= 1 ? 0 : (std::fmod(tickStep, double(n + 1)) == 0 ? n : 0);
    }
};

/// A new ticker of type `Ticker` whose labels are written in `format` (set by `setFormat`: the
/// time ticker's setTimeFormat, the date-time ticker's setDateTimeFormat).
template<class Ticker>
QSharedPointer<QCPAxisTicker> formattedTicker(void (Ticker::*setFormat)(const QString &), const QString &format)
{
    auto ticker = QSharedPointer<Ticker>::create();
    (ticker.data()->*setFormat)(format);
    return ticker;
}

} // namespace

QSharedPointer<QCPAxisTicker> stepTicker()
{
    return QSharedPointer<StepTicker>::create();
}

void useLearningRateTicks(QCPAxis *axis)
{
    axis->setTicker(QSharedPointer<LearningRateTicker>::create());
    axis->setNumberFormat(QStringLiteral("eb"));
    axis->setNumberPrecision(1);
}

void fit(QCustomPlot *plot, QCPAxisRect *lossRect, QCPAxisRect *lrRect, double accuracyMax)
{
    // Not QCustomPlot::rescaleAxes: it fits each x axis to its own panel's graphs, and the lower
    // panel's (the planned schedule of the form) then cut the other runs' longer curves.
    bool any = false;
    QCPRange keys;
    for (int i = 0; i < plot->graphCount(); ++i) {
        QCPGraph *g = plot->graph(i);
        if (!g->realVisibility() || g->dataCount() == 0)
            continue;
        bool found = false;
        const QCPRange r = g->getKeyRange(found, QCP::sdBoth);
        if (!found)
            continue;
        keys = any ? QCPRange(std::min(keys.lower, r.lower), std::max(keys.upper, r.upper)) : r;
        any = true;
    }
    QCPAxis *x = lossRect->axis(QCPAxis::atBottom);
    if (!any) {
        // Nothing to show (a new project): the empty view of a new plot, not the last run's axes.
        x->setRange(0, kEmptySteps);
        lossRect->axis(QCPAxis::atRight)->setRange(0, accuracyMax);
        for (QCPAxis *a : {lossRect->axis(QCPAxis::atLeft), lrRect->axis(QCPAxis::atLeft)})
            a->setRange(a->scaleType() == QCPAxis::stLogarithmic ? QCPRange(0.01, 1) : QCPRange(0, 1));
        return;
    }
    {
        if (keys.size() <= 0)
            keys = QCPRange(keys.lower - 0.5, keys.upper + 0.5);
        // Room on the right, so the last evaluation marker is drawn whole.
        x->setRange(keys.lower, keys.upper + std::max(keys.size() * 0.03, 0.5));
    }
    lossRect->axis(QCPAxis::atRight)->setRange(0, accuracyMax);
    for (QCPAxis *a : {lossRect->axis(QCPAxis::atLeft), lrRect->axis(QCPAxis::atLeft)}) {
        // An axis with nothing drawn on it (a new run's empty loss panel beside the planned
        // schedule) gets the empty view, not the range of the run shown before (issue 44, item 11).
        const QList<QCPGraph *> graphs = a->graphs();
        const bool drawn = std::any_of(graphs.begin(), graphs.end(), [](const QCPGraph *g) {
            return g->realVisibility() && !g->data()->isEmpty();
        });
        if (!drawn) {
            a->setRange(a->scaleType() == QCPAxis::stLogarithmic ? QCPRange(0.01, 1) : QCPRange(0, 1));
            continue;
        }
        a->rescale(true);
        const QCPRange r = a->range();
        if (a->scaleType() == QCPAxis::stLinear) {
            const double pad = std::max(r.size() * 0.05, 1e-12);
            a->setRange(r.lower >= 0 ? std::max(0.0, r.lower - pad) : r.lower - pad, r.upper + pad);
        } else if (r.lower > 0) {
            a->setRange(r.lower / 1.5, r.upper * 1.5);
        }
    }
}

void applyXAxisMode(QCPAxisRect *lossRect, QCPAxisRect *lrRect, LossPlot::XAxis mode)
{
    QSharedPointer<QCPAxisTicker> ticker;
    QString label;
    switch (mode) {
    case LossPlot::XAxis::Step:
        ticker = stepTicker();
        label = LossPlot::tr("step");
        break;
    case LossPlot::XAxis::RelativeTime:
        ticker = formattedTicker(&QCPAxisTickerTime::setTimeFormat, QStringLiteral("%h:%m:%s"));
        label = LossPlot::tr("relative time (h:m:s)");
        break;
    case LossPlot::XAxis::WallTime:
        ticker = formattedTicker(&QCPAxisTickerDateTime::setDateTimeFormat, QStringLiteral("hh:mm:ss"));
        label = LossPlot::tr("wall time");
        break;
    }
    lossRect->axis(QCPAxis::atBottom)->setTicker(ticker);
    lrRect->axis(QCPAxis::atBottom)->setTicker(ticker);
    lrRect->axis(QCPAxis::atBottom)->setLabel(label);
}

} // namespace wb::plotaxes
