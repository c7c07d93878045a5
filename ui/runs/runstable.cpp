// SPDX-License-Identifier: Apache-2.0
#include "ui/runs/runstable.h"
#include "ui/runs/runcolours.h"
#include "ui/common/backgroundjob.h"

#include "ui/runs/rungroup.h"
#include "ui/runs/sweepview.h"

#include "core/formats/sweep.h"

#include <QCheckBox>

#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

namespace wb {

namespace {

const char *const kColumns[] = {"run", "steps", "learning_rate", "train_batch_size", "num_train_epochs",
                                "final train loss", "final eval loss", "final eval accuracy", "labels", "dtype",
                                "strategy", "start", "best eval accuracy", "path"};

/// "0.9375 @ 120": the highest finite eval accuracy and its step, "–" when none (regression,
/// no evaluation yet).
QString bestAccuracyText(const RunHistory &r)
{
    int best = -1;
    for (size_t i = 0; i < r.evalAccuracy.size() && i < r.evalStep.size(); ++i)
        if (std::isfinite(r.evalAccuracy[i]) && (best < 0 || r.evalAccuracy[i] > r.evalAccuracy[size_t(best)]))
            best = int(i);
    if (best < 0)
        return QStringLiteral("–");
    return QStringLiteral("%1 @ %2").arg(QString::number(r.evalAccuracy[size_t(best)], 'g', 4)).arg(qint64(r.evalStep[size_t(best)]));
}

QString settingText(const RunHistory &r, const char *key)
{
    const auto it = r.settings.find(key);
    return it == r.settings.end() || it->second.empty() ? QStringLiteral("–") : QString::fromStdString(it->second);
}

QString lastFinite(const std::vector<double> &v)
{
    for (auto it = v.rbegin(); it != v.rend(); ++it)
        if (std::isfinite(*it))
            return QString::number(*it, 'g', 5);
    return QStringLiteral("–");
}

/// A recorded value as the run's JSON files write it (nlohmann's shortest round-trip form,
/// e.g. 5e-05), "–" when unknown.
template <typename T>
QString recordedNumber(const std::optional<T> &v)
{
    return v ? QString::fromStdString(nlohmann::json(*v).dump()) : QStringLiteral("–");
}

QString recordedText(const std::optional<std::string> &v)
{
    return v && !v->empty() ? QString::fromStdString(*v) : QStringLiteral("–");
}

/// "ham, spam": the run's labels by name (labels.txt of its data), "–" when unknown.
QString labelsText(const RunHistory &r)
{
    QStringList names;
    for (const std::string &n : r.labelNames)
        names << QString::fromStdString(n);
    return names.isEmpty() ? QStringLiteral("–") : names.join(QStringLiteral(", "));
}

} // namespace

RunsTable::RunsTable(QWidget *parent) : QWidget(parent), m_table(new QTableWidget(this))
{
    m_table->setObjectName(QStringLiteral("runsTable"));
    m_table->setColumnCount(int(std::size(kColumns)));
    QStringList headers;
    for (const char *c : kColumns)
        headers << QString::fromLatin1(c);
    m_table->setHorizontalHeaderLabels(headers);
    m_table->horizontalHeaderItem(5)->setToolTip(tr("train_loss of the run's training_summary.json, as the Log's "
                                                    "\"final train loss\"; the last logged step's loss when there "
                                                    "is no summary"));
    m_table->horizontalHeaderItem(8)->setToolTip(tr("The run's labels in id order, from labels.txt beside its input "
                                                    "meta data"));
    m_table->horizontalHeaderItem(9)->setToolTip(tr("Number format of the training: fp32 or bf16 (from the run's "
                                                    "run_config.json)"));
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    connect(m_table, &QTableWidget::itemChanged, this, [this](QTableWidgetItem *item) {
        if (item->column() == 0 && item->row() < int(m_runs.size()) && !isLive(m_runs[size_t(item->row())]))
            setOverlay(item->row(), item->checkState() == Qt::Checked);
    });
    auto *add = new QPushButton(tr("Add run…"), this);
    add->setToolTip(tr("Open another run's metrics.jsonl to overlay it in the plot"));
    connect(add, &QPushButton::clicked, this, &RunsTable::addRunRequested);
    auto *scanButton = new QPushButton(tr("Find runs"), this);
    scanButton->setToolTip(tr("List the runs in the model directory, its subdirectories and its sibling directories"));
    connect(scanButton, &QPushButton::clicked, this, &RunsTable::scanRequested);
    m_differencesButton = new QPushButton(tr("Differences only…"), this);
    m_differencesButton->setObjectName(QStringLiteral("differencesButton"));
    m_differencesButton->setToolTip(tr("Select two or more runs (Ctrl+click) to list only the settings whose values differ"));
    connect(m_differencesButton, &QPushButton::clicked, this, [this] { showDifferences(); });
    m_table->horizontalHeaderItem(12)->setToolTip(tr("Where the run started: the pretrained model, the init checkpoint's "
                                                     "file, or scratch (random weights)"));
    m_table->horizontalHeaderItem(13)->setToolTip(tr("The highest eval accuracy of the run and the step it was reached at"));
    m_groupSeeds = new QCheckBox(tr("&Group seeds"), this);
    m_groupSeeds->setObjectName(QStringLiteral("groupSeeds"));
    m_groupSeeds->setToolTip(tr("Draw the runs of one setting with several seeds (a sweep over seed, such as Repeat "
                                "with Seeds, or older NAME-seed-N folders) as their mean curve with a min–max band"));
    connect(m_groupSeeds, &QCheckBox::toggled, this, [this] { updateGroups(); });
    m_groups = new QTableWidget(this);
    m_groups->setObjectName(QStringLiteral("groupsTable"));
    m_groups->setColumnCount(5);
    m_groups->setHorizontalHeaderLabels({tr("seed group"), tr("runs"), tr("final eval accuracy"), tr("final eval loss"),
                                         tr("final train loss")});
    m_groups->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_groups->horizontalHeader()->setStretchLastSection(true);
    m_groups->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_groups->setToolTip(tr("Mean ± standard deviation (lowest–highest, number of runs) of each group's final metrics"));
    m_groups->setMaximumHeight(140);
    m_groups->hide();
    auto *sweepButton = new QPushButton(tr("S&weep view…"), this);
    sweepButton->setObjectName(QStringLiteral("sweepViewButton"));
    sweepButton->setToolTip(tr("The runs listed, sorted by a metric, and their differing settings in parallel coordinates"));
    connect(sweepButton, &QPushButton::clicked, this, [this] { showSweepView(); });
    auto *buttons = new QHBoxLayout;
    auto *hint = new QLabel(tr("Check a run to overlay its curves (own colour) on the plot."), this);
    hint->setWordWrap(true); // the buttons keep their room on a narrow window
    buttons->addWidget(hint, 1);
    buttons->addWidget(scanButton);
    buttons->addWidget(add);
    auto *views = new QHBoxLayout; // a second row: the window fits a 1280×800 screen at 150 %
    views->addWidget(m_groupSeeds);
    views->addStretch(1);
    views->addWidget(m_differencesButton);
    views->addWidget(sweepButton);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addLayout(views);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_groups);
}

namespace {

/// The folder of a run: its model_dir (runKey's folder) as an absolute path.
QString runFolder(const RunHistory &run)
{
    const QFileInfo fi(run.sourcePath);
    return fi.isFile() ? fi.absolutePath() : fi.absoluteFilePath();
}

} // namespace

SweepView *RunsTable::showSweepView()
{
    std::vector<RunHistory> runs;
    QList<int> rows;
    for (const QModelIndex &index : m_table->selectionModel()->selectedRows())
        rows << index.row();
    std::sort(rows.begin(), rows.end());
    if (rows.size() >= 2)
        for (int r : rows)
            runs.push_back(m_runs[size_t(r)]);
    else
        runs = m_runs;
    // Runs that are all of one sweep folder are shown as that sweep.
    QString sweepDir;
    for (const RunHistory &r : runs) {
        const QString parent = QFileInfo(runFolder(r)).absolutePath();
        sweepDir = &r == &runs.front() || parent == sweepDir ? parent : QString();
        if (sweepDir.isEmpty())
            break;
    }
    if (!sweepDir.isEmpty() && QFileInfo::exists(QDir(sweepDir).filePath(QStringLiteral("sweep.json"))))
        return showSweepView(sweepDir);
    if (!m_sweepView)
        m_sweepView = new SweepView(this);
    m_sweepView->setRuns(runs);
    m_sweepView->open();
    return m_sweepView;
}

SweepView *RunsTable::showSweepView(const QString &sweepDir)
{
    const QString dir = QFileInfo(sweepDir).absoluteFilePath();
    std::vector<RunHistory> runs;
    for (const RunHistory &r : m_runs)
        if (QFileInfo(runFolder(r)).absolutePath() == dir)
            runs.push_back(r);
    std::optional<SweepFile> file;
    try {
        file = readSweepFile(dir.toStdString());
    } catch (...) {
        file.reset(); // shown as any runs; the sweep's own commands say what is wrong with sweep.json
    }
    if (!m_sweepView)
        m_sweepView = new SweepView(this);
    if (file)
        m_sweepView->setSweep(runs, *file, QFileInfo(dir).fileName());
    else
        m_sweepView->setRuns(runs);
    m_sweepView->open();
    return m_sweepView;
}

bool RunsTable::groupSeeds() const { return m_groupSeeds->isChecked(); }

void RunsTable::setGroupSeeds(bool on) { m_groupSeeds->setChecked(on); } // toggled → updateGroups()

void RunsTable::updateGroups()
{
    for (const QString &path : std::exchange(m_groupOverlays, {}))
        Q_EMIT overlayRemoved(path);
    const std::vector<RunGroup> groups = seedGroups(m_runs);
    m_groups->setRowCount(int(groups.size()));
    m_groups->setVisible(!groups.empty());
    std::vector<bool> grouped(m_runs.size(), false);
    for (int g = 0; g < int(groups.size()); ++g) {
        const RunGroup &group = groups[size_t(g)];
        std::vector<double> acc, loss, train;
        for (int row : group.rows) {
            const FinalMetrics f = finalMetrics(m_runs[size_t(row)]);
            acc.push_back(f.evalAccuracy);
            loss.push_back(f.evalLoss);
            train.push_back(f.trainLoss);
            grouped[size_t(row)] = true;
        }
        const QString cells[] = {group.name, QString::number(group.rows.size()), spreadText(spreadOf(acc)),
                                 spreadText(spreadOf(loss)), spreadText(spreadOf(train))};
        for (int c = 0; c < 5; ++c)
            m_groups->setItem(g, c, new QTableWidgetItem(cells[c]));
        m_groups->item(g, 0)->setForeground(colourFor(group.rows.front()));
        if (groupSeeds()) {
            const RunHistory mean = groupHistory(group, m_runs);
            Q_EMIT overlayAdded(mean, colourFor(group.rows.front()));
            m_groupOverlays << mean.sourcePath;
        }
    }
    // The runs of a group: drawn one by one only without grouping (and when checked).
    for (int row = 0; row < int(m_runs.size()); ++row) {
        const QTableWidgetItem *item = m_table->item(row, 0);
        const bool checked = item && (item->flags() & Qt::ItemIsUserCheckable) && item->checkState() == Qt::Checked;
        if (grouped[size_t(row)])
            setOverlay(row, checked && !groupSeeds());
    }
}

QColor RunsTable::runColour(int index)
{
    return runcolours::compared(index); // none a colour of the run shown, all readable on white
}

bool RunsTable::addRun(const QString &metricsPath, bool overlay, QString *error)
{
    QString err;
    const QString abs = QFileInfo(metricsPath).absoluteFilePath();
    RunHistory run = RunHistory::load(abs, &err);
    if (!err.isEmpty()) {
        if (error)
            *error = err;
        return false;
    }
    addHistory(run, overlay);
    return true;
}

namespace {

/// The run a history belongs to: its model_dir. A metrics.jsonl stands for the folder that
/// holds it; TensorBoard logs are already grouped by that folder (RunHistory::fromTensorBoard).
QString runKey(const RunHistory &run)
{
    const QFileInfo fi(run.sourcePath);
    return fi.isFile() ? fi.absolutePath() : fi.absoluteFilePath(); // a file stands for its folder
}

} // namespace

bool RunsTable::isLive(const RunHistory &run) const
{
    return !m_livePath.isEmpty() && runKey(run) == QFileInfo(m_livePath).absolutePath();
}

void RunsTable::addHistory(const RunHistory &incoming, bool overlay)
{
    int row = -1;
    for (int i = 0; i < int(m_runs.size()); ++i)
        if (m_runs[i].sourcePath == incoming.sourcePath || runKey(m_runs[i]) == runKey(incoming))
            row = i;
    const QSignalBlocker blocker(m_table);
    if (row < 0) {
        row = int(m_runs.size());
        m_runs.push_back(incoming);
        m_table->setRowCount(row + 1);
    } else {
        // The same run opened another way (metrics.jsonl, then its TensorBoard logs): one row,
        // one overlay, and nothing it recorded is lost (hyperparameters, summary, labels).
        // A reload of the same source replaces the row (its files may have changed).
        Q_EMIT overlayRemoved(m_runs[row].sourcePath);
        m_runs[row] = m_runs[row].sourcePath == incoming.sourcePath ? incoming : mergeRunHistory(m_runs[row], incoming);
    }
    fillRow(row, overlay && !isLive(m_runs[size_t(row)])); // the live run is drawn already
    updateGroups();
}

void RunsTable::fillRow(int row, bool overlay)
{
    const RunHistory &run = m_runs[size_t(row)];
    const bool live = isLive(run);
    const QString values[] = {live ? tr("%1 (current)").arg(run.name) : run.name,
                              run.trainStep.empty() ? QStringLiteral("0") : QString::number(qint64(run.trainStep.back())),
                              recordedNumber(run.recorded.learning_rate),
                              recordedNumber(run.recorded.train_batch_size),
                              recordedNumber(run.recorded.num_train_epochs),
                              // One definition with the Log and training_summary.json: its train_loss.
                              run.trainingSummary && std::isfinite(run.trainingSummary->train_loss)
                                  ? QString::number(run.trainingSummary->train_loss, 'g', 5)
                                  : lastFinite(run.trainLoss),
                              lastFinite(run.evalLoss),
                              lastFinite(run.evalAccuracy),
                              labelsText(run),
                              recordedText(run.recorded.dtype),
                              settingText(run, "distribution_strategy"),
                              runStartText(run),
                              bestAccuracyText(run),
                              run.sourcePath};
    for (int c = 0; c < int(std::size(values)); ++c) {
        auto *item = new QTableWidgetItem(values[c]);
        if (c == 0) {
            if (live) { // drawn in the plot already: never overlaid on itself
                item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
                item->setToolTip(tr("The run shown in the plot"));
            } else {
                item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsSelectable);
                item->setCheckState(overlay ? Qt::Checked : Qt::Unchecked);
                item->setForeground(colourFor(row));
            }
            if (!run.warnings.isEmpty()) // a file beside the metrics that could not be read
                item->setToolTip(run.warnings.join(QLatin1Char('\n')));
            if (live) { // "(current)" alone is bold
                QFont f = item->font();
                f.setBold(true);
                item->setFont(f);
            }
        }
        m_table->setItem(row, c, item);
    }
    setOverlay(row, overlay);
}

void RunsTable::setLiveMetricsPath(const QString &path)
{
    m_livePath = path.isEmpty() ? QString() : QFileInfo(path).absoluteFilePath();
    const QSignalBlocker blocker(m_table);
    for (int row = 0; row < int(m_runs.size()); ++row) {
        const QTableWidgetItem *item = m_table->item(row, 0);
        const bool checked = item && (item->flags() & Qt::ItemIsUserCheckable) && item->checkState() == Qt::Checked;
        Q_EMIT overlayRemoved(m_runs[size_t(row)].sourcePath);
        fillRow(row, checked && !isLive(m_runs[size_t(row)]));
    }
}

std::vector<SettingDifference> RunsTable::selectedDifferences() const
{
    std::vector<RunHistory> selected;
    for (const QModelIndex &index : m_table->selectionModel()->selectedRows())
        selected.push_back(m_runs[size_t(index.row())]);
    return differingSettings(selected);
}

QDialog *RunsTable::showDifferences()
{
    QList<int> rows;
    for (const QModelIndex &index : m_table->selectionModel()->selectedRows())
        rows << index.row();
    std::sort(rows.begin(), rows.end());
    if (rows.size() < 2) {
        m_differencesButton->setToolTip(tr("Select two or more runs first (Ctrl+click), then press Differences only"));
        return nullptr;
    }
    std::vector<RunHistory> selected;
    QStringList names;
    for (int r : rows) {
        selected.push_back(m_runs[size_t(r)]);
        names << m_runs[size_t(r)].name;
    }
    const std::vector<SettingDifference> diffs = differingSettings(selected);
    if (!m_differences) {
        m_differences = new QDialog(this);
        m_differences->setObjectName(QStringLiteral("differencesDialog"));
        m_differences->setWindowTitle(tr("Differences only"));
        auto *table = new QTableWidget(m_differences);
        table->setObjectName(QStringLiteral("differencesTable"));
        table->setEditTriggers(QAbstractItemView::NoEditTriggers);
        table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
        auto *note = new QLabel(m_differences);
        note->setObjectName(QStringLiteral("differencesNote"));
        note->setWordWrap(true);
        auto *box = new QDialogButtonBox(QDialogButtonBox::Close, m_differences);
        connect(box, &QDialogButtonBox::rejected, m_differences, &QDialog::reject);
        auto *layout = new QVBoxLayout(m_differences);
        layout->addWidget(note);
        layout->addWidget(table, 1);
        layout->addWidget(box);
        m_differences->resize(720, 420);
    }
    auto *table = m_differences->findChild<QTableWidget *>(QStringLiteral("differencesTable"));
    table->clear();
    table->setColumnCount(int(selected.size()));
    table->setHorizontalHeaderLabels(names);
    table->setRowCount(int(diffs.size()));
    QStringList keys;
    for (int i = 0; i < int(diffs.size()); ++i) {
        keys << QString::fromStdString(diffs[size_t(i)].key);
        for (int c = 0; c < int(selected.size()); ++c)
            table->setItem(i, c, new QTableWidgetItem(QString::fromStdString(diffs[size_t(i)].values[size_t(c)])));
    }
    table->setVerticalHeaderLabels(keys);
    m_differences->findChild<QLabel *>(QStringLiteral("differencesNote"))
        ->setText(diffs.empty() ? tr("These %n runs record the same settings.", nullptr, int(selected.size()))
                                : tr("%n setting(s) differ; every other setting is the same in these runs.", nullptr,
                                     int(diffs.size())));
    m_differences->open();
    return m_differences;
}

void RunsTable::clear()
{
    for (const RunHistory &run : m_runs)
        Q_EMIT overlayRemoved(run.sourcePath);
    m_runs.clear();
    const QSignalBlocker blocker(m_table);
    m_table->setRowCount(0);
    m_livePath.clear();
    updateGroups();
    ++m_scanGeneration; // a scan in flight lists nothing into the emptied table
}

void RunsTable::scanInBackground(const QString &modelDir)
{
    const quint64 generation = ++m_scanGeneration;
    runBackgroundJob<std::vector<RunHistory>>(
        this,
        [modelDir](const JobControl &) { // on a pool thread: captures only values
            std::vector<RunHistory> runs;
            for (const QString &path : RunHistory::findRuns(modelDir)) {
                QString error;
                RunHistory run = RunHistory::load(QFileInfo(path).absoluteFilePath(), &error);
                if (error.isEmpty()) // an unreadable metrics.jsonl is left out, as addRun() does
                    runs.push_back(std::move(run));
            }
            return runs;
        },
        [this, modelDir, generation](JobOutcome<std::vector<RunHistory>> outcome) {
            if (generation != m_scanGeneration) {
                Q_EMIT scanDropped(modelDir);
                return;
            }
            if (!outcome.ok()) {
                Q_EMIT scanFailed(modelDir, outcome.error);
                return;
            }
            for (const RunHistory &run : *outcome.value) {
                // The live run is listed too (its row is left unchecked: the plot draws it already).
                bool checked = false;
                for (int i = 0; i < int(m_runs.size()); ++i)
                    if (m_runs[i].sourcePath == run.sourcePath && m_table->item(i, 0))
                        checked = m_table->item(i, 0)->checkState() == Qt::Checked;
                addHistory(run, checked);
            }
            Q_EMIT scanned(modelDir, int(outcome.value->size()));
        });
}

void RunsTable::setOverlay(int row, bool on)
{
    if (row < 0 || row >= int(m_runs.size()))
        return;
    bool drawnAsGroup = false; // with Group seeds, a group's runs are drawn as its mean
    if (on && groupSeeds())
        for (const RunGroup &g : seedGroups(m_runs))
            drawnAsGroup = drawnAsGroup || std::find(g.rows.begin(), g.rows.end(), row) != g.rows.end();
    if (on && !drawnAsGroup)
        Q_EMIT overlayAdded(m_runs[row], colourFor(row));
    else
        Q_EMIT overlayRemoved(m_runs[row].sourcePath);
}

} // namespace wb
