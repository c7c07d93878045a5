// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"
#include "ui/learningcheck.h"

#include <optional>

#include <QWidget>

class QLabel;
class QTableWidget;

namespace wb {

/// Shows the latest evaluation: summary metrics, the confusion matrix (rows: true label,
/// columns: predicted) as a heat map, and per-class precision, recall, F1 and support.
/// GUI thread only.
class EvaluationView : public QWidget
{
    Q_OBJECT
public:
    explicit EvaluationView(QWidget *parent = nullptr);

    void setEvaluation(const EvalMetrics &m);
    void clear();
    /// The majority-class baseline shown under the summary (nothing: unknown). Kept by clear().
    void setBaseline(const std::optional<MajorityBaseline> &baseline);
    std::optional<MajorityBaseline> baseline() const { return m_baseline; }
    /// Sentences saying the model did not learn (learningWarnings()); empty hides them.
    void setWarnings(const QStringList &warnings);
    /// A line under the summary (e.g. where a recorded evaluation came from).
    void setNote(const QString &text);
    /// The summary as plain text (step, metrics, baseline, note).
    QString summaryText() const;
    QString warningText() const;

    QTableWidget *confusionTable() const { return m_confusion; }
    QTableWidget *classTable() const { return m_classes; }

private:
    void updateSummary();

    QString m_evaluation, m_note;
    std::optional<MajorityBaseline> m_baseline;
    QLabel *m_warning;
    QLabel *m_summary;
    QTableWidget *m_confusion;
    QTableWidget *m_classes;
};

} // namespace wb
