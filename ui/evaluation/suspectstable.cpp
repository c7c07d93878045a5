// SPDX-License-Identifier: Apache-2.0
#include "ui/evaluation/suspectstable.h"

#include "core/config/optiontable.h"
#include "core/util/error.h"
#include "core/util/errortext.h"
#include "ui/common/backgroundjob.h"
#include "ui/common/qtext.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <filesystem>

namespace wb {

namespace {

constexpr int kExcerptChars = 120; ///< the Text column's excerpt; the tooltip holds all of it

/// The key of a row in corrections.jsonl: its file and line, as prepare matches them.
std::string rowKey(const std::string &file, int64_t line) { return file + "\n" + std::to_string(line); }

/// The form's label of the option that records training dynamics.
QString recordingField()
{
    const OptionSpec *spec = findOption("record_training_dynamics");
    return spec && *spec->label ? SuspectsTable::tr(spec->label) : QStringLiteral("record_training_dynamics");
}

QString number(double v) { return QString::number(v, 'f', 3); }

} // namespace

/// What one background read of a run brings back.
struct SuspectsTable::Loaded
{
    QString empty;                     ///< why there are no rows ("" when there are)
    RunSuspects run;
    std::vector<TrainingText> texts;   ///< by suspect ("" when unknown)
    QString textsNote;                 ///< why the texts are not shown
    std::vector<Correction> corrections;
    QString correctionsError;          ///< corrections.jsonl exists but cannot be read
    QString correctionsPath;
    bool notLearned = false;           ///< no suspects because the model had not learned (learnedCheck)
};

namespace {

/// Reads the texts of the suspects' training records into `texts`, by suspect (any thread);
/// `note` says why when they cannot be read.
void readSuspectTexts(const TrainingOptions &o, const JobControl &job, std::vector<TrainingText> &texts,
                      const std::vector<RunSuspect> &suspects, QString &note)
{
    texts.assign(suspects.size(), TrainingText{});
    if (suspects.empty())
        return;
    int64_t last = 0;
    for (const RunSuspect &s : suspects)
        last = std::max(last, s.evidence.index);
    const TrainingTextSource source = trainingTextSource(o);
    if (source.train_data_path.empty() || source.vocab_file.empty()) {
        note = source.notes.empty() ? SuspectsTable::tr("the run names no training data") : q(source.notes.front());
        return;
    }
    try {
        const TrainingTexts read = readTrainingTexts(source, last + 1, job.stopToken());
        for (size_t i = 0; i < suspects.size(); ++i)
            if (size_t(suspects[i].evidence.index) < read.texts.size())
                texts[i] = read.texts[size_t(suspects[i].evidence.index)];
    } catch (...) {
        note = q(describeCurrentException("train_data_path").line());
    }
}

} // namespace

SuspectsTable::SuspectsTable(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("suspectsSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setObjectName(QStringLiteral("suspectsTable"));
    m_table->setHorizontalHeaderLabels({tr("#"), tr("Label"), tr("Suggested"), tr("Decision"), tr("Confidence"),
                                        tr("Variability"), tr("Evidence"), tr("Text"), tr("Record")});
    m_table->horizontalHeaderItem(Evidence)->setToolTip(tr("How often training predicted the suggested label (the "
                                                           "tooltip and the line under the table say more)"));
    m_table->horizontalHeaderItem(Confidence)->setToolTip(tr("The mean probability of the label as given, over the "
                                                             "times training saw the text"));
    m_table->horizontalHeaderItem(Variability)->setToolTip(tr("The spread (standard deviation) of that probability"));
    m_table->horizontalHeaderItem(Decision)->setToolTip(
        tr("Saved at once to corrections.jsonl in the run's folder; “Prepare with corrections…” applies the accepted, "
           "changed and removed ones to a new copy of the prepared data (your files are not changed)"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->setVisible(false);
    m_preview = new QLabel(this);
    m_preview->setObjectName(QStringLiteral("suspectsPreview"));
    m_preview->setWordWrap(true);
    m_preview->setTextFormat(Qt::PlainText);
    m_preview->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_preview->setMaximumHeight(m_preview->fontMetrics().lineSpacing() * 5 + 4);
    m_open = new QPushButton(tr("Open in Try it"), this);
    m_open->setObjectName(QStringLiteral("suspectsOpenInTryIt"));
    m_open->setToolTip(tr("Shows the selected text in Try it, with the words that speak for and against its label"));
    m_prepare = new QPushButton(tr("Prepare with corrections…"), this);
    m_prepare->setObjectName(QStringLiteral("suspectsPrepare"));
    m_decideRest = new QToolButton(this);
    m_decideRest->setObjectName(QStringLiteral("suspectsDecideRest"));
    m_decideRest->setText(tr("Decide the undecided"));
    m_decideRest->setPopupMode(QToolButton::InstantPopup);
    m_decideRest->setToolTip(tr("Gives every suspect not decided yet the same decision, in one step. Removing "
                                "suspects costs less when a few are right after all: on the spam example with 10 % "
                                "of its labels flipped, removing the suspects gave back more of the lost accuracy "
                                "than relabelling them (docs/benchmarks.md)"));
    auto *rest = new QMenu(m_decideRest);
    rest->addAction(tr("Remove every suspect from training"), this,
                    [this] { decideUndecided(CorrectionDecision::Removed); });
    rest->addAction(tr("Accept every suggestion"), this, [this] { decideUndecided(CorrectionDecision::Accepted); });
    m_decideRest->setMenu(rest);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_open);
    buttons->addWidget(m_decideRest);
    buttons->addStretch(1);
    buttons->addWidget(m_prepare);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_preview);
    layout->addLayout(buttons);
    connect(m_open, &QPushButton::clicked, this, [this] { openRow(selectedRow()); });
    connect(m_prepare, &QPushButton::clicked, this, &SuspectsTable::requestPrepare);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { openRow(row); });
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &SuspectsTable::updateButtons);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &SuspectsTable::showPreview);
    showEmpty(tr("No suspects yet: start or open a run. Suspects are found in the training dynamics of single-label "
                 "runs with “%1” on.").arg(recordingField()));
}

void SuspectsTable::showEmpty(const QString &why)
{
    m_suspects.clear();
    m_texts.clear();
    m_corrections.clear();
    m_order.clear();
    m_table->setRowCount(0);
    m_summaryBase = why;
    m_summary->setText(why);
    m_preview->clear();
    updateButtons();
}

void SuspectsTable::setRun(const TrainingOptions &o)
{
    const quint64 generation = ++m_generation;
    m_loaded = false;
    m_correctionsPath.clear();
    m_metaPath.clear();
    m_splitPath.clear();
    if (o.model_dir.empty()) {
        showEmpty(tr("No suspects yet: start or open a run. Suspects are found in the training dynamics of "
                     "single-label runs with “%1” on.").arg(recordingField()));
        m_loaded = true;
        return;
    }
    runBackgroundJob<Loaded>(
        this,
        [o](const JobControl &job) {
            Loaded l;
            l.correctionsPath = q((std::filesystem::path(o.model_dir) / "corrections.jsonl").string());
            try {
                l.run = loadRunSuspects(o.model_dir, {}, o.input_meta_data_path);
            } catch (const Error &e) {
                if (e.field() != trainingDynamicsPath(o.model_dir))
                    throw;
                if (!o.record_training_dynamics) {
                    l.empty = SuspectsTable::tr("No suspects: this run does not record training dynamics (“%1” is "
                                                "off). Turn it on under Hyperparameters and train again to list the "
                                                "suspects of the next run.")
                                  .arg(recordingField());
                    return l;
                }
                l.empty = SuspectsTable::tr("No suspects: %1 %2. Training dynamics are recorded for single-label classification runs "
                             "with “%3” on (under Hyperparameters), and written at each checkpoint.")
                              .arg(q(e.field()), q(e.what()), recordingField());
                return l;
            }
            readSuspectTexts(o, job, l.texts, l.run.suspects, l.textsNote);
            if (l.run.suspects.empty()) { // why: the rule found none, or the model had not learned (core's note)
                const LearnedCheck c = learnedCheck(suspectInputs(readTrainingDynamics(l.run.dynamics_path)));
                l.notLearned = c.examples > 0 && !c.learned;
            }
            if (std::filesystem::exists(l.correctionsPath.toStdString())) {
                try {
                    l.corrections = readCorrections(l.correctionsPath.toStdString());
                } catch (...) {
                    l.correctionsError = q(describeCurrentException("corrections.jsonl").line());
                }
            }
            return l;
        },
        [this, generation](JobOutcome<Loaded> out) {
            if (generation != m_generation)
                return; // another run was asked for meanwhile
            m_loaded = true;
            if (!out.ok()) {
                showEmpty(tr("Cannot list the suspects: %1").arg(out.error.logLine()));
                return;
            }
            showLoaded(*out.value);
        });
}

void SuspectsTable::showLoaded(Loaded &l)
{
    if (!l.empty.isEmpty()) {
        showEmpty(l.empty);
        return;
    }
    m_correctionsPath = l.correctionsPath;
    m_metaPath = q(l.run.meta_path);
    m_splitPath = q(l.run.split_path);
    m_suspects = std::move(l.run.suspects);
    m_labels = std::move(l.run.labels);
    m_texts = std::move(l.texts);
    m_corrections.clear();
    m_order.clear();
    for (Correction &c : l.corrections) {
        const std::string key = rowKey(c.file, c.line);
        if (!m_corrections.count(key))
            m_order.push_back(key);
        m_corrections[key] = std::move(c);
    }
    QStringList notes;
    for (const std::string &n : l.run.notes)
        notes << q(n);
    if (!l.textsNote.isEmpty())
        notes << tr("the texts are not shown: %1").arg(l.textsNote);
    if (!l.correctionsError.isEmpty())
        notes << tr("decisions cannot be saved until corrections.jsonl is fixed or removed: %1").arg(l.correctionsError);
    // The rule's thresholds as core's defaults set them (SuspectRule, core/advice/suspects.h); a
    // variability limit of 0.5 or more limits nothing (the largest spread of values in [0, 1]).
    const SuspectRule defaults;
    const QString rule = (defaults.max_variability < 0.5
                              ? tr("confidence below %1, variability below %2, and one other label predicted in most of "
                                   "the times training saw the text")
                                    .arg(defaults.max_confidence)
                                    .arg(defaults.max_variability)
                              : tr("confidence below %1 and one other label predicted in most of the times training saw "
                                   "the text")
                                    .arg(defaults.max_confidence));
    QString summary;
    // core's reason when the model had not learned (loadRunSuspects' note, shown below), else the rule.
    if (m_suspects.empty() && l.notLearned)
        summary = tr("No suspects among %n training example(s).", nullptr, int(l.run.examples));
    else if (m_suspects.empty())
        summary = tr("No suspects among %n training example(s): none has %1.", nullptr, int(l.run.examples)).arg(rule);
    else
        summary = tr("%1 suspect(s) among %2 training examples (%3), the most certain mistakes first. Decisions are "
                     "saved to %4.")
                      .arg(m_suspects.size()).arg(l.run.examples).arg(rule, m_correctionsPath);
    if (!notes.isEmpty())
        summary += QLatin1Char(' ') + tr("Note: %1.").arg(notes.join(QStringLiteral("; ")));
    m_summaryBase = summary;
    m_summary->setText(summary);
    m_table->setRowCount(int(m_suspects.size()));
    for (int row = 0; row < int(m_suspects.size()); ++row)
        fillRow(row);
    m_table->setEnabled(l.correctionsError.isEmpty() || !m_suspects.empty());
    for (int row = 0; row < m_table->rowCount() && !l.correctionsError.isEmpty(); ++row)
        decisionBox(row)->setEnabled(false);
    m_table->resizeColumnsToContents();
    m_table->setColumnWidth(Text, std::min(m_table->columnWidth(Text), 480));
    if (m_table->rowCount() > 0)
        m_table->selectRow(0); // its text under the table; Open in Try it ready
    showPreview();
    updateButtons();
}

QString SuspectsTable::rowText(int row) const
{
    if (row < 0 || size_t(row) >= m_texts.size())
        return {};
    const TrainingText &t = m_texts[size_t(row)];
    return t.text_b.empty() ? q(t.text) : q(t.text + " [SEP] " + t.text_b);
}

QString SuspectsTable::summaryText() const { return m_summary->text(); }

QString SuspectsTable::evidenceText(int row) const
{
    if (row < 0 || size_t(row) >= m_suspects.size())
        return {};
    const RunSuspect &s = m_suspects[size_t(row)];
    const Suspect &e = s.evidence;
    return tr("predicted %1 in %2 of %3; right %4 of %3; last p(%5) %6")
        .arg(q(s.suggested_label))
        .arg(e.suggestion_count)
        .arg(e.observations)
        .arg(int64_t(e.correctness * double(e.observations) + 0.5))
        .arg(q(s.label), number(e.last_gold_probability));
}

QString SuspectsTable::previewText() const { return m_preview->text(); }

void SuspectsTable::showPreview()
{
    const int row = selectedRow();
    if (row < 0 || size_t(row) >= m_suspects.size()) {
        m_preview->setText(m_suspects.empty() ? QString() : tr("Select a row to read its text here."));
        return;
    }
    const RunSuspect &s = m_suspects[size_t(row)];
    const QString where = s.located ? q(s.file) + (s.line > 0 ? QStringLiteral(":%1").arg(s.line) : QString())
                                    : tr("not in split.jsonl");
    m_preview->setText(tr("Record %1 (%2), %3 → suggested %4: %5.\n%6")
                           .arg(s.evidence.index)
                           .arg(where, q(s.label), q(s.suggested_label), evidenceText(row), rowText(row)));
}

void SuspectsTable::fillRow(int row)
{
    const RunSuspect &s = m_suspects[size_t(row)];
    const Suspect &e = s.evidence;
    const auto item = [this, row](int column, const QString &text, const QString &tip = {}) {
        auto *it = new QTableWidgetItem(text);
        it->setToolTip(tip.isEmpty() ? text : tip);
        if (column == Rank || column == Record || column == Confidence || column == Variability)
            it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, column, it);
    };
    const QString text = rowText(row);
    item(Rank, QString::number(row + 1));
    item(Record, QString::number(e.index),
         s.located ? tr("training record %1: %2%3").arg(e.index).arg(q(s.file), s.line > 0 ? QStringLiteral(":%1").arg(s.line) : QString())
                   : tr("training record %1 (not in split.jsonl)").arg(e.index));
    item(Text, text.size() > kExcerptChars ? text.left(kExcerptChars) + QStringLiteral("…") : text, text);
    item(Label, q(s.label));
    item(Suggested, q(s.suggested_label));
    item(Confidence, number(e.confidence));
    item(Variability, number(e.variability));
    item(Evidence, tr("%1 of %2").arg(e.suggestion_count).arg(e.observations), evidenceText(row));
    auto *box = new QComboBox;
    box->setObjectName(QStringLiteral("decision%1").arg(row));
    box->addItem(tr("Undecided"));
    box->addItem(tr("Accept: %1").arg(q(s.suggested_label)));
    box->addItem(tr("Reject: keep %1").arg(q(s.label)));
    box->addItem(tr("Remove from training"));
    for (const std::string &l : m_labels)
        if (l != s.label && l != s.suggested_label)
            box->addItem(tr("Change to: %1").arg(q(l)), q(l));
    box->setEnabled(s.located);
    box->setToolTip(s.located ? tr("Accept the suggestion, keep the label, leave the text out of training, or give it "
                                   "another label")
                              : tr("This record is not in split.jsonl: its input row is unknown, so no correction "
                                   "can be written (prepare the data with this program)."));
    const auto c = m_corrections.find(rowKey(s.file, s.line));
    if (s.located && c != m_corrections.end()) {
        int index = Undecided;
        if (c->second.decision == CorrectionDecision::Accepted)
            index = Accept;
        else if (c->second.decision == CorrectionDecision::Rejected)
            index = Reject;
        else if (c->second.decision == CorrectionDecision::Removed)
            index = Remove;
        else if (c->second.decision == CorrectionDecision::Changed)
            index = std::max(int(Undecided), box->findData(q(c->second.corrected_label)));
        box->setCurrentIndex(index);
    }
    connect(box, &QComboBox::activated, this, [this, row](int index) { decisionChosen(row, index); });
    m_table->setCellWidget(row, Decision, box);
}

QComboBox *SuspectsTable::decisionBox(int row) const
{
    return row < 0 || row >= m_table->rowCount() ? nullptr : qobject_cast<QComboBox *>(m_table->cellWidget(row, Decision));
}

void SuspectsTable::decisionChosen(int row, int item)
{
    if (item == Accept)
        accept(row);
    else if (item == Reject)
        reject(row);
    else if (item == Remove)
        remove(row);
    else if (item >= FirstChange)
        changeTo(row, decisionBox(row)->itemData(item).toString());
    else
        decide(row, CorrectionDecision::Suggested, {});
}

bool SuspectsTable::accept(int row)
{
    if (row < 0 || size_t(row) >= m_suspects.size())
        return false;
    return decide(row, CorrectionDecision::Accepted, m_suspects[size_t(row)].suggested_label);
}

bool SuspectsTable::reject(int row) { return decide(row, CorrectionDecision::Rejected, {}); }

bool SuspectsTable::remove(int row) { return decide(row, CorrectionDecision::Removed, {}); }

bool SuspectsTable::changeTo(int row, const QString &label)
{
    if (row < 0 || size_t(row) >= m_suspects.size())
        return false;
    const std::string l = label.toStdString();
    if (std::find(m_labels.begin(), m_labels.end(), l) == m_labels.end() || l == m_suspects[size_t(row)].label) {
        m_summary->setText(m_summaryBase + QLatin1Char(' ')
                           + tr("“%1” is not another label of this data; choose one of the labels listed.").arg(label));
        return false;
    }
    if (l == m_suspects[size_t(row)].suggested_label)
        return accept(row);
    return decide(row, CorrectionDecision::Changed, l);
}

bool SuspectsTable::decide(int row, CorrectionDecision decision, const std::string &corrected)
{
    if (row < 0 || size_t(row) >= m_suspects.size())
        return false;
    const RunSuspect &s = m_suspects[size_t(row)];
    QComboBox *box = decisionBox(row);
    if (!s.located || !box->isEnabled()) {
        m_summary->setText(m_summaryBase + QLatin1Char(' ') + tr("Record %1 cannot be corrected: %2")
                                                                  .arg(s.evidence.index).arg(box->toolTip()));
        return false;
    }
    const Correction c = correctionOf(s, decision, corrected, correctionTimeNow());
    const std::string key = rowKey(c.file, c.line);
    std::map<std::string, Correction> next = m_corrections;
    std::vector<std::string> order = m_order;
    if (!next.count(key))
        order.push_back(key);
    next[key] = c;
    if (!save(std::move(next), std::move(order))) {
        fillRow(row); // the combo shows what the file holds
        return false;
    }
    const QSignalBlocker block(box);
    box->setCurrentIndex(decision == CorrectionDecision::Accepted   ? int(Accept)
                         : decision == CorrectionDecision::Rejected ? int(Reject)
                         : decision == CorrectionDecision::Removed  ? int(Remove)
                         : decision == CorrectionDecision::Changed  ? std::max(0, box->findData(q(corrected)))
                                                                    : int(Undecided));
    m_summary->setText(m_summaryBase);
    updateButtons();
    return true;
}

bool SuspectsTable::save(std::map<std::string, Correction> next, std::vector<std::string> order)
{
    std::vector<Correction> lines;
    for (const std::string &k : order)
        lines.push_back(next[k]);
    try {
        writeCorrections(m_correctionsPath.toStdString(), lines);
    } catch (...) {
        m_summary->setText(m_summaryBase + QLatin1Char(' ')
                           + tr("The decision was not saved: %1").arg(q(describeCurrentException("corrections.jsonl").line())));
        return false;
    }
    m_corrections = std::move(next);
    m_order = std::move(order);
    return true;
}

int SuspectsTable::decideUndecided(CorrectionDecision decision)
{
    if (decision != CorrectionDecision::Accepted && decision != CorrectionDecision::Removed)
        return 0;
    std::map<std::string, Correction> next = m_corrections;
    std::vector<std::string> order = m_order;
    std::vector<int> decided;
    const std::string now = correctionTimeNow();
    for (size_t row = 0; row < m_suspects.size(); ++row) {
        const RunSuspect &s = m_suspects[row];
        const std::string key = rowKey(s.file, s.line);
        const auto c = next.find(key);
        if (!s.located || (c != next.end() && c->second.decision != CorrectionDecision::Suggested))
            continue;
        if (c == next.end())
            order.push_back(key);
        next[key] = correctionOf(s, decision, s.suggested_label, now);
        decided.push_back(int(row));
    }
    if (decided.empty() || !save(std::move(next), std::move(order)))
        return 0;
    for (const int row : decided) {
        QComboBox *box = decisionBox(row);
        const QSignalBlocker block(box);
        box->setCurrentIndex(decision == CorrectionDecision::Accepted ? int(Accept) : int(Remove));
    }
    m_summary->setText(m_summaryBase);
    updateButtons();
    return int(decided.size());
}

CorrectionDecision SuspectsTable::decisionOf(int row) const
{
    if (row < 0 || size_t(row) >= m_suspects.size())
        return CorrectionDecision::Suggested;
    const RunSuspect &s = m_suspects[size_t(row)];
    const auto c = m_corrections.find(rowKey(s.file, s.line));
    return c == m_corrections.end() ? CorrectionDecision::Suggested : c->second.decision;
}

int SuspectsTable::selectedRow() const
{
    const QList<QTableWidgetItem *> items = m_table->selectedItems();
    return items.isEmpty() ? -1 : items.first()->row();
}

void SuspectsTable::updateButtons()
{
    m_open->setEnabled(selectedRow() >= 0);
    m_decideRest->setEnabled(std::any_of(m_suspects.begin(), m_suspects.end(), [this](const RunSuspect &s) {
        const auto c = m_corrections.find(rowKey(s.file, s.line));
        return s.located && (c == m_corrections.end() || c->second.decision == CorrectionDecision::Suggested);
    }));
    const bool relabels = std::any_of(m_corrections.begin(), m_corrections.end(), [](const auto &c) {
        return c.second.relabels() || c.second.removes();
    });
    m_prepare->setEnabled(!m_splitPath.isEmpty() && relabels);
    m_prepare->setToolTip(
        m_splitPath.isEmpty()
            ? tr("The run's data has no split.jsonl (it was not prepared by this program), so corrections cannot be "
                 "applied")
        : !relabels ? tr("Accept, change or remove a suspect first: prepare applies those decisions")
                    : tr("Opens Prepare Data with the same split (%1) and these corrections (%2), into a new folder; "
                         "then train again with the same settings and seed, and compare the runs under Compare runs")
                          .arg(m_splitPath, m_correctionsPath));
}

void SuspectsTable::openRow(int row)
{
    if (row < 0 || size_t(row) >= m_suspects.size())
        return;
    const TrainingText &t = m_texts[size_t(row)];
    if (t.text.empty() && t.text_b.empty()) {
        m_summary->setText(m_summaryBase + QLatin1Char(' ')
                           + tr("The text of record %1 is not known.").arg(m_suspects[size_t(row)].evidence.index));
        return;
    }
    Q_EMIT explainRequested(q(t.text), q(t.text_b), qlonglong(m_suspects[size_t(row)].evidence.label_id));
}

void SuspectsTable::requestPrepare()
{
    if (m_splitPath.isEmpty())
        return;
    Q_EMIT prepareWithCorrectionsRequested(m_metaPath, m_splitPath, m_correctionsPath);
}

} // namespace wb
