// SPDX-License-Identifier: Apache-2.0
// QCustomPlot 2.1's header uses Qt's keywords (signals, foreach); allow them in this file only.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/evaluation/multilabelview.h"

#include "core/advice/prcurve.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace wb {

namespace {

/// The precision–recall plot's largest and smallest size: it narrows with a narrow tab (the form
/// beside it at 1024×700) instead of making the tab scroll sideways.
const QSize kPlotSize(520, 330);
constexpr int kPlotMinWidth = 280;
/// Largest size of the per-label table (many labels scroll inside it).
const QSize kMaxTableSize(980, 420);
/// The tuned-threshold columns are shaded so that the two groups of equal headers read apart.
const QColor kTunedShade(226, 238, 250);
const QColor kCurveColour(0, 114, 178);  // Okabe & Ito's blue, as the Embeddings view
const QColor kMarkColour(213, 94, 0);    // their vermillion
/// Columns: support; TP, FP, FN, TN, precision, recall, F1 at 0.5; the tuned threshold; the same seven there.
constexpr int kTunedColumn = 8;

QTableWidgetItem *cell(const QString &text, bool tuned)
{
    auto *item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    item->setTextAlignment(Qt::AlignCenter);
    if (tuned)
        item->setBackground(kTunedShade);
    return item;
}

/// A label name broken into lines at spaces, none longer than 18 characters where it can
/// (a long word stays whole): a long name makes a taller row, not a wider table.
QString wrappedName(const QString &text)
{
    constexpr int kMaxChars = 18;
    QStringList lines;
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (!lines.isEmpty() && lines.back().size() + 1 + word.size() <= kMaxChars)
            lines.back() += QLatin1Char(' ') + word;
        else
            lines << word;
    }
    return lines.isEmpty() ? text : lines.join(QLatin1Char('\n'));
}

/// A threshold as the tab writes it: up to 4 significant digits ("0.5", "0.65", "0.3125").
QString thresholdText(double t) { return QString::number(t, 'g', 4); }

/// The seven cells of `counts` from column `first`: TP, FP, FN, TN, precision, recall, F1.
void setCountCells(QTableWidget *t, int row, int first, const std::array<int64_t, 4> &counts, bool tuned)
{
    const BinaryScores s = binaryScores(counts);
    const int64_t values[] = {counts[3], counts[1], counts[2], counts[0]};
    for (int i = 0; i < 4; ++i)
        t->setItem(row, first + i, cell(QString::number(values[i]), tuned));
    // Three decimals (scikit-learn's classification_report gives two): both groups fit beside
    // the form at 1024×700.
    t->setItem(row, first + 4, cell(QString::number(s.precision, 'f', 3), tuned));
    t->setItem(row, first + 5, cell(QString::number(s.recall, 'f', 3), tuned));
    t->setItem(row, first + 6, cell(QString::number(s.f1, 'f', 3), tuned));
}

/// Makes `t` exactly as large as its headers and cells, up to kMaxTableSize and `maxWidth`
/// (then with room for its own horizontal scroll bar): a table squeezed by a layout showed no
/// row at 1024×700 (issue 44, item 6); the tab scrolls down instead, never sideways.
void fitToContents(QTableWidget *t, int maxWidth)
{
    t->resizeColumnsToContents();
    t->resizeRowsToContents();
    const int frame = 2 * t->frameWidth();
    const int w = t->verticalHeader()->sizeHint().width() + t->horizontalHeader()->length() + frame;
    const int h = t->horizontalHeader()->sizeHint().height() + t->verticalHeader()->length() + frame;
    const int width = std::min({w, kMaxTableSize.width(), std::max(maxWidth, 200)});
    const int bar = width < w ? t->horizontalScrollBar()->sizeHint().height() : 0;
    const QSize size(width, std::min(h + bar, kMaxTableSize.height()));
    t->setMinimumSize(size);
    t->setMaximumSize(size);
    t->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
}

} // namespace

MultiLabelView::MultiLabelView(QWidget *parent)
    : QWidget(parent), m_chooser(new QComboBox(this)), m_title(new QLabel(this)), m_plot(new QCustomPlot(this)),
      m_note(new QLabel(this)), m_tableNote(new QLabel(this)), m_table(new QTableWidget(this))
{
    m_chooser->setObjectName(QStringLiteral("multiLabelChooser"));
    m_chooser->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_chooser->setToolTip(tr("The label whose precision–recall curve is drawn"));
    m_title->setObjectName(QStringLiteral("precisionRecallTitle"));
    m_plot->setObjectName(QStringLiteral("precisionRecallCurve"));
    m_plot->setMinimumSize(kPlotMinWidth, kPlotSize.height());
    m_plot->setMaximumSize(kPlotSize);
    m_plot->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_plot->xAxis->setLabel(tr("recall"));
    m_plot->yAxis->setLabel(tr("precision"));
    m_plot->xAxis->setRange(-0.02, 1.04);
    m_plot->yAxis->setRange(-0.02, 1.12); // room for a mark's text above precision 1
    m_steps = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
    m_steps->setPen(QPen(kCurveColour, 2));
    m_points = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
    m_points->setLineStyle(QCPCurve::lsNone);
    m_points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, kCurveColour, 6));
    m_markers = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
    m_markers->setLineStyle(QCPCurve::lsNone);
    m_markers->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QPen(Qt::black, 1), kMarkColour, 10));
    for (auto &text : m_markerTexts) {
        text = new QCPItemText(m_plot);
        text->position->setType(QCPItemPosition::ptPlotCoords);
        text->setPadding(QMargins(7, 3, 7, 3));
        text->setColor(QColor(120, 50, 0));
        text->setVisible(false);
    }
    m_note->setObjectName(QStringLiteral("precisionRecallNote"));
    m_note->setWordWrap(true);
    m_note->setMaximumWidth(kMaxTableSize.width());
    m_tableNote->setWordWrap(true);
    m_tableNote->setMaximumWidth(kMaxTableSize.width());
    m_table->setObjectName(QStringLiteral("labelConfusion"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setToolTip(tr("TP: texts with the label that got it; FP: texts without it that got it; FN: texts "
                           "with it that did not; TN: the rest. Click a row to draw that label's curve."));
    connect(m_table, &QTableWidget::cellClicked, this, [this](int row, int) { setCurrentLabel(row); });
    connect(m_chooser, &QComboBox::currentIndexChanged, this, [this] { drawCurve(); });

    auto *chooserRow = new QHBoxLayout;
    chooserRow->addWidget(new QLabel(tr("<b>Per-label results</b> &nbsp; Label:"), this));
    chooserRow->addWidget(m_chooser);
    chooserRow->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(chooserRow);
    layout->addWidget(m_title);
    layout->addWidget(m_plot);
    layout->addWidget(m_note);
    layout->addWidget(m_tableNote);
    layout->addWidget(m_table, 0, Qt::AlignLeft);
    clear();
}

void MultiLabelView::clear()
{
    m_metrics = EvalMetrics();
    m_hasMetrics = false;
    m_examples.clear();
    fillChooser();
    fillTable();
    hide();
}

void MultiLabelView::setAvailableWidth(int width)
{
    if (width == m_availableWidth)
        return;
    m_availableWidth = width;
    if (m_table->rowCount() > 0)
        fitToContents(m_table, m_availableWidth);
}

void MultiLabelView::setLabelNames(const std::vector<std::string> &names)
{
    m_labelNames = names;
    fillChooser();
    fillTable();
}

void MultiLabelView::setEvaluation(const EvalMetrics &m)
{
    m_metrics = m;
    m_hasMetrics = m.multi_label;
    setVisible(m_hasMetrics);
    fillChooser();
    fillTable();
}

void MultiLabelView::setExamples(const std::vector<EvalExample> &examples)
{
    m_examples = examples;
    drawCurve();
    fillTable();
}

QString MultiLabelView::labelName(int64_t id) const
{
    if (id >= 0 && id < int64_t(m_labelNames.size()))
        return QString::fromStdString(m_labelNames[size_t(id)]);
    return tr("label %1").arg(id);
}

int64_t MultiLabelView::labelCount() const
{
    if (!m_hasMetrics)
        return 0;
    const size_t n = std::max({m_metrics.label_confusion.size(), m_metrics.thresholds.size(), m_metrics.class_f1.size()});
    if (n > 0 || m_examples.empty())
        return int64_t(n);
    return int64_t(m_examples.front().probabilities.size());
}

bool MultiLabelView::examplesUsable() const
{
    const int64_t n = labelCount();
    if (n <= 0 || m_examples.empty() || m_examples.front().step != m_metrics.step)
        return false;
    return std::all_of(m_examples.begin(), m_examples.end(),
                       [n](const EvalExample &e) { return e.multi_label && int64_t(e.probabilities.size()) >= n; });
}

void MultiLabelView::labelColumn(int64_t k, std::vector<double> &scores, std::vector<int64_t> &truth) const
{
    scores.clear();
    truth.clear();
    for (const EvalExample &e : m_examples) {
        scores.push_back(e.probabilities[size_t(k)]);
        truth.push_back(std::find(e.true_label_ids.begin(), e.true_label_ids.end(), k) != e.true_label_ids.end());
    }
}

double MultiLabelView::tunedThreshold(int64_t k) const
{
    return k < int64_t(m_metrics.thresholds.size()) ? m_metrics.thresholds[size_t(k)] : 0.5;
}

int MultiLabelView::currentLabel() const { return m_chooser->currentIndex(); }

void MultiLabelView::setCurrentLabel(int labelId)
{
    if (labelId >= 0 && labelId < m_chooser->count())
        m_chooser->setCurrentIndex(labelId);
}

void MultiLabelView::fillChooser()
{
    const int current = std::max(m_chooser->currentIndex(), 0);
    {
        const QSignalBlocker block(m_chooser);
        m_chooser->clear();
        for (int64_t k = 0; k < labelCount(); ++k)
            m_chooser->addItem(labelName(k), QVariant::fromValue<qlonglong>(k));
        m_chooser->setCurrentIndex(current < m_chooser->count() ? current : 0);
    }
    drawCurve();
}

QString MultiLabelView::usedThresholdsNote() const
{
    // runThresholds' rule (core/formats/thresholds.h): tuned ones are used only when they did better.
    if (m_metrics.eval_macro_f1_tuned > m_metrics.eval_macro_f1)
        return tr(" classify, Try it and the export use the tuned thresholds (cross-fitted macro-F1 %1 against %2 at 0.5).")
            .arg(m_metrics.eval_macro_f1_tuned, 0, 'f', 3)
            .arg(m_metrics.eval_macro_f1, 0, 'f', 3);
    return tr(" The tuned thresholds did no better on texts they were not tuned on, so classify, Try it and the "
              "export keep 0.5 for every label.");
}

QString MultiLabelView::titleText() const { return m_title->text(); }
QString MultiLabelView::noteText() const { return m_note->text(); }

/// Why the examples cannot be used for the evaluation shown ("" when they can).
static QString examplesProblem(const std::vector<EvalExample> &examples, int64_t step, bool usable)
{
    if (usable)
        return {};
    if (examples.empty())
        return MultiLabelView::tr("No per-example probabilities of this evaluation (eval_examples.jsonl): the curve "
                                  "and the tuned-threshold columns are drawn from them.");
    if (examples.front().step != step)
        return MultiLabelView::tr("eval_examples.jsonl holds the evaluation at step %1, not this one (step %2): no "
                                  "curve and no tuned-threshold columns.")
            .arg(examples.front().step)
            .arg(step);
    return MultiLabelView::tr("eval_examples.jsonl does not hold multi-label probabilities for every label: no curve.");
}

void MultiLabelView::drawCurve()
{
    for (QCPCurve *c : {m_points, m_steps, m_markers})
        c->data()->clear();
    for (QCPItemText *t : m_markerTexts)
        t->setVisible(false);
    const int k = currentLabel();
    m_title->clear();
    m_note->clear();
    if (k >= 0) {
        const QString name = labelName(k);
        std::vector<double> scores;
        std::vector<int64_t> truth;
        const bool usable = examplesUsable();
        if (usable)
            labelColumn(k, scores, truth);
        const PrecisionRecallCurve c = usable ? precisionRecallCurve(scores, truth) : PrecisionRecallCurve();
        if (!usable) {
            m_title->setText(tr("<b>%1</b>: precision–recall curve").arg(name.toHtmlEscaped()));
            m_note->setText(examplesProblem(m_examples, m_metrics.step, false));
        } else if (c.points.empty()) {
            m_title->setText(tr("<b>%1</b>: no precision–recall curve").arg(name.toHtmlEscaped()));
            m_note->setText(tr("No eval text carries %1: its precision and recall are undefined (scikit-learn warns "
                               "and sets recall to 1), so there is no curve and no average precision.")
                                .arg(name));
        } else {
            QVector<double> t, x, y;
            for (auto it = c.points.rbegin(); it != c.points.rend(); ++it) { // scikit-learn's order
                t << double(t.size());
                x << it->recall;
                y << it->precision;
            }
            t << double(t.size());
            x << 0.0;
            y << 1.0;
            m_points->setData(t, x, y);
            QVector<double> st, sx, sy; // steps-post: each precision held to the next point's recall
            for (int i = 0; i < x.size(); ++i) {
                for (int j = i; j <= std::min(i + 1, int(x.size()) - 1); ++j) { // (x_i, y_i), then (x_i+1, y_i)
                    st << double(st.size());
                    sx << x[j];
                    sy << y[i];
                }
            }
            m_steps->setData(st, sx, sy);
            m_title->setText(tr("<b>%1</b>: average precision %2").arg(name.toHtmlEscaped()).arg(c.average_precision, 0, 'f', 4));
            markPoint(0, binaryCountsAt(scores, truth, 0.5), tr("threshold 0.5"));
            markPoint(1, binaryCountsAt(scores, truth, tunedThreshold(k)),
                      tr("tuned threshold %1").arg(thresholdText(tunedThreshold(k))));
            m_note->setText(tr("Each dot is one threshold among the %1 eval texts' probabilities of %2 (%3 carry it); "
                               "average precision is the area under the steps. Marked: every label decided at 0.5, "
                               "and %2's own threshold, tuned on this evaluation for the best F1.")
                                .arg(scores.size())
                                .arg(name)
                                .arg(c.positives)
                            + usedThresholdsNote());
        }
    }
    m_plot->replot();
}

void MultiLabelView::markPoint(int i, const std::array<int64_t, 4> &counts, const QString &text)
{
    const OperatingPoint p = operatingPoint(counts);
    m_markers->addData(double(i), p.recall, p.precision);
    QCPItemText *label = m_markerTexts[size_t(i)];
    label->setText(p.nothingPredicted ? tr("%1 (nothing predicted)").arg(text) : text);
    label->position->setCoords(p.recall, p.precision);
    // The 0.5 mark's text below its dot, the tuned one's above (never on each other when the two
    // thresholds give one point); to the left of dots on the right half, so the text stays inside.
    const bool below = i == 0 ? p.precision > 0.12 : p.precision > 1.0;
    const Qt::Alignment horizontal = p.recall > 0.55 ? Qt::AlignRight : Qt::AlignLeft;
    label->setPositionAlignment(horizontal | (below ? Qt::AlignTop : Qt::AlignBottom));
    label->setVisible(true);
}

void MultiLabelView::fillTable()
{
    const int n = int(labelCount());
    m_table->clear();
    m_table->setRowCount(n);
    m_table->setColumnCount(n > 0 ? 16 : 0);
    if (n <= 0)
        return;
    const QStringList seven = {tr("TP"), tr("FP"), tr("FN"), tr("TN"), tr("prec."), tr("recall"), tr("F1")};
    const QStringList tips = {tr("true positives: texts with the label that got it"),
                              tr("false positives: texts without the label that got it"),
                              tr("false negatives: texts with the label that did not get it"),
                              tr("true negatives: texts without the label that did not get it"),
                              tr("precision: TP / (TP + FP), 0 when nothing got the label"),
                              tr("recall: TP / (TP + FN), 0 when no text has the label"),
                              tr("F1: 2 TP / (2 TP + FP + FN), the harmonic mean of precision and recall")};
    const QStringList headers = QStringList{tr("support")} + seven + QStringList{tr("tuned\nthreshold")} + seven;
    for (int c = 0; c < headers.size(); ++c) {
        auto *item = new QTableWidgetItem(headers[c]);
        item->setToolTip(c == 0 ? tr("texts carrying the label")
                         : c == kTunedColumn ? tr("the label's threshold tuned on this evaluation (best F1)")
                         : c < kTunedColumn ? tips[c - 1] + tr(", every label decided at 0.5")
                                            : tips[c - kTunedColumn - 1] + tr(", at the label's tuned threshold"));
        m_table->setHorizontalHeaderItem(c, item);
    }
    QStringList names;
    for (int k = 0; k < n; ++k)
        names << wrappedName(labelName(k));
    m_table->setVerticalHeaderLabels(names);
    for (int k = 0; k < n; ++k)
        fillTableRow(k);
    const bool usable = examplesUsable();
    m_tableNote->setText(
        tr("<b>Per-label confusion</b>: each label decided at 0.5 (the evaluation's counts), then at its tuned "
           "threshold (shaded, counted from eval_examples.jsonl).%1")
            .arg(usable ? QString() : QStringLiteral(" ") + examplesProblem(m_examples, m_metrics.step, false).toHtmlEscaped()));
    fitToContents(m_table, m_availableWidth);
}

void MultiLabelView::fillTableRow(int k)
{
    std::array<int64_t, 4> at05{0, 0, 0, 0};
    std::vector<double> scores;
    std::vector<int64_t> truth;
    const bool usable = examplesUsable();
    if (usable)
        labelColumn(k, scores, truth);
    if (k < int(m_metrics.label_confusion.size()))
        at05 = m_metrics.label_confusion[size_t(k)];
    else if (usable)
        at05 = binaryCountsAt(scores, truth, 0.5);
    m_table->setItem(k, 0, cell(QString::number(at05[2] + at05[3]), false));
    setCountCells(m_table, k, 1, at05, false);
    m_table->setItem(k, kTunedColumn, cell(thresholdText(tunedThreshold(k)), true));
    if (usable) {
        setCountCells(m_table, k, kTunedColumn + 1, binaryCountsAt(scores, truth, tunedThreshold(k)), true);
    } else {
        for (int c = kTunedColumn + 1; c < 16; ++c)
            m_table->setItem(k, c, cell(QStringLiteral("–"), true));
    }
}

} // namespace wb
