// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/preparedrun.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace wb::cli {

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
                   const std::vector<std::string> &args, std::ostream &out, std::ostream &err, CommandPlan &plan);

} // namespace wb::cli
