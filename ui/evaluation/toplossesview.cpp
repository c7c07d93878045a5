// SPDX-License-Identifier: Apache-2.0
#include "ui/evaluation/toplossesview.h"

#include "core/formats/runend.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <array>

namespace wb {

namespace {

/// Longest text kept in a row's tooltip (an e-mail can be many kilobytes).
constexpr int kTooltipChars = 3000;

enum Column { ColIndex, ColTrue, ColPredicted, ColPPredicted, ColPTrue, ColLoss, ColText, ColumnCount };

/// What the background read found.
struct ReadResult
{
    bool missing = false;
    bool kept = false; ///< the examples of the best checkpoint the model_dir keeps
    std::vector<EvalExample> examples;
};

QTableWidgetItem *item(const QString &text, Qt::Alignment align = Qt::AlignRight | Qt::AlignVCenter)
{
    auto *it = new QTableWidgetItem(text);
    it->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    it->setTextAlignment(align);
    return it;
}

double probabilityOf(const EvalExample &e, int64_t id)
{
    return id >= 0 && id < int64_t(e.probabilities.size()) ? e.probabilities[size_t(id)] : 0.0;
}

/// "1 example" / "3 examples".
QString examplesText(int64_t n, const QString &one, const QString &many)
{
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}

QString oneLine(const std::string &text)
{
    return QString::fromStdString(text).simplified();
}

/// The text cell of `e`: one line, the whole text (cut at kTooltipChars) as its tooltip.
QTableWidgetItem *textItem(const EvalExample &e)
{
    QString full = QString::fromStdString(e.text);
    if (!e.text_b.empty())
        full += QStringLiteral("\n\n") + QString::fromStdString(e.text_b);
    QString line = oneLine(e.text);
    if (!e.text_b.empty())
        line += QStringLiteral("  ‖  ") + oneLine(e.text_b);
    if (line.isEmpty())
        line = TopLossesView::tr("(no text: the run had no vocabulary to detokenize with)");
    auto *it = item(line, Qt::AlignLeft | Qt::AlignVCenter);
    if (!full.isEmpty()) {
        const int more = int(full.size()) - kTooltipChars;
        if (more > 0)
            full = full.left(kTooltipChars)
                   + (more == 1 ? TopLossesView::tr("… (1 more character)")
                                : TopLossesView::tr("… (%1 more characters)").arg(more));
        // Rich text so that Qt wraps the tooltip to the screen.
        it->setToolTip(QStringLiteral("<p style='white-space:pre-wrap'>%1</p>").arg(full.toHtmlEscaped()));
    }
    return it;
}

bool contains(const std::vector<int64_t> &ids, int64_t id)
{
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

/// The label with the highest binary cross-entropy of a multi-label example (the lowest id on ties).
int64_t worstLabel(const EvalExample &e)
{
    return e.label_losses.empty()
               ? 0
               : int64_t(std::max_element(e.label_losses.begin(), e.label_losses.end()) - e.label_losses.begin());
}

} // namespace

TopLossesView::TopLossesView(QWidget *parent)
    : QWidget(parent), m_status(new QLabel(this)), m_filterLine(new QLabel(this)), m_showAll(new QPushButton(tr("Show all"), this)),
      m_explain(new QPushButton(tr("Why? Open in Try it"), this)), m_table(new QTableWidget(this)), m_confused(new QLabel(this)),
      m_confusedTitle(new QLabel(tr("<b>Most confused</b>"), this)),
      m_labelChooserCaption(new QLabel(tr("Losses of:"), this)), m_labelChooser(new QComboBox(this))
{
    m_status->setObjectName(QStringLiteral("topLossesStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);
    m_filterLine->setObjectName(QStringLiteral("topLossesFilter"));
    m_filterLine->setTextFormat(Qt::PlainText);
    m_filterLine->setStyleSheet(QStringLiteral("QLabel{font-weight:bold}"));
    m_showAll->setObjectName(QStringLiteral("topLossesShowAll"));
    m_showAll->setToolTip(tr("List the examples of every confusion-matrix cell again"));
    connect(m_showAll, &QPushButton::clicked, this, &TopLossesView::clearFilter);
    m_table->setObjectName(QStringLiteral("topLossesTable"));
    m_labelChooser->setObjectName(QStringLiteral("topLossesLabel"));
    m_labelChooser->setToolTip(tr("Multi-label: list the examples by the mean binary cross-entropy of all labels, or "
                                  "by one label's"));
    m_labelChooser->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(m_labelChooser, &QComboBox::activated, this,
            [this](int index) { setLabelChoice(m_labelChooser->itemData(index).toLongLong()); });
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideRight);
    m_confused->setObjectName(QStringLiteral("mostConfused"));
    m_confused->setTextFormat(Qt::PlainText);
    m_confused->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_confused->setToolTip(tr("The mistakes grouped by true and predicted label, most frequent first"));

    auto *title = new QLabel(tr("<b>Top losses</b> (most confidently wrong first; click a confusion-matrix cell to "
                                "list only its examples)"),
                             this);
    title->setWordWrap(true);
    m_explain->setObjectName(QStringLiteral("topLossesExplain"));
    m_explain->setToolTip(tr("Open the selected example in Try it with “Which words decided”: each wordpiece shaded "
                             "by how much it pushed the model towards the label it predicted (or double-click a row)"));
    m_explain->setEnabled(false);
    connect(m_explain, &QPushButton::clicked, this, [this] { explainRow(m_table->currentRow()); });
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { explainRow(row); });
    connect(m_table, &QTableWidget::itemSelectionChanged, this,
            [this] { m_explain->setEnabled(rowExample(m_table->currentRow()) != nullptr); });
    auto *filterRow = new QHBoxLayout;
    filterRow->addWidget(m_labelChooserCaption);
    filterRow->addWidget(m_labelChooser);
    filterRow->addWidget(m_filterLine);
    filterRow->addWidget(m_showAll);
    filterRow->addStretch(1);
    filterRow->addWidget(m_explain);
    auto *left = new QVBoxLayout;
    left->addWidget(title);
    left->addWidget(m_status);
    left->addLayout(filterRow);
    left->addWidget(m_table, 1);
    auto *right = new QVBoxLayout;
    right->addWidget(m_confusedTitle);
    right->addWidget(m_confused, 1);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(left, 1);
    layout->addLayout(right);
    clear();
}

TopLossesView::~TopLossesView() { m_job.cancel(); }

void TopLossesView::setLabelNames(const std::vector<std::string> &names)
{
    m_labelNames = names;
    refresh();
}

QString TopLossesView::labelName(int64_t id) const
{
    if (id >= 0 && id < int64_t(m_labelNames.size()))
        return QString::fromStdString(m_labelNames[size_t(id)]);
    // The name the trainer wrote into the file, when no labels.txt is known here.
    if (const auto it = m_fileNames.find(id); it != m_fileNames.end())
        return it->second;
    return tr("label %1").arg(id);
}

void TopLossesView::load(const QString &modelDir)
{
    const quint64 generation = ++m_generation;
    m_job.cancel();
    if (modelDir.isEmpty()) {
        clear();
        Q_EMIT examplesLoaded();
        return;
    }
    const std::string dir = QDir(modelDir).absolutePath().toStdString();
    m_job = runBackgroundJob<ReadResult>(
        this,
        [dir](const JobControl &) {
            ReadResult r;
            // The evaluation of the checkpoint the model_dir keeps: its best when it keeps one.
            const std::string path = keptEvalExamplesPath(dir);
            r.kept = path == bestEvalExamplesPath(dir);
            if (!QFileInfo::exists(QString::fromStdString(path)))
                r.missing = true;
            else
                r.examples = readEvalExamples(path);
            return r;
        },
        [this, generation](JobOutcome<ReadResult> outcome) {
            if (generation != m_generation)
                return; // a later load() or clear() owns the view
            if (!outcome.ok()) {
                showMissing(outcome.error.hint.isEmpty() ? outcome.error.message
                                                         : tr("%1 (%2)").arg(outcome.error.message, outcome.error.hint));
                m_status->setStyleSheet(QStringLiteral("QLabel{color:#a01010}"));
            } else if (outcome.value->missing)
                clear();
            else {
                setExamples(std::move(outcome.value->examples));
                m_keptBest = outcome.value->kept;
                refresh();
            }
            Q_EMIT examplesLoaded();
        });
}

void TopLossesView::clear()
{
    ++m_generation;
    showMissing(tr("No per-example results yet: they are written at each evaluation."));
}

void TopLossesView::setRunEnd(const QString &phrase)
{
    if (phrase == m_runEnd)
        return;
    m_runEnd = phrase;
    if (!m_examples.empty())
        refresh();
}

void TopLossesView::showMissing(const QString &text)
{
    m_examples.clear();
    m_fileNames.clear();
    m_status->setStyleSheet(QString());
    const bool hadFilter = m_filter.has_value();
    m_filter.reset();
    refresh();
    m_status->setText(text);
    if (hadFilter)
        Q_EMIT filterChanged();
}

void TopLossesView::setExamples(std::vector<EvalExample> examples)
{
    m_keptBest = false;
    m_examples = std::move(examples); // the cell filter stays: the next evaluation's same cell
    m_fileNames.clear();
    for (const EvalExample &e : m_examples) {
        for (size_t k = 0; k < e.true_label_ids.size() && k < e.true_labels.size(); ++k)
            m_fileNames.emplace(e.true_label_ids[k], QString::fromStdString(e.true_labels[k]));
        for (size_t k = 0; k < e.predicted_label_ids.size() && k < e.predicted_labels.size(); ++k)
            m_fileNames.emplace(e.predicted_label_ids[k], QString::fromStdString(e.predicted_labels[k]));
        if (e.multi_label)
            continue;
        if (!e.true_label.empty())
            m_fileNames.emplace(e.true_label_id, QString::fromStdString(e.true_label));
        if (!e.predicted_label.empty())
            m_fileNames.emplace(e.predicted_label_id, QString::fromStdString(e.predicted_label));
    }
    m_status->setStyleSheet(QString());
    refresh();
    if (m_examples.empty())
        m_status->setText(tr("eval_examples.jsonl holds no examples: evaluate again to rewrite it."));
}

void TopLossesView::setCellFilter(int64_t trueLabelId, int64_t predictedLabelId)
{
    m_filter = std::make_pair(trueLabelId, predictedLabelId);
    refresh();
    Q_EMIT filterChanged();
}

void TopLossesView::clearFilter()
{
    if (!m_filter)
        return;
    m_filter.reset();
    refresh();
    Q_EMIT filterChanged();
}

bool TopLossesView::isMultiLabel() const { return !m_examples.empty() && m_examples.front().multi_label; }

void TopLossesView::setLabelChoice(int64_t labelId)
{
    const int64_t labels = isMultiLabel() ? int64_t(m_examples.front().probabilities.size()) : 0;
    m_labelChoice = labelId >= 0 && labelId < labels ? labelId : -1;
    refresh();
}

QString TopLossesView::labelSet(const std::vector<int64_t> &ids) const
{
    QStringList names;
    for (int64_t id : ids)
        names << labelName(id);
    return names.isEmpty() ? tr("(none)") : names.join(QStringLiteral(", "));
}

void TopLossesView::refillLabelChooser()
{
    const bool multi = isMultiLabel();
    m_labelChooser->setVisible(multi);
    m_labelChooserCaption->setVisible(multi);
    const int64_t labels = multi ? int64_t(m_examples.front().probabilities.size()) : 0;
    if (m_labelChoice >= labels)
        m_labelChoice = -1;
    QSignalBlocker block(m_labelChooser);
    m_labelChooser->clear();
    if (!multi)
        return;
    m_labelChooser->addItem(tr("All labels"), qlonglong(-1));
    for (int64_t id = 0; id < labels; ++id)
        m_labelChooser->addItem(labelName(id), qlonglong(id));
    m_labelChooser->setCurrentIndex(int(m_labelChoice + 1));
}

void TopLossesView::refresh()
{
    refillLabelChooser();
    std::vector<EvalExample> shown;
    if (isMultiLabel() && m_labelChoice >= 0)
        shown = topLabelLosses(m_examples, m_labelChoice);
    else if (m_filter)
        shown = topLosses(m_examples, 0, m_filter->first, m_filter->second);
    else
        shown = topLosses(m_examples, 0);
    const size_t total = shown.size();
    if (shown.size() > size_t(kMaxRows))
        shown.resize(size_t(kMaxRows));
    m_shown = shown;
    m_explain->setEnabled(false);
    if (!m_examples.empty())
        refreshStatus(total, shown.size());
    m_filterLine->setText(filterText());
    m_filterLine->setVisible(m_filter.has_value());
    m_showAll->setVisible(m_filter.has_value());
    m_table->setRowCount(0);
    m_table->setRowCount(int(shown.size()));
    if (isMultiLabel())
        fillMultiLabelRows();
    else
        fillSingleLabelRows();
    refreshConfused();
}

void TopLossesView::refreshStatus(size_t total, size_t shown)
{
    int64_t mistakes = 0;
    for (const EvalExample &e : m_examples)
        mistakes += e.correct() ? 0 : 1;
    // The run's end in the words of every other view (progress row, status bar, Evaluation).
    const QString best = m_runEnd.isEmpty() ? tr("of the best checkpoint") : tr("of the best checkpoint (%1)").arg(m_runEnd);
    const QString wrong = isMultiLabel() ? tr("%3 of them with a predicted label set (at 0.5) other than the true one")
                                         : tr("%3 of them wrong");
    QString status = (m_keptBest ? tr("%1 from the evaluation at step %2, %4, which the model "
                                      "directory keeps (Try it and export use it), %5.")
                                 : tr("%1 from the evaluation at step %2, %5."))
                         .replace(QStringLiteral("%5"), wrong)
                         .arg(examplesText(int64_t(m_examples.size()), tr("eval example"), tr("eval examples")))
                         .arg(m_examples.front().step)
                         .arg(mistakes);
    if (m_keptBest)
        status = status.arg(best);
    if (total > shown)
        status += QLatin1Char(' ') + tr("Listing the %1 highest losses.").arg(shown);
    m_status->setText(status);
}

void TopLossesView::setColumns(const QStringList &headers)
{
    m_table->setColumnCount(int(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    m_table->horizontalHeaderItem(0)->setToolTip(tr("The example's position in the eval data (0-based)"));
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(int(headers.size()) - 1, QHeaderView::Stretch);
}

void TopLossesView::fillSingleLabelRows()
{
    setColumns({tr("#"), tr("true label"), tr("predicted"), tr("p(predicted)"), tr("p(true)"), tr("loss"), tr("text")});
    m_table->horizontalHeaderItem(ColLoss)->setToolTip(tr("Cross-entropy of the example: −ln p(true label), in nats"));
    for (int r = 0; r < int(m_shown.size()); ++r) {
        const EvalExample &e = m_shown[size_t(r)];
        m_table->setItem(r, ColIndex, item(QString::number(e.index)));
        auto *trueItem = item(labelName(e.true_label_id), Qt::AlignLeft | Qt::AlignVCenter);
        auto *predItem = item(labelName(e.predicted_label_id), Qt::AlignLeft | Qt::AlignVCenter);
        if (!e.correct())
            predItem->setForeground(QColor(190, 30, 30));
        m_table->setItem(r, ColTrue, trueItem);
        m_table->setItem(r, ColPredicted, predItem);
        m_table->setItem(r, ColPPredicted, item(QString::number(probabilityOf(e, e.predicted_label_id), 'f', 4)));
        m_table->setItem(r, ColPTrue, item(QString::number(probabilityOf(e, e.true_label_id), 'f', 4)));
        m_table->setItem(r, ColLoss, item(QString::number(e.loss, 'f', 4)));
        m_table->setItem(r, ColText, textItem(e));
    }
}

void TopLossesView::fillMultiLabelRows()
{
    const int64_t l = m_labelChoice;
    const QString name = l >= 0 ? labelName(l) : QString();
    if (l < 0)
        setColumns({tr("#"), tr("true labels"), tr("predicted (p ≥ 0.5)"), tr("loss"), tr("text")});
    else
        setColumns({tr("#"), tr("true labels"), tr("predicted (p ≥ 0.5)"), tr("p(%1)").arg(name), tr("%1 true").arg(name),
                    tr("%1 predicted").arg(name), tr("loss of %1").arg(name), tr("text")});
    m_table->horizontalHeaderItem(l < 0 ? 3 : 6)
        ->setToolTip(l < 0 ? tr("Mean over the labels of the binary cross-entropy −[y ln p + (1 − y) ln(1 − p)], in nats")
                           : tr("Binary cross-entropy of %1: −ln p if the text carries it, else −ln(1 − p), in nats")
                                 .arg(name));
    for (int r = 0; r < int(m_shown.size()); ++r) {
        const EvalExample &e = m_shown[size_t(r)];
        int c = 0;
        m_table->setItem(r, c++, item(QString::number(e.index)));
        m_table->setItem(r, c++, item(labelSet(e.true_label_ids), Qt::AlignLeft | Qt::AlignVCenter));
        auto *predItem = item(labelSet(e.predicted_label_ids), Qt::AlignLeft | Qt::AlignVCenter);
        const bool wrong = l < 0 ? !e.correct() : contains(e.true_label_ids, l) != contains(e.predicted_label_ids, l);
        if (wrong)
            predItem->setForeground(QColor(190, 30, 30));
        m_table->setItem(r, c++, predItem);
        if (l >= 0) {
            m_table->setItem(r, c++, item(QString::number(probabilityOf(e, l), 'f', 4)));
            m_table->setItem(r, c++, item(contains(e.true_label_ids, l) ? tr("yes") : tr("no"), Qt::AlignCenter));
            m_table->setItem(r, c++, item(contains(e.predicted_label_ids, l) ? tr("yes") : tr("no"), Qt::AlignCenter));
        }
        const double loss = l < 0 ? e.loss : e.label_losses[size_t(l)];
        m_table->setItem(r, c++, item(QString::number(loss, 'f', 4)));
        m_table->setItem(r, c, textItem(e));
    }
}

void TopLossesView::refreshConfused()
{
    QStringList confused;
    if (isMultiLabel()) {
        m_confusedTitle->setText(tr("<b>Mistakes per label</b>"));
        const size_t labels = m_examples.front().probabilities.size();
        std::vector<std::array<int64_t, 2>> counts(labels, {0, 0}); // missed, extra
        for (const EvalExample &e : m_examples)
            for (size_t k = 0; k < labels; ++k) {
                const bool truth = contains(e.true_label_ids, int64_t(k)), predicted = contains(e.predicted_label_ids, int64_t(k));
                counts[k][0] += truth && !predicted;
                counts[k][1] += predicted && !truth;
            }
        std::vector<size_t> order(labels);
        for (size_t k = 0; k < labels; ++k)
            order[k] = k;
        std::stable_sort(order.begin(), order.end(), [&counts](size_t a, size_t b) {
            return counts[a][0] + counts[a][1] > counts[b][0] + counts[b][1];
        });
        for (size_t k : order)
            if (counts[k][0] + counts[k][1] > 0)
                confused << tr("%1: %2 missed, %3 extra").arg(labelName(int64_t(k))).arg(counts[k][0]).arg(counts[k][1]);
    } else {
        m_confusedTitle->setText(tr("<b>Most confused</b>"));
        for (const ConfusedPair &p : mostConfusedPairs(m_examples))
            confused << tr("%1 → %2: %3").arg(labelName(p.true_label_id), labelName(p.predicted_label_id)).arg(p.count);
    }
    m_confused->setText(confused.isEmpty() ? (m_examples.empty() ? QString() : tr("No mistakes."))
                                           : confused.join(QLatin1Char('\n')));
}

const EvalExample *TopLossesView::rowExample(int row) const
{
    return row >= 0 && row < int(m_shown.size()) && row < m_table->rowCount() ? &m_shown[size_t(row)] : nullptr;
}

void TopLossesView::explainRow(int row)
{
    const EvalExample *e = rowExample(row);
    if (!e || e->text.empty())
        return; // no text to explain (a run without a vocabulary to detokenize with)
    const int64_t classId = !e->multi_label ? e->predicted_label_id : m_labelChoice >= 0 ? m_labelChoice : worstLabel(*e);
    Q_EMIT explainRequested(QString::fromStdString(e->text), QString::fromStdString(e->text_b), qlonglong(classId));
}

QString TopLossesView::statusText() const { return m_status->text(); }

QString TopLossesView::filterText() const
{
    if (!m_filter)
        return {};
    int64_t count = 0;
    for (const EvalExample &e : m_examples)
        count += e.true_label_id == m_filter->first && e.predicted_label_id == m_filter->second ? 1 : 0;
    return tr("true %1, predicted %2: %3")
        .arg(labelName(m_filter->first), labelName(m_filter->second), examplesText(count, tr("example"), tr("examples")));
}

QString TopLossesView::mostConfusedText() const { return m_confused->text(); }

} // namespace wb
