// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/common/errorreport.h"
#include "ui/runs/runhistory.h"

#include <QColor>
#include <QWidget>

class QCheckBox;
class QDialog;
class QPushButton;
class QTableWidget;

namespace wb {


/// Run comparison: lists runs (metrics.jsonl files) with their hyperparameters and final
/// metrics; checking a run overlays it in the LossPlot with its own colour. GUI thread only.
class RunsTable : public QWidget
{
    Q_OBJECT
public:
    explicit RunsTable(QWidget *parent = nullptr);

    /// Adds (or reloads) the run of `metricsPath`; returns false and sets `error` when it
    /// cannot be read. `overlay` checks it at once.
    bool addRun(const QString &metricsPath, bool overlay, QString *error = nullptr);
    /// Adds (or replaces, by sourcePath) an already loaded run, e.g. one read from
    /// TensorBoard logs (RunHistory::fromTensorBoard). `overlay` checks it at once.
    void addHistory(const RunHistory &run, bool overlay);
    /// Lists every run found next to `modelDir` (RunHistory::findRuns and RunHistory::load, on
    /// backgroundJobPool(): they read a folder tree and every run's files). The rows are
    /// applied on the GUI thread when the scan ends (a listed run keeps its check box, a new
    /// one comes unchecked) and scanned() follows; when a later scan or clear() came first,
    /// the result is stale and dropped instead (scanDropped()). Returns at once.
    void scanInBackground(const QString &modelDir);
    /// Sets the live run (already drawn in the plot): its row is named "<run> (current)" and
    /// cannot be checked, so the run is never overlaid on itself; scans list it so it can be
    /// compared. "" : no live run.
    void setLiveMetricsPath(const QString &path);
    QString liveMetricsPath() const { return m_livePath; }
    /// The runs listed, in row order.
    const std::vector<RunHistory> &runs() const { return m_runs; }
    /// The colour of the run in row `index`: runcolours::compared (ui/runs/runcolours.h: none a
    /// colour of the run shown, all readable on white), repeating after 8.
    static QColor runColour(int index);
    /// The differences of the selected rows' settings (differingSettings; two or more rows).
    std::vector<SettingDifference> selectedDifferences() const;
    /// Shows "Differences only" of the selected rows: a dialog (object name "differencesDialog")
    /// with one row per setting whose values differ and one column per run. Returns it, or
    /// nullptr with a status message when fewer than two rows are selected.
    QDialog *showDifferences();
    /// "Group seeds" (check box "groupSeeds"): the runs of one seed group (seedGroups,
    /// ui/runs/rungroup.h: runs whose settings differ in seed only, a sweep's or not) are drawn
    /// as one mean curve with a min–max band (groupHistory) instead of one curve each. The
    /// groups table (groupsTable(), shown when there is a group) gives each group's final
    /// metrics as mean ± standard deviation (min–max, n).
    void setGroupSeeds(bool on);
    bool groupSeeds() const;
    QTableWidget *groupsTable() const { return m_groups; }
    /// "Sweep view…": the selected runs (two or more), else every listed run, sorted by a metric
    /// and in parallel coordinates (SweepView, ui/runs/sweepview.h); runs that are all of one
    /// sweep are shown as that sweep (showSweepView(sweepDir)).
    class SweepView *showSweepView();
    /// The Sweep view of the sweep in `sweepDir`: the listed runs of that folder only, its swept
    /// options as the axes and its metric (sweep.json, a small file read on the GUI thread).
    /// Without a readable sweep.json, those runs as showSweepView() shows any runs.
    class SweepView *showSweepView(const QString &sweepDir);
    /// Removes every run from the table and its overlays from the plot (a new project).
    void clear();
    int runCount() const { return int(m_runs.size()); }
    QTableWidget *table() const { return m_table; }

Q_SIGNALS:
    /// A run (or a seed group's mean) to overlay on the plot in `colour` (the window connects
    /// it to LossPlot::addComparisonRun: this room does not know the plot).
    void overlayAdded(const wb::RunHistory &run, const QColor &colour);
    /// The overlay of the run read from `sourcePath` is to go (LossPlot::removeComparisonRun).
    void overlayRemoved(const QString &sourcePath);
    void addRunRequested();
    void scanRequested();
    /// The scan of `modelDir` has listed `added` runs.
    void scanned(const QString &modelDir, int added);
    /// The scan of `modelDir` ended after a later scan or clear(): its runs were not listed.
    void scanDropped(const QString &modelDir);
    /// The scan of `modelDir` failed (`error` says why); nothing was listed.
    void scanFailed(const QString &modelDir, const wb::ErrorReport &error);

private:
    void setOverlay(int row, bool on);
    QColor colourFor(int index) const { return runColour(index); }
    /// Whether `run` is the live run (setLiveMetricsPath).
    bool isLive(const RunHistory &run) const;
    /// Fills row `row`'s cells from m_runs[row].
    void fillRow(int row, bool overlay);
    /// Fills the groups table and, with Group seeds, draws each group instead of its runs.
    void updateGroups();

    QTableWidget *m_table;
    QPushButton *m_differencesButton = nullptr;
    QCheckBox *m_groupSeeds = nullptr;
    QTableWidget *m_groups = nullptr;
    QStringList m_groupOverlays; ///< sourcePaths of the group curves drawn
    QDialog *m_differences = nullptr;
    class SweepView *m_sweepView = nullptr;
    std::vector<RunHistory> m_runs;
    QString m_livePath;
    quint64 m_scanGeneration = 0; ///< the latest scanInBackground() or clear(); older scans are stale
};

} // namespace wb
