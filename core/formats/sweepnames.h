// SPDX-License-Identifier: Apache-2.0
#pragma once

// Torch-free and Qt-free: how sweeps and their runs are named beside a project's other runs
// (docs/file-formats.md, "Sweep folder": runs/run-1, runs/run-2, runs/sweep-1/run-001, …).

#include <optional>
#include <string>
#include <vector>

namespace wb {

/// The folder proposed for a new sweep of the run in `modelDir`: "sweep-N" beside it
/// ("runs/run-1" → "runs/sweep-1"; "runs/sweep-1/run-003", itself a sweep's run, → the folder
/// beside its sweep), N the first number from 1 whose folder does not exist yet. A relative
/// `modelDir` gives a relative folder; "" gives "sweep-N" in the working directory. Reads the
/// disk (whether folders exist); never throws; any thread.
std::string nextSweepDir(const std::string &modelDir);

/// What sweep.json says about a run folder of a sweep (sweepMembership).
struct SweepMembership
{
    std::string sweepDir;           ///< the sweep folder (the folder above the run, holding sweep.json)
    std::string run;                ///< the run's name in the plan ("run-002")
    std::vector<std::string> swept; ///< the options the sweep varies, in the plan's order
    std::string metric;             ///< the metric its results are sorted by ("eval_accuracy")
};

/// The sweep `runDir` belongs to: the folder above holds sweep.json and its plan has a run of
/// the folder's name; nothing otherwise (also for a sweep.json that cannot be read). Reads a
/// small file; never throws; any thread.
std::optional<SweepMembership> sweepMembership(const std::string &runDir);

/// How a run is named in the window: a sweep's run by its sweep folder and its own name
/// ("sweep-1/run-002", "run-1-seeds/run-003"), so that it reads apart from the project's
/// run-1, run-2; any other run by its folder's name. Reads sweep.json (a small file) as
/// sweepMembership; never throws; any thread.
std::string runDisplayName(const std::string &runDir);

} // namespace wb
