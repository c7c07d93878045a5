// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/launch/locallauncher.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace wb::cli {

/// `train --distribution_strategy=multi_worker_mirrored --num_local_workers=N` (or
/// `mirrored --num_gpus=N`, N > 1): starts plan.num_workers copies of this binary as
/// workers on loopback (wb::LocalLauncher), each running `command` with
/// toCommandLineFlags(plan.worker) (and --progress_format=jsonl when `progressFormat` is
/// "jsonl": then every line on `out` is a JSON event, ending with "finished"); streams the chief's output to `out`,
/// every worker's errors to `err` ("[worker r] ..."), forwards Ctrl+C, and returns the
/// exit code: 0, 130 when stopped, the failed worker's code (1 when it was killed) with
/// "error: cluster: worker rank r ... " on `err`.
int runLocalWorkers(const std::string &command, const LocalWorkerPlan &plan, const std::string &progressFormat,
                    std::ostream &out, std::ostream &err);

} // namespace wb::cli
