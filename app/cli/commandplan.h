// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/preparedrun.h"

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace wb::cli {

/// What a command built on train adds (distil): flags of its own, and a step after the flags
/// are parsed and before the run is planned, which may change the options (returns kExitOk, or
/// the exit code after reporting).
struct CommandHooks
{
    std::function<void(CLI::App &)> flags;
    std::function<int(TrainingOptions &, bool jsonl, std::ostream &out, std::ostream &err)> before;
};

/// What a run command (train, pretrain, predict, export) planned from its flags.
struct CommandPlan
{
    bool ready = false; ///< `run` passed every step before the run; false: nothing to run
    PreparedRun run;    ///< the plan runPlanned runs (ready only)
    bool jsonl = false; ///< --progress_format=jsonl
};

/// The part of `bert-workbench-cli <command>` before anything runs: parses `args` (pretrain:
/// run_pretraining.py's flags too), then plans the run in the CLI's words (planRun,
/// core/engine/runplan.h, for every command), the download's progress on
/// stderr (stdout with jsonl), Ctrl+C stopping a download. Returns kExitOk with plan.ready, or
/// the exit code after reporting (--help: 0, nothing planned). `description` heads --help.
int planCommandRun(const std::string &command, RunPurpose purpose, const std::string &description,
                   const std::vector<std::string> &args, std::ostream &out, std::ostream &err, CommandPlan &plan,
                   const CommandHooks &hooks = {});

/// train's whole command (planCommandRun, then the run with the CLI's progress and Ctrl+C),
/// for commands that are a train run with a step before it (distil). Returns the exit code.
int runTrainingCommand(const std::string &command, RunPurpose purpose, const std::string &description,
                       const std::vector<std::string> &args, std::ostream &out, std::ostream &err,
                       const CommandHooks &hooks);

} // namespace wb::cli
