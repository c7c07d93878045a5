// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"
#include "core/formats/evalexamples.h"

#include <array>
#include <string>
#include <vector>

#include <QWidget>

class QComboBox;
class QCustomPlot;
class QCPCurve;
class QCPItemText;
class QLabel;
class QTableWidget;

namespace wb {

/// The per-label part of the Evaluation tab for a multi-label run (docs/multi-label.md):
/// a label chooser; the chosen label's precision–recall curve (scikit-learn's
/// precision_recall_curve over the eval texts' probabilities in eval_examples.jsonl, drawn as
/// steps like PrecisionRecallDisplay) with two marked points, every label decided at the
/// global 0.5 and at the label's tuned threshold (the evaluation's "thresholds"), and its
/// average precision in the title; and a table, one row per label: support, then TP, FP, FN,
/// TN, precision, recall and F1 at 0.5 (the evaluation's label_confusion) and at the tuned
/// threshold (counted from eval_examples.jsonl). Hidden for any other evaluation. Sized to its
/// content (the tab around it scrolls). GUI thread only.
class MultiLabelView : public QWidget
{
    Q_OBJECT
public:
    explicit MultiLabelView(QWidget *parent = nullptr);

    /// Names of label ids 0…N−1; ids beyond them read "label N". Redraws.
    void setLabelNames(const std::vector<std::string> &names);
    /// The evaluation shown: a multi-label one shows the view, any other hides it. Examples
    /// set before of another step are no longer used.
    void setEvaluation(const EvalMetrics &m);
    /// The per-example results (readEvalExamples): used when they are multi-label and of the
    /// evaluation's step; else the curve and the tuned columns say why they are missing.
    void setExamples(const std::vector<EvalExample> &examples);
    /// The width the tab gives the view (pixels): a wider table gets its own horizontal
    /// scroll bar instead of widening the tab. Called by EvaluationView on resize.
    void setAvailableWidth(int width);
    /// Forgets the evaluation and the examples and hides the view.
    void clear();

    /// The label whose curve is shown (−1: none).
    int currentLabel() const;
    void setCurrentLabel(int labelId);

    QComboBox *labelChooser() const { return m_chooser; }
    QCustomPlot *plot() const { return m_plot; }
    /// The curve's points, (recall, precision) in scikit-learn's order (recall falling; the end
    /// point (0, 1) last), drawn as dots; the step line through them is stepCurve().
    QCPCurve *pointsCurve() const { return m_points; }
    QCPCurve *stepCurve() const { return m_steps; }
    /// The marked points: 0 at the global 0.5, 1 at the tuned threshold. Each a dot at (recall,
    /// precision) and a text ("threshold 0.5", "tuned threshold 0.65").
    QCPCurve *markerCurve() const { return m_markers; }
    QCPItemText *markerText(int i) const { return m_markerTexts[size_t(i)]; }
    /// The curve's title ("billing: average precision 0.8333") and the line under the curve
    /// (why there is no curve, or what the two marks are).
    QString titleText() const;
    QString noteText() const;
    QTableWidget *labelTable() const { return m_table; }

private:
    /// Which thresholds classify and the export use, after this evaluation (one sentence).
    QString usedThresholdsNote() const;
    QString labelName(int64_t id) const;
    int64_t labelCount() const;
    bool examplesUsable() const;
    /// Label `k`'s probabilities and 0/1 truths over the examples.
    void labelColumn(int64_t k, std::vector<double> &scores, std::vector<int64_t> &truth) const;
    double tunedThreshold(int64_t k) const;
    void fillChooser();
    void drawCurve();
    void markPoint(int i, const std::array<int64_t, 4> &counts, const QString &text);
    void fillTable();
    void fillTableRow(int row);

    EvalMetrics m_metrics;
    bool m_hasMetrics = false;
    std::vector<EvalExample> m_examples;
    std::vector<std::string> m_labelNames;
    QComboBox *m_chooser;
    QLabel *m_title;
    QCustomPlot *m_plot;
    QCPCurve *m_points = nullptr, *m_steps = nullptr, *m_markers = nullptr;
    std::array<QCPItemText *, 2> m_markerTexts{};
    QLabel *m_note;
    QLabel *m_tableNote;
    QTableWidget *m_table;
    int m_availableWidth = 100000;
};

} // namespace wb
