// SPDX-License-Identifier: Apache-2.0
#pragma once

// Torch-free and Qt-free: the loop of a sweep, once for `bert-workbench-cli sweep` and the
// window's Sweep dialog (and Repeat with Seeds, a sweep over seed).

#include "core/formats/sweep.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// A sweep folder being trained: its plan (sweep.json's when the folder holds the same plan),
/// which runs are left, and sweep.json kept up to date as runs start and end. The front-ends
/// own the runs themselves (a RunExecutor, core/launch/runexecutor.h, trains them) and call
///
///     SweepDriver d = SweepDriver::planOrResume(dir, planned, "…", "…");
///     d.save();
///     for (size_t i : d.pendingRuns()) { d.started(i); …train d.trainArgs(i)…; d.ended(i, status); }
///
/// or, runs at the same time, next() until it gives nothing. Every method that writes throws
/// wb::Error(sweep.json's path, …) when the file cannot be written. Not thread-safe: call it
/// from one thread (the CLI's, or the window's GUI thread; it reads and writes small files).
class SweepDriver
{
public:
    SweepDriver(std::string sweepDir, SweepFile file);

    /// The sweep of `planned` (its runs Pending) in `sweepDir`: sweep.json's state when the
    /// folder holds the same plan (samePlan: a resume), else `planned`. A folder holding
    /// another plan throws wb::Error(sweep.json's path, otherPlanMessage, otherPlanHint) — the
    /// front-end says what to do in its own words. Reads the disk; writes nothing.
    static SweepDriver planOrResume(const std::string &sweepDir, SweepFile planned, const std::string &otherPlanMessage,
                                    const std::string &otherPlanHint);
    /// `planned` with every run of planSweep(planned.spec) added as Pending. Throws as planSweep.
    static SweepFile withPlannedRuns(SweepFile planned);
    /// sweep.json's sweep in `sweepDir` as it stands; nothing when there is none. Throws as
    /// readSweepFile.
    static std::optional<SweepDriver> resume(const std::string &sweepDir);

    const std::string &sweepDir() const { return m_sweepDir; }
    const SweepFile &file() const { return m_file; }
    /// Writes sweep.json.
    void save() const;

    /// Run `i`'s model_dir (sweepDir/run-00N).
    std::string runDir(size_t i) const;
    /// `train`'s arguments for run `i` (without the command): the shared flags, the run's
    /// values and its model_dir (train resumes from the run's latest checkpoint).
    std::vector<std::string> trainArgs(size_t i) const;
    /// Whether run `i` is done: sweep.json says completed and training_summary.json is there.
    bool isDone(size_t i) const;
    /// The runs still to train, in plan order; `skipped`, when given, gets the done ones.
    std::vector<size_t> pendingRuns(std::vector<size_t> *skipped = nullptr) const;
    /// The next run of pendingRuns() (as it was at the first call) not handed out yet; nothing
    /// when every one was.
    std::optional<size_t> next();
    /// The index of the run named `name` ("run-002"); nothing when the plan has none.
    std::optional<size_t> indexOf(const std::string &name) const;

    /// Run `i` starts: its status "running", saved.
    void started(size_t i);
    /// Run `i` ended: its status and final metrics (sweepRunFinalMetrics of its folder), saved;
    /// a Failed one is counted.
    void ended(size_t i, SweepRunStatus status);
    /// `train`'s exit code as a run's status: 0 completed, 130 stopped, anything else failed.
    static SweepRunStatus statusOfExitCode(int exitCode);
    /// How many runs ended Failed since this driver was made.
    int failedCount() const { return m_failed; }

    /// Whether a lower `metric` is better (eval_loss, train_loss).
    static bool lowerIsBetter(const std::string &metric);
    /// The value of the sweep's metric in run `i`'s final metrics (NaN when it has none).
    double metricOf(size_t i) const;
    /// Every run's index, best first by the sweep's metric; runs without it last, in plan order.
    std::vector<size_t> resultsOrder() const;

private:
    std::string m_sweepDir;
    SweepFile m_file;
    std::optional<std::vector<size_t>> m_queue;
    size_t m_handedOut = 0;
    int m_failed = 0;
};

/// The seed group of the run in `runDir` as its sweep records it (the marker that Compare runs'
/// Group seeds reads): when the folder above holds sweep.json, the run is one of its runs and
/// the sweep varies seed, the sweep folder's name followed by the run's other swept values
/// ("lr-sweep learning_rate=0.001"; just "model-seeds" for Repeat with Seeds, which sweeps seed
/// alone); else "". Runs of one group differ in seed only. A sweep.json that cannot be read
/// gives "". Reads the disk; never throws; any thread.
std::string sweepSeedGroup(const std::string &runDir);

} // namespace wb
