// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/train/sweep.h"
#include "ui/window/runqueue.h"

#include <QDialog>

#include <map>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace wb {

/// Training → Sweep…: the plan of `bert-workbench-cli sweep` built in the window (one field per
/// sweepable option: "1e-4,5e-4" or, for random search, "1e-5:1e-3"; the method, the number of
/// runs and the sample seed; the sweep folder; how many runs train at once), trained on the
/// form's other settings one run after another through the RunQueue, or with "Runs at once"
/// above 1 by the CLI's `sweep --max_concurrent_runs` (ConcurrentSweep). The folder is the CLI's
/// format (sweep.json and run-001 …, docs/file-formats.md), so either can resume the other's
/// sweep. Object names: "sweepDialog", "sweepParam_<option>", "sweepMethod", "sweepNumRuns",
/// "sweepSampleSeed", "sweepFolder", "sweepRunsAtOnce", "sweepPlanText", "startSweep". GUI thread only.
class SweepDialog : public QDialog
{
    Q_OBJECT
public:
    explicit SweepDialog(QWidget *parent = nullptr);

    /// The folder proposed for the form's model_dir ("<model_dir>-sweep").
    void setBaseOptions(const TrainingOptions &o, RunPurpose purpose);
    /// The plan of the fields (with sweep.json's state when the folder holds the same plan), or
    /// nothing with `*error` saying what to fix ("--param: …").
    std::optional<SweepFile> plan(QString *error) const;
    /// The runs of `file` not completed yet, on the base options, each in its run folder.
    std::vector<QueuedRun> pendingRuns(const SweepFile &file) const;
    QString sweepDir() const;
    /// "Runs at once": 1 trains one run after another in the window; more, that many at the
    /// same time, each in its own process.
    int runsAtOnce() const;
    /// Records in sweep.json how run `runName` ended (status and final metrics). Reads and
    /// writes small files on the GUI thread (as the CLI does between runs).
    void recordRunEnd(const QString &runName, bool completed, bool stopped);

Q_SIGNALS:
    /// Start pressed on a valid plan (already written to sweep.json).
    void startRequested(const wb::SweepFile &file);

private:
    void updatePlanText();

    TrainingOptions m_base;
    RunPurpose m_purpose = RunPurpose::Train;
    std::map<std::string, QLineEdit *> m_params;
    QComboBox *m_method;
    QSpinBox *m_numRuns, *m_sampleSeed, *m_runsAtOnce;
    QLineEdit *m_folder;
    QLabel *m_planText;
};

/// The `train` flags a sweep's runs share: `o` as command-line flags without --model_dir and
/// without the options `file` sweeps (sweep.json's base_flags). Pure.
std::vector<std::string> sweepBaseFlags(const TrainingOptions &o, const SweepSpec &spec);

} // namespace wb
