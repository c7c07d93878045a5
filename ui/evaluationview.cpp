// SPDX-License-Identifier: Apache-2.0
#include "ui/evaluationview.h"

#include "ui/classmetrics.h"

#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
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
    : QWidget(parent), m_warning(new QLabel(this)), m_summary(new QLabel(this)), m_confusion(new QTableWidget(this)), m_classes(new QTableWidget(this))
{
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setObjectName(QStringLiteral("evaluationSummary"));
    m_warning->setObjectName(QStringLiteral("learningWarning"));
    m_warning->setWordWrap(true);
    m_warning->setTextFormat(Qt::PlainText);
    m_warning->setStyleSheet(QStringLiteral("QLabel{background:#fff3d6;border:1px solid #e0a030;padding:6px;color:#603800}"));
    m_warning->hide();
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
    layout->addWidget(m_warning);
    layout->addWidget(new QLabel(tr("<b>Confusion matrix</b> (rows: true label, columns: predicted)"), this));
    layout->addWidget(m_confusion, 1);
    layout->addWidget(new QLabel(tr("<b>Per-class metrics</b>"), this));
    layout->addWidget(m_classes, 1);
    clear();
}

void EvaluationView::clear()
{
    m_evaluation = tr("No evaluation yet. The model is evaluated on the eval data at the end of each "
                      "evaluation interval (once per epoch, or more often with <i>Evaluations per epoch</i>).");
    m_note.clear();
    updateSummary();
    setWarnings({});
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
    m_evaluation = summary;
    m_note.clear();
    updateSummary();
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

void EvaluationView::setBaseline(const std::optional<MajorityBaseline> &baseline)
{
    m_baseline = baseline;
    updateSummary();
}

void EvaluationView::setWarnings(const QStringList &warnings)
{
    m_warning->setText(warnings.join(QLatin1Char('\n')));
    m_warning->setVisible(!warnings.isEmpty());
}

void EvaluationView::setNote(const QString &text)
{
    m_note = text;
    updateSummary();
}

void EvaluationView::updateSummary()
{
    QString text = m_evaluation;
    if (m_baseline) {
        QStringList counts;
        for (size_t i = 0; i < m_baseline->label_counts.size(); ++i)
            counts << tr("label %1: %2").arg(i).arg(m_baseline->label_counts[i]);
        text += tr("<br>Majority-class baseline %1 (always predicting label %2; eval data %3): a model that "
                   "learned beats it.")
                    .arg(m_baseline->accuracy, 0, 'f', 3)
                    .arg(m_baseline->majority_label)
                    .arg(counts.join(QStringLiteral(", ")));
    }
    if (!m_note.isEmpty())
        text += QStringLiteral("<br><i>%1</i>").arg(m_note.toHtmlEscaped());
    m_summary->setText(text);
}

QString EvaluationView::summaryText() const
{
    QString html = m_summary->text();
    html.replace(QStringLiteral("<br>"), QStringLiteral("\n"));
    return html.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
}

QString EvaluationView::warningText() const { return m_warning->isVisible() || !m_warning->text().isEmpty() ? m_warning->text() : QString(); }

} // namespace wb
