// SPDX-License-Identifier: Apache-2.0
#include "ui/evaluationview.h"

#include "ui/classmetrics.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace wb {

namespace {

QTableWidgetItem *cell(const QString &text)
{
    auto *item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    item->setTextAlignment(Qt::AlignCenter);
    return item;
}

} // namespace

EvaluationView::EvaluationView(QWidget *parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_confusion(new QTableWidget(this)), m_classes(new QTableWidget(this))
{
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_confusion->setObjectName(QStringLiteral("confusionMatrix"));
    m_confusion->setToolTip(tr("Rows: the true label. Columns: what the model predicted. "
                               "The diagonal holds the correct predictions."));
    m_classes->setObjectName(QStringLiteral("classMetrics"));
    m_classes->setToolTip(tr("Precision: of the examples predicted as this class, how many were right. "
                             "Recall: of the examples of this class, how many were found. "
                             "F1: their harmonic mean."));
    for (QTableWidget *t : {m_confusion, m_classes}) {
        t->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
        t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    }
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(new QLabel(tr("<b>Confusion matrix</b> (rows: true label, columns: predicted)"), this));
    layout->addWidget(m_confusion, 1);
    layout->addWidget(new QLabel(tr("<b>Per-class metrics</b>"), this));
    layout->addWidget(m_classes, 1);
    clear();
}

void EvaluationView::clear()
{
    m_summary->setText(tr("No evaluation yet. The model is evaluated on the eval data after each "
                          "epoch (or more often with <i>Evaluations per epoch</i>)."));
    m_confusion->clear();
    m_confusion->setRowCount(0);
    m_confusion->setColumnCount(0);
    m_classes->clear();
    m_classes->setRowCount(0);
    m_classes->setColumnCount(0);
}

void EvaluationView::setEvaluation(const EvalMetrics &m)
{
    QString summary = tr("<b>Evaluation at step %1</b> on %2 examples: loss %3")
                          .arg(m.step).arg(m.num_examples).arg(m.eval_loss, 0, 'f', 4);
    if (m.regression) {
        summary += tr(", MSE %1, Pearson %2, Spearman %3")
                       .arg(m.eval_mse, 0, 'f', 4).arg(m.eval_pearson, 0, 'f', 4).arg(m.eval_spearman, 0, 'f', 4);
    } else {
        summary += tr(", accuracy %1").arg(m.eval_accuracy, 0, 'f', 4);
        if (m.binary)
            summary += tr(", F1 %1, MCC %2").arg(m.eval_f1, 0, 'f', 4).arg(m.eval_mcc, 0, 'f', 4);
    }
    m_summary->setText(summary);
    if (m.regression || m.confusion.empty()) {
        m_confusion->setRowCount(0);
        m_classes->setRowCount(0);
        return;
    }
    const int n = int(m.confusion.size());
    QStringList labels;
    for (int i = 0; i < n; ++i)
        labels << tr("label %1").arg(i);
    m_confusion->setRowCount(n);
    m_confusion->setColumnCount(n);
    m_confusion->setHorizontalHeaderLabels(labels);
    m_confusion->setVerticalHeaderLabels(labels);
    int64_t maxCount = 1;
    for (const auto &row : m.confusion)
        for (int64_t c : row)
            maxCount = std::max(maxCount, c);
    for (int t = 0; t < n; ++t) {
        for (int p = 0; p < n; ++p) {
            const int64_t c = p < int(m.confusion[t].size()) ? m.confusion[t][p] : 0;
            auto *item = cell(QString::number(c));
            const double share = double(c) / double(maxCount);
            const QColor base = t == p ? QColor(44, 160, 44) : QColor(214, 39, 40);
            QColor bg = base;
            bg.setAlphaF(0.08 + 0.6 * share);
            item->setBackground(bg);
            m_confusion->setItem(t, p, item);
        }
    }
    const auto metrics = classMetrics(m.confusion);
    m_classes->setColumnCount(4);
    m_classes->setHorizontalHeaderLabels({tr("precision"), tr("recall"), tr("F1"), tr("support")});
    m_classes->setRowCount(n);
    m_classes->setVerticalHeaderLabels(labels);
    for (int i = 0; i < n; ++i) {
        m_classes->setItem(i, 0, cell(QString::number(metrics[i].precision, 'f', 4)));
        m_classes->setItem(i, 1, cell(QString::number(metrics[i].recall, 'f', 4)));
        m_classes->setItem(i, 2, cell(QString::number(metrics[i].f1, 'f', 4)));
        m_classes->setItem(i, 3, cell(QString::number(metrics[i].support)));
    }
}

} // namespace wb
