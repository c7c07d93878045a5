// SPDX-License-Identifier: Apache-2.0
#include "ui/evaluation/evaluationview.h"

#include "ui/evaluation/classmetrics.h"
#include "ui/evaluation/multilabelview.h"
#include "ui/evaluation/toplossesview.h"

#include "core/formats/bestmodel.h"
#include "core/formats/trainingsummary.h"

#include <QBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QRegularExpression>
#include <QResizeEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace wb {

namespace {

/// Largest size of the matrix and per-class tables (many labels scroll).
const QSize kMaxTableSize(900, 420);
/// Header texts longer than this many characters are broken into lines at spaces: a long
/// label name ("technical problem with the installation") makes a taller header, not a column
/// wider than a 1024-pixel window.
constexpr int kColumnHeaderChars = 17;
constexpr int kRowHeaderChars = 18;
/// The Top losses list is never squeezed below this height; the tab scrolls instead.
constexpr int kTopLossesMinHeight = 260;
/// Space between the matrix and the per-class table, side by side or one above the other.
constexpr int kTableSpacing = 24;

/// `text` with line breaks at spaces so that no line is longer than `maxChars` (a longer word
/// stays whole on its own line).
QString wrapped(const QString &text, int maxChars)
{
    if (text.size() <= maxChars)
        return text;
    QStringList lines;
    QString line;
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (!line.isEmpty() && line.size() + 1 + word.size() > maxChars) {
            lines << line;
            line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    if (!line.isEmpty())
        lines << line;
    return lines.join(QLatin1Char('\n'));
}

QTableWidgetItem *cell(const QString &text)
{
    auto *item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    item->setTextAlignment(Qt::AlignCenter);
    return item;
}

/// Makes `t` as large as its headers and cells, up to kMaxTableSize (scroll bars
/// beyond it): a 2×2 matrix does not stretch into empty space.
void fitToContents(QTableWidget *t)
{
    t->resizeColumnsToContents();
    t->resizeRowsToContents();
    const int frame = 2 * t->frameWidth();
    const int w = t->verticalHeader()->sizeHint().width() + t->horizontalHeader()->length() + frame;
    const int h = t->horizontalHeader()->sizeHint().height() + t->verticalHeader()->length() + frame;
    // Exactly that size (up to kMaxTableSize, scroll bars beyond it): a table squeezed by the
    // layout showed no row at all at 1024×700 (issue 44, item 6); the tab scrolls instead, and
    // the two tables stand one above the other when they are not both as wide as the tab.
    const QSize size(std::min(w, kMaxTableSize.width()), std::min(h, kMaxTableSize.height()));
    t->setMinimumSize(size);
    t->setMaximumSize(size);
    t->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    t->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
}

} // namespace

EvaluationView::EvaluationView(QWidget *parent)
    : QWidget(parent), m_warning(new QLabel(this)), m_summary(new QLabel(this)), m_confusion(new QTableWidget(this)),
      m_classes(new QTableWidget(this)), m_topLosses(new TopLossesView(this)), m_multiLabel(new MultiLabelView(this))
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
                               "The diagonal holds the correct predictions. Click a cell to list its examples "
                               "under Top losses; click it again to list all."));
    m_confusion->setSelectionMode(QAbstractItemView::SingleSelection);
    m_classes->setObjectName(QStringLiteral("classMetrics"));
    m_classes->setToolTip(tr("Precision: of the examples predicted as this class, how many were right. "
                             "Recall: of the examples of this class, how many were found. "
                             "F1: their harmonic mean."));
    m_classes->setSelectionMode(QAbstractItemView::NoSelection);
    for (QTableWidget *t : {m_confusion, m_classes}) {
        // Sized to the content: a small matrix does not stretch into empty space.
        t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
        t->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
        t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    }
    m_topLosses->setObjectName(QStringLiteral("topLosses"));
    connect(m_confusion, &QTableWidget::cellClicked, this, &EvaluationView::toggleCellFilter);
    connect(m_topLosses, &TopLossesView::filterChanged, this, [this] {
        if (!m_topLosses->hasFilter())
            m_confusion->clearSelection();
    });
    connect(m_topLosses, &TopLossesView::examplesLoaded, this, [this] {
        m_multiLabel->setExamples(m_topLosses->examples());
        fillMatrixFromExamples();
    });

    auto *matrixColumn = new QVBoxLayout;
    matrixColumn->addWidget(new QLabel(tr("<b>Confusion matrix</b> (rows: true label, columns: predicted)"), this));
    matrixColumn->addWidget(m_confusion);
    matrixColumn->addStretch(1);
    auto *classColumn = new QVBoxLayout;
    classColumn->addWidget(new QLabel(tr("<b>Per-class metrics</b>"), this));
    classColumn->addWidget(m_classes);
    classColumn->addStretch(1);
    auto *tablesBox = new QWidget(this);
    m_tables = new QBoxLayout(QBoxLayout::LeftToRight, tablesBox);
    m_tables->setContentsMargins(0, 0, 0, 0);
    m_tables->setSpacing(kTableSpacing);
    m_tables->addLayout(matrixColumn);
    m_tables->addLayout(classColumn);
    // Top losses keep a usable height: on a small screen the tab scrolls, nothing is squeezed away.
    m_topLosses->setMinimumHeight(kTopLossesMinHeight);
    // …and never widens the tab beyond the window (its long "Most confused" lines wrap or clip),
    // so that the summary above is not cut at the right edge.
    m_topLosses->setMinimumWidth(200);
    auto *content = new QWidget;
    content->setObjectName(QStringLiteral("evaluationContent"));
    auto *layout = new QVBoxLayout(content);
    layout->addWidget(m_summary);
    layout->addWidget(m_warning);
    layout->addWidget(tablesBox, 0, Qt::AlignLeft);
    layout->addWidget(m_multiLabel);
    layout->addWidget(m_topLosses, 1);
    m_scroll = new QScrollArea(this);
    m_scroll->setObjectName(QStringLiteral("evaluationScroll"));
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setWidget(content);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_scroll);
    clear();
}

void EvaluationView::clear()
{
    m_evaluation = tr("No evaluation yet. The model is evaluated on the eval data at the end of each "
                      "evaluation interval (once per epoch, or more often with <i>Evaluations per epoch</i>).");
    m_note.clear();
    m_which.clear();
    m_runEnd.clear();
    m_topLosses->setRunEnd(QString());
    m_seen.clear();
    m_hasMetrics = false;
    m_metrics = EvalMetrics();
    updateSummary();
    setWarnings({});
    showMatrix();
    m_topLosses->clear();
    m_topLosses->show();
    m_multiLabel->clear();
}

void EvaluationView::setLabelNames(const std::vector<std::string> &names)
{
    m_labelNames = names;
    m_topLosses->setLabelNames(names);
    m_multiLabel->setLabelNames(names);
    showMatrix();
    updateSummary();
}

QString EvaluationView::labelName(int64_t id) const
{
    if (id >= 0 && id < int64_t(m_labelNames.size()))
        return QString::fromStdString(m_labelNames[size_t(id)]);
    return tr("label %1").arg(id);
}

void EvaluationView::loadExamples(const QString &modelDir) { m_topLosses->load(modelDir); }

EvalMetrics EvaluationView::evaluationToShow(const std::vector<EvalMetrics> &evals, const std::string &modelDir,
                                             QString *which)
{
    if (which)
        which->clear();
    const RunCheckpointChoice choice = chooseRunCheckpoint(modelDir);
    if (choice.best)
        for (const EvalMetrics &m : evals)
            if (m.step == choice.step) {
                if (which)
                    *which = QString::fromStdString(choice.label());
                return m;
            }
    return evals.back();
}

void EvaluationView::showRunBest(const std::string &modelDir)
{
    if (m_seen.empty())
        return;
    QString which;
    const std::vector<EvalMetrics> seen = m_seen;
    const EvalMetrics best = evaluationToShow(seen, modelDir, &which);
    if (!which.isEmpty())
        setEvaluation(best, which);
}

void EvaluationView::setEvaluation(const EvalMetrics &m, const QString &which)
{
    m_note.clear();
    m_which = which;
    if (m_seen.empty() || m_seen.back().step != m.step)
        m_seen.push_back(m);
    m_metrics = m;
    m_hasMetrics = true;
    m_topLosses->setVisible(!m.regression); // eval_examples.jsonl is written for classification
    updateSummary();
    showMatrix();
    m_multiLabel->setEvaluation(m);
    m_multiLabel->setExamples(m_topLosses->examples());
    fillMatrixFromExamples();
}

void EvaluationView::showMatrix()
{
    const EvalMetrics &m = m_metrics;
    const bool hadFilter = m_topLosses->hasFilter();
    m_confusion->clear();
    m_classes->clear();
    m_tables->parentWidget()->setVisible(!m.multi_label); // MultiLabelView shows a multi-label evaluation
    if (!m_hasMetrics || m.regression || m.confusion.empty()) {
        m_confusion->setRowCount(0);
        m_confusion->setColumnCount(0);
        m_classes->setRowCount(0);
        m_classes->setColumnCount(0);
        m_confusion->hide();
        m_classes->hide();
        return;
    }
    m_confusion->show();
    m_classes->show();
    const int n = int(m.confusion.size());
    QStringList trueLabels, predictedLabels, names;
    for (int i = 0; i < n; ++i) {
        names << wrapped(labelName(i), kRowHeaderChars);
        trueLabels << wrapped(tr("true %1").arg(labelName(i)), kRowHeaderChars);
        predictedLabels << wrapped(tr("predicted %1").arg(labelName(i)), kColumnHeaderChars);
    }
    m_confusion->setRowCount(n);
    m_confusion->setColumnCount(n);
    m_confusion->setHorizontalHeaderLabels(predictedLabels);
    m_confusion->setVerticalHeaderLabels(trueLabels);
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
            item->setToolTip(tr("true %1, predicted %2: %3. Click to list the examples under Top losses.")
                                 .arg(labelName(t), labelName(p)).arg(c));
            m_confusion->setItem(t, p, item);
        }
    }
    const auto metrics = classMetrics(m.confusion);
    m_classes->setColumnCount(4);
    m_classes->setHorizontalHeaderLabels({tr("precision"), tr("recall"), tr("F1"), tr("support")});
    m_classes->setRowCount(n);
    m_classes->setVerticalHeaderLabels(names);
    for (int i = 0; i < n; ++i) {
        m_classes->setItem(i, 0, cell(QString::number(metrics[i].precision, 'f', 4)));
        m_classes->setItem(i, 1, cell(QString::number(metrics[i].recall, 'f', 4)));
        m_classes->setItem(i, 2, cell(QString::number(metrics[i].f1, 'f', 4)));
        m_classes->setItem(i, 3, cell(QString::number(metrics[i].support)));
    }
    if (hadFilter) {
        const auto f = *m_topLosses->cellFilter();
        if (f.first < n && f.second < n)
            m_confusion->setCurrentCell(int(f.first), int(f.second));
    }
    fitToContents(m_confusion);
    fitToContents(m_classes);
    arrangeTables();
}

void EvaluationView::arrangeTables()
{
    // Side by side when both fit in the tab's width, else the per-class table under the matrix.
    const int margins = m_scroll->widget()->layout()->contentsMargins().left()
                        + m_scroll->widget()->layout()->contentsMargins().right();
    const int needed = m_confusion->maximumWidth() + kTableSpacing + m_classes->maximumWidth() + margins
                       + m_scroll->verticalScrollBar()->sizeHint().width();
    const auto direction = needed <= m_scroll->width() ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    m_multiLabel->setAvailableWidth(m_scroll->width() - margins - m_scroll->verticalScrollBar()->sizeHint().width());
    if (m_tables->direction() != direction)
        m_tables->setDirection(direction);
}

void EvaluationView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    arrangeTables();
}

void EvaluationView::fillMatrixFromExamples()
{
    const std::vector<EvalExample> &examples = m_topLosses->examples();
    if (!m_hasMetrics || m_metrics.regression || m_metrics.multi_label || !m_metrics.confusion.empty() || examples.empty()
        || examples.front().step != m_metrics.step)
        return;
    int64_t n = 0;
    for (const EvalExample &e : examples)
        n = std::max({n, e.true_label_id + 1, e.predicted_label_id + 1, int64_t(e.probabilities.size())});
    if (n <= 0 || n > 1000)
        return;
    std::vector<std::vector<int64_t>> confusion(size_t(n), std::vector<int64_t>(size_t(n), 0));
    for (const EvalExample &e : examples)
        if (e.true_label_id >= 0 && e.predicted_label_id >= 0)
            ++confusion[size_t(e.true_label_id)][size_t(e.predicted_label_id)];
    m_metrics.confusion = std::move(confusion);
    showMatrix();
}

void EvaluationView::toggleCellFilter(int trueLabel, int predictedLabel)
{
    const auto current = m_topLosses->cellFilter();
    if (current && current->first == trueLabel && current->second == predictedLabel) {
        m_topLosses->clearFilter();
        return;
    }
    m_topLosses->setCellFilter(trueLabel, predictedLabel);
}

void EvaluationView::setBaseline(const std::optional<MajorityBaseline> &baseline)
{
    m_baseline = baseline;
    updateSummary();
}

void EvaluationView::setBagOfWordsBaseline(std::optional<double> accuracy)
{
    m_bagOfWords = accuracy;
    updateSummary();
}

QString EvaluationView::bagOfWordsVerdictText() const
{
    if (!m_bagOfWords || !m_hasMetrics || m_metrics.regression || m_metrics.multi_label)
        return {}; // multi-label: compared by micro-F1 at the run's end (compareWithBagOfWords)
    return QString::fromStdString(bagOfWordsVerdict(m_metrics.eval_accuracy, *m_bagOfWords));
}

void EvaluationView::setWarnings(const QStringList &warnings)
{
    m_warning->setText(warnings.join(QLatin1Char('\n')));
    m_warning->setVisible(!warnings.isEmpty());
}

void EvaluationView::setCoachNotes(const std::vector<CoachNote> &current)
{
    setWarnings(learningVerdictTexts(current));
    m_bagOfWordsAdvice.clear();
    for (const CoachNote &n : current)
        if (n.id == "below_bag_of_words")
            m_bagOfWordsAdvice = QString::fromStdString(n.text);
    updateSummary();
}

void EvaluationView::setNote(const QString &text)
{
    m_note = text;
    updateSummary();
}

QString EvaluationView::headline(bool html) const
{
    if (!m_hasMetrics)
        return QString();
    const EvalMetrics &m = m_metrics;
    // The kept best checkpoint's evaluation is named as the run's end says it everywhere else.
    const QString which = m_which.isEmpty() ? QString() : m_runEnd.isEmpty() ? m_which : m_runEnd;
    const QString bold = html ? QStringLiteral("<b>%1</b>") : QStringLiteral("%1");
    return tr("%1%4 on %2 examples: loss %3")
        .arg(bold.arg(tr("Evaluation at step %1").arg(m.step)))
        .arg(m.num_examples)
        .arg(m.eval_loss, 0, 'f', 4)
        .arg(which.isEmpty() ? QString() : QLatin1Char(' ') + bold.arg(tr("(%1)").arg(html ? which.toHtmlEscaped() : which)));
}

QString EvaluationView::headlineText() const { return headline(false); }

void EvaluationView::setRunEnd(const QString &phrase)
{
    m_runEnd = phrase;
    m_topLosses->setRunEnd(phrase);
    updateSummary();
}

void EvaluationView::updateSummary()
{
    QString text = m_evaluation;
    if (m_hasMetrics) {
        const EvalMetrics &m = m_metrics;
        text = headline(true);
        if (m.multi_label) { // docs/multi-label.md: each label at 0.5, then the tuned thresholds' fair estimate
            text += tr(", micro-F1 %1, macro-F1 %2, samples-F1 %3, Hamming loss %4, subset accuracy %5 (every label "
                       "decided at 0.5)<br>With each label's own threshold: micro-F1 %6, macro-F1 %7 (measured on "
                       "eval texts the thresholds were not tuned on)")
                        .arg(m.eval_micro_f1, 0, 'f', 4)
                        .arg(m.eval_macro_f1, 0, 'f', 4)
                        .arg(m.eval_samples_f1, 0, 'f', 4)
                        .arg(m.eval_hamming_loss, 0, 'f', 4)
                        .arg(m.eval_accuracy, 0, 'f', 4)
                        .arg(m.eval_micro_f1_tuned, 0, 'f', 4)
                        .arg(m.eval_macro_f1_tuned, 0, 'f', 4);
        } else if (m.regression) {
            // null in metrics.jsonl (a correlation of a constant prediction is undefined) reads as NaN.
            const auto value = [](double v) { return std::isfinite(v) ? QString::number(v, 'f', 4) : EvaluationView::tr("n/a"); };
            text += tr(", MSE %1, Pearson %2, Spearman %3")
                        .arg(value(m.eval_mse), value(m.eval_pearson), value(m.eval_spearman));
        } else {
            text += tr(", accuracy %1").arg(m.eval_accuracy, 0, 'f', 4);
            // F1 and MCC take label 1 as the positive class (binary tasks).
            if (m.binary)
                text += tr(", F1 %1 (positive class: %3), MCC %2")
                            .arg(m.eval_f1, 0, 'f', 4).arg(m.eval_mcc, 0, 'f', 4).arg(labelName(1).toHtmlEscaped());
            // Macro-F1: the mean of the per-class F1 (the table below), as the CLI and metrics.jsonl report it.
            double macro = m.eval_macro_f1;
            if (m.class_f1.empty()) { // recorded before the per-class metrics were: from the matrix
                const auto per = classMetrics(m.confusion);
                macro = 0;
                for (const auto &c : per)
                    macro += c.f1 / double(per.size());
            }
            if (!m.class_f1.empty() || !m.confusion.empty())
                text += tr(", macro-F1 %1").arg(macro, 0, 'f', 4);
        }
        if (m.distilled) // docs/distillation.md, "Agreement with the teacher"
            text += tr("<br>Agreement with the teacher: %1 of the eval texts get the teacher's label%2")
                        .arg(QLocale().toString(100.0 * m.eval_teacher_agreement, 'f', 1) + QStringLiteral(" %"),
                             m.multi_label ? tr(" (each label's decision at 0.5)") : QString());
    }
    if (m_baseline) {
        QStringList counts;
        for (size_t i = 0; i < m_baseline->label_counts.size(); ++i)
            counts << tr("%1: %2").arg(labelName(int64_t(i)).toHtmlEscaped()).arg(m_baseline->label_counts[i]);
        text += tr("<br>Majority-class baseline %1 (always predicting %2; eval data %3): a model that "
                   "learned beats it.")
                    .arg(m_baseline->accuracy, 0, 'f', 3)
                    .arg(labelName(m_baseline->majority_label).toHtmlEscaped())
                    .arg(counts.join(QStringLiteral(", ")));
    }
    if (const QString verdict = bagOfWordsVerdictText(); !verdict.isEmpty()) {
        text += QStringLiteral("<br>%1.").arg(verdict.toHtmlEscaped());
        if (!m_bagOfWordsAdvice.isEmpty()) // the advice is the coach's
            text += QStringLiteral(" %1").arg(m_bagOfWordsAdvice.toHtmlEscaped());
    }
    else if (m_bagOfWords && !(m_hasMetrics && m_metrics.multi_label)) // its accuracy is no multi-label yardstick
        text += tr("<br>Bag-of-words baseline %1 (TF-IDF + logistic regression on the same wordpieces, "
                   "prepare_report.json): a fine-tuned BERT should beat it.")
                    .arg(*m_bagOfWords, 0, 'f', 3);
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
