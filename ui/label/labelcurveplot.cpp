// SPDX-License-Identifier: Apache-2.0
// QCustomPlot 2.1's header uses Qt's keywords (signals, foreach); allow them in this file only.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/label/labelcurveplot.h"

#include "core/label/labelcurve.h"
#include "ui/common/qtext.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace wb {

namespace {

enum Graph { ModelGraph = 0, BaselineGraph = 1, GhostGraph = 2, GhostBaselineGraph = 3 };

void addGraph(QCustomPlot *plot, const QString &name, const QColor &colour, Qt::PenStyle style, QCPScatterStyle::ScatterShape shape)
{
    QCPGraph *g = plot->addGraph();
    g->setName(name);
    QPen pen(colour, 2);
    pen.setStyle(style);
    g->setPen(pen);
    g->setScatterStyle(QCPScatterStyle(shape, colour, colour, 6));
}

/// Sets graph `g` to the points of `m`: accuracy, or the baseline when `baseline`; returns how many.
int fill(QCustomPlot *plot, int g, const std::vector<CurvePoint> &m, bool baseline)
{
    QVector<double> x, y;
    for (const CurvePoint &p : m) {
        const double v = baseline ? p.bag_of_words_accuracy : p.accuracy;
        if (!std::isfinite(v))
            continue;
        x << double(p.labels);
        y << 100.0 * v;
    }
    plot->graph(g)->setData(x, y, true);
    plot->graph(g)->setVisible(!x.isEmpty());
    plot->graph(g)->removeFromLegend();
    if (!x.isEmpty())
        plot->graph(g)->addToLegend();
    return int(x.size());
}

} // namespace

QString strategyWords(const std::string &strategy)
{
    return strategy == "random" ? QObject::tr("random order") : QObject::tr("most useful first");
}

QString counted(qlonglong n, const QString &one, const QString &many)
{
    return QLocale().toString(n) + QLatin1Char(' ') + (n == 1 ? one : many);
}

LabelCurvePlot::LabelCurvePlot(QWidget *parent) : QWidget(parent), m_plot(new QCustomPlot), m_note(new QLabel)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_plot->setObjectName(QStringLiteral("labelCurve"));
    m_plot->setMinimumHeight(160);
    m_note->setObjectName(QStringLiteral("labelCurveNote"));
    m_note->setWordWrap(true);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_note);
    m_plot->xAxis->setLabel(tr("labels given"));
    m_plot->yAxis->setLabel(tr("accuracy on the texts kept aside (%)"));
    m_plot->yAxis->setRange(0, 100);
    m_plot->xAxis->setRange(0, 100);
    addGraph(m_plot, tr("model"), QColor(31, 119, 180), Qt::SolidLine, QCPScatterStyle::ssDisc);
    addGraph(m_plot, tr("bag-of-words baseline"), QColor(150, 150, 150), Qt::SolidLine, QCPScatterStyle::ssSquare);
    addGraph(m_plot, tr("model, other order"), QColor(31, 119, 180), Qt::DashLine, QCPScatterStyle::ssCircle);
    addGraph(m_plot, tr("baseline, other order"), QColor(150, 150, 150), Qt::DashLine, QCPScatterStyle::ssNone);
    m_plot->legend->setVisible(true);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    setCurve({}, "uncertain_diverse", 0);
}

void LabelCurvePlot::setCurve(const std::vector<CurvePoint> &curve, const std::string &strategy, qlonglong heldOutLabels,
                              qlonglong heldOutEvery)
{
    const std::vector<CurvePoint> own = measuredCurve(curve, strategy);
    const std::string other = strategy == "random" ? "uncertain_diverse" : "random";
    std::vector<CurvePoint> ghost;
    for (const CurvePoint &p : measuredCurve(curve, other))
        if (p.strategy == other) // points without a strategy are the session's own
            ghost.push_back(p);
    fill(m_plot, ModelGraph, own, false);
    fill(m_plot, BaselineGraph, own, true);
    fill(m_plot, GhostGraph, ghost, false);
    fill(m_plot, GhostBaselineGraph, ghost, true);
    m_plot->graph(ModelGraph)->setName(tr("model, %1").arg(strategyWords(strategy)));
    m_plot->graph(GhostGraph)->setName(tr("model, %1").arg(strategyWords(other)));
    int64_t most = 10;
    for (const CurvePoint &p : own)
        most = std::max(most, p.labels);
    for (const CurvePoint &p : ghost)
        most = std::max(most, p.labels);
    m_plot->xAxis->setRange(0, double(most) * 1.05 + 1);
    m_plot->replot(QCustomPlot::rpQueuedReplot);

    QString note;
    if (own.empty() && heldOutLabels < 2)
        note = tr("No point yet: the curve is measured on texts kept aside, and needs at least 2 of them labelled "
                  "(%1 so far; one text in %2 shown is one).")
                   .arg(heldOutLabels)
                   .arg(heldOutEvery);
    else if (own.empty())
        note = tr("The first point comes with the next model.");
    else if (const Plateau p = labelsStoppedHelping(own); p.reached)
        note = q(plateauNote(p, PlateauRule().points));
    else
        note = tr("Accuracy of each model on the labelled texts kept aside when it was trained (%1 for the last "
                  "one); the grey line is the bag-of-words baseline on the same texts.")
                   .arg(QLocale().toString(qlonglong(own.back().eval_examples)));
    m_note->setText(note);
}

QString LabelCurvePlot::note() const { return m_note->text(); }
int LabelCurvePlot::modelPoints() const { return m_plot->graph(ModelGraph)->dataCount(); }
int LabelCurvePlot::baselinePoints() const { return m_plot->graph(BaselineGraph)->dataCount(); }
int LabelCurvePlot::ghostPoints() const { return m_plot->graph(GhostGraph)->dataCount(); }

} // namespace wb
