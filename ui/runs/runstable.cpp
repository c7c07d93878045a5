// SPDX-License-Identifier: Apache-2.0
#include "ui/runs/runstable.h"
#include "ui/common/backgroundjob.h"

#include "ui/plot/lossplot.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include <cmath>

namespace wb {

namespace {

const char *const kColumns[] = {"run", "steps", "learning_rate", "train_batch_size", "num_train_epochs",
                                "final train loss", "final eval loss", "final eval accuracy", "labels", "dtype", "path"};

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

RunsTable::RunsTable(LossPlot *plot, QWidget *parent) : QWidget(parent), m_plot(plot), m_table(new QTableWidget(this))
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
    connect(m_table, &QTableWidget::itemChanged, this, [this](QTableWidgetItem *item) {
        if (item->column() == 0)
            setOverlay(item->row(), item->checkState() == Qt::Checked);
    });
    auto *add = new QPushButton(tr("Add run…"), this);
    add->setToolTip(tr("Open another run's metrics.jsonl to overlay it in the plot"));
    connect(add, &QPushButton::clicked, this, &RunsTable::addRunRequested);
    auto *scanButton = new QPushButton(tr("Find runs"), this);
    scanButton->setToolTip(tr("List the runs in the model directory, its subdirectories and its sibling directories"));
    connect(scanButton, &QPushButton::clicked, this, &RunsTable::scanRequested);
    auto *buttons = new QHBoxLayout;
    auto *hint = new QLabel(tr("Check a run to overlay its curves (own colour) on the plot."), this);
    hint->setWordWrap(true); // the buttons keep their room on a narrow window
    buttons->addWidget(hint, 1);
    buttons->addWidget(scanButton);
    buttons->addWidget(add);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(m_table, 1);
}

QColor RunsTable::colourFor(int index) const
{
    static const QColor palette[] = {{214, 39, 40}, {140, 86, 75}, {227, 119, 194}, {188, 189, 34},
                                     {23, 190, 207}, {127, 127, 127}, {255, 187, 120}, {152, 223, 138}};
    return palette[index % int(std::size(palette))];
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
    return fi.isDir() ? fi.absoluteFilePath() : fi.absolutePath();
}

} // namespace

void RunsTable::addHistory(const RunHistory &run, bool overlay)
{
    const QString abs = run.sourcePath;
    int row = -1;
    for (int i = 0; i < int(m_runs.size()); ++i)
        if (m_runs[i].sourcePath == abs || runKey(m_runs[i]) == runKey(run))
            row = i;
    const QSignalBlocker blocker(m_table);
    if (row < 0) {
        row = int(m_runs.size());
        m_runs.push_back(run);
        m_table->setRowCount(row + 1);
    } else {
        // The same run opened another way (metrics.jsonl, then its TensorBoard logs): one row,
        // one overlay.
        m_plot->removeComparisonRun(m_runs[row].sourcePath);
        m_runs[row] = run;
    }
    const QString values[] = {run.name,
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
                              abs};
    for (int c = 0; c < int(std::size(values)); ++c) {
        auto *item = new QTableWidgetItem(values[c]);
        if (c == 0) {
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsSelectable);
            item->setCheckState(overlay ? Qt::Checked : Qt::Unchecked);
            item->setForeground(colourFor(row));
            if (!run.warnings.isEmpty()) // a file beside the metrics that could not be read
                item->setToolTip(run.warnings.join(QLatin1Char('\n')));
            QFont f = item->font();
            f.setBold(true);
            item->setFont(f);
        }
        m_table->setItem(row, c, item);
    }
    setOverlay(row, overlay);
}

void RunsTable::clear()
{
    for (const RunHistory &run : m_runs)
        m_plot->removeComparisonRun(run.sourcePath);
    m_runs.clear();
    const QSignalBlocker blocker(m_table);
    m_table->setRowCount(0);
    m_livePath.clear();
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
    if (on)
        m_plot->addComparisonRun(m_runs[row], colourFor(row));
    else
        m_plot->removeComparisonRun(m_runs[row].sourcePath);
}

} // namespace wb
