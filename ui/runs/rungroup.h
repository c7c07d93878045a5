// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/runs/runhistory.h"

#include <QString>

#include <vector>

namespace wb {

/// One curve of one run: values at steps (ascending steps; non-finite values are gaps).
struct CurveSeries
{
    std::vector<double> step, value;
};

/// The curves of a group of runs on one step axis (groupCurve): at each step the mean, the
/// minimum and the maximum over the runs that cover it, and how many do.
struct GroupCurve
{
    std::vector<double> step, mean, min, max;
    std::vector<int> count;
};

/// Groups curves recorded at different steps (runs that logged or evaluated at other steps,
/// or stopped early). The steps are the union of every run's steps with a finite value; at
/// each, a run counts when the step lies within its first and last finite point, with its value
/// there or, between two of its points, the straight line between them (linear interpolation
/// in the step); a step past a run's end does not count it (Aim and TensorBoard align runs by
/// step the same way). Steps no run covers are left out. Pure.
GroupCurve groupCurve(const std::vector<CurveSeries> &runs);

/// Mean, spread and range of one number over the runs of a group (the finite values only).
struct Spread
{
    int n = 0;
    double mean = 0, min = 0, max = 0;
    double stddev = 0; ///< sample standard deviation (n − 1 in the denominator); NaN when n < 2
};

/// The spread of `values` (non-finite values are left out; n = 0: mean, min, max NaN). Pure.
Spread spreadOf(const std::vector<double> &values);

/// "0.9375 ± 0.0125 (0.925–0.95, n = 3)", "–" when n = 0; ± is left out when n = 1. Pure.
QString spreadText(const Spread &s);

/// The seed group a run belongs to by its folder name: "<base>-seed-<N>" (Repeat with Seeds
/// named its runs so before it became a sweep over seed) belongs to "<base>"; any other name to
/// none (""). Pure.
QString seedGroupName(const QString &runName);

/// Runs of the same seed group, two or more: runs whose recorded settings (RunHistory::settings)
/// are the same but for seed, with two or more seeds — a sweep's runs or not; the group is named
/// after their common sweep group (RunHistory::seedGroup, "sweep-1 learning_rate=0.001"), else
/// after the runs ("run-1, run-2, run-3"). Runs that record no settings (TensorBoard logs, a
/// metrics file alone) are grouped by the group their sweep records or, without one,
/// seedGroupName of their folder name (Repeat with Seeds' older "<base>-seed-N" folders).
/// `rows` are indexes into the list given to seedGroups, in list order; groups in the order of
/// their first run.
struct RunGroup
{
    QString name;
    std::vector<int> rows;
};
std::vector<RunGroup> seedGroups(const std::vector<RunHistory> &runs);

/// The finite values of a run's last point of each kind, for spreadOf: the final train loss
/// (training_summary.json's train_loss, else the last logged), eval loss and eval accuracy
/// (NaN when the run has none).
struct FinalMetrics
{
    double trainLoss, evalLoss, evalAccuracy;
};
FinalMetrics finalMetrics(const RunHistory &run);

/// A seed group as one run for the plot: named "<group> (mean of N)", sourcePath
/// "seed-group:<group>", its train loss, eval loss and eval accuracy the groupCurve means of
/// the runs `group.rows` of `runs` (wall times 0: a group has no clock), trainLossLow/High the
/// band. Pure.
RunHistory groupHistory(const RunGroup &group, const std::vector<RunHistory> &runs);

} // namespace wb
