// SPDX-License-Identifier: Apache-2.0
#include "core/launch/localcluster.h"

#include "core/util/errortext.h"

namespace wb {

LocalClusterEnd runLocalCluster(const LocalWorkerPlan &plan, const std::string &executable, const std::string &command,
                                bool jsonl, int threadsPerWorker, const LocalClusterSinks &sinks,
                                const StopToken *stop)
{
    LocalClusterEnd out;
    LocalLaunchOptions o = workerLaunchOptions(plan, executable, command, jsonl, threadsPerWorker);
    o.stop = stop;
    LocalLauncher launcher(o);
    ChiefStream chief(sinks.observer); // the chief's events go on; "finished" is kept for result()
    if (sinks.running)
        sinks.running->store(&launcher);
    try {
        out.launched = launcher.run(
            [&](const std::string &line) {
                chief.feedOutput(line);
                if (sinks.chief_line)
                    sinks.chief_line(line);
            },
            [&](const std::string &line) {
                chief.feedError(line);
                if (sinks.error_line)
                    sinks.error_line(line);
            });
    } catch (...) {
        if (sinks.running)
            sinks.running->store(nullptr);
        ErrorText error = describeCurrentException("num_local_workers");
        if (error.field.empty())
            error.field = "num_local_workers";
        out.end = failedRun(error);
        out.launch_failed = true;
        return out;
    }
    if (sinks.running)
        sinks.running->store(nullptr);
    out.end = chief.result(out.launched);
    out.chief_finished = chief.finished();
    return out;
}

} // namespace wb
