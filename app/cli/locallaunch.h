// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace wb::cli {

/// `train --distribution_strategy=multi_worker_mirrored --num_local_workers=N`: starts N
/// copies of this binary as workers on loopback (wb::LocalLauncher), streams the chief's
/// output to `out`, every worker's errors to `err` ("[worker r] ..."), forwards Ctrl+C,
/// and returns the exit code: 0, 130 when stopped, the failed worker's code (1 when it was
/// killed) with "error: cluster: worker rank r ... " on `err`. `args` are the command's
/// flags as given (the launcher removes --num_local_workers for the workers);
/// `command` is the subcommand to run in the workers ("train").
int runLocalWorkers(const std::string &command, const TrainingOptions &options, const std::vector<std::string> &args,
                    std::ostream &out, std::ostream &err);

} // namespace wb::cli
