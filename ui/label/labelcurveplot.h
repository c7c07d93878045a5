// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/label/labelsession.h"

#include <QString>
#include <QWidget>

#include <vector>

class QCustomPlot;
class QLabel;

namespace wb {

/// The curve of a labelling session (issue 47; docs/label-to-learn.md, "In the window"): eval
/// accuracy (%) against the number of labels given, one point per model (curve.jsonl's measured
/// points, core/label/labelcurve.h measuredCurve), the bag-of-words baseline on the same texts as
/// a second line, and, when curve.jsonl holds points of the other order (the simulated
/// annotator's "random" ghost, `label_simulate`), those dashed. The note under it says why there
/// is no point yet, or when more labels stopped helping (labelsStoppedHelping). GUI thread only.
class LabelCurvePlot : public QWidget
{
    Q_OBJECT
public:
    explicit LabelCurvePlot(QWidget *parent = nullptr);

    /// Draws `curve` for the session's `strategy`; `heldOutLabels` is the number of held-out
    /// labels given so far and every how many texts shown one is held out (the note says how many
    /// more are needed for a first point).
    void setCurve(const std::vector<CurvePoint> &curve, const std::string &strategy, qlonglong heldOutLabels,
                  qlonglong heldOutEvery = 5);

    /// The note under the plot.
    QString note() const;
    /// Points drawn per line: the model, the bag-of-words baseline, the other order's ghost.
    int modelPoints() const;
    int baselinePoints() const;
    int ghostPoints() const;
    QCustomPlot *plot() const { return m_plot; }

private:
    QCustomPlot *m_plot;
    QLabel *m_note;
};

/// The words of a strategy on screen: "most useful first" or "random order".
QString strategyWords(const std::string &strategy);
/// "1 label", "1,234 labels" (the locale's digits; `one` and `many` for other nouns).
QString counted(qlonglong n, const QString &one = QObject::tr("label"), const QString &many = QObject::tr("labels"));

} // namespace wb
