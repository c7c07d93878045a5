// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"

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

    QTableWidget *confusionTable() const { return m_confusion; }
    QTableWidget *classTable() const { return m_classes; }

private:
    QLabel *m_summary;
    QTableWidget *m_confusion;
    QTableWidget *m_classes;
};

} // namespace wb
