// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/formats/sweep.h"
#include "core/formats/sweepdriver.h"
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
/// form's other settings one run after another (the window's SweepDriver over the RunQueue, its
/// RunExecutor), or with "Runs at once" above 1 by the CLI's `sweep --max_concurrent_runs`
/// (ConcurrentSweep, which follows its jsonl events). The folder is the CLI's
/// format (sweep.json and run-001 …, docs/file-formats.md), so either can resume the other's
/// sweep. Object names: "sweepDialog", "sweepParam_<option>", "sweepMethod", "sweepNumRuns",
/// "sweepSampleSeed", "sweepFolder", "sweepRunsAtOnce", "sweepPlanText", "startSweep". GUI thread only.
class SweepDialog : public QDialog
{
    Q_OBJECT
public:
    explicit SweepDialog(QWidget *parent = nullptr);

    /// The form's options the runs share; a new sweep's folder is proposed beside the form's
    /// model_dir (nextSweepDir, core/formats/sweepnames.h: "runs/run-1" → "runs/sweep-1").
    void setBaseOptions(const TrainingOptions &o, RunPurpose purpose);
    /// The sweep of the fields (SweepDriver::planOrResume: with sweep.json's state when the
    /// folder holds the same plan), or nothing with `*error` saying what to fix ("--param: …").
    /// Reads sweep.json (a small file) on the GUI thread.
    std::optional<SweepDriver> plan(QString *error) const;
    QString sweepDir() const;
    /// "Runs at once": 1 trains one run after another in the window; more, that many at the
    /// same time, each in its own process.
    int runsAtOnce() const;

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

/// Run `i` of `sweep` as the window trains it: `base` with the run's values, its model_dir the
/// run's folder, labelled with its name ("run-002"), or "seed N" when `bySeed`. Pure.
QueuedRun sweepQueuedRun(const TrainingOptions &base, RunPurpose purpose, const SweepDriver &sweep, size_t i, bool bySeed);

/// Repeat with Seeds' sweep folder for `modelDir`: "<modelDir>-seeds" (a trailing '/' dropped),
/// beside it; its runs are run-001, run-002, … as any sweep's. Pure.
std::string seedSweepDir(const std::string &modelDir);

/// Repeat with Seeds as a sweep: `o` trained `count` times (count ≥ 1) with seeds o.seed,
/// o.seed + 1, … (a grid over seed; base_flags from sweepBaseFlags), its runs planned. Pure.
SweepFile seedSweep(const TrainingOptions &o, int count);

} // namespace wb
