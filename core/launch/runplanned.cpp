// SPDX-License-Identifier: Apache-2.0
#include "core/launch/runplanned.h"

#include "core/engine/blascheck.h"
#include "core/launch/trainer.h"

namespace wb {

PlannedRunEnd runPlanned(const PreparedRun &plan, TrainingObserver &observer, const StopToken &stop,
                         const LocalWorkersFrontEnd &workers)
{
    PlannedRunEnd r;
    if (!plan.runsAsLocalWorkers()) {
        Trainer trainer;
        r.end = trainer.execute(plan, observer, stop);
        return r;
    }
    const LocalWorkerPlan &local = plan.local_workers;
    if (workers.starting)
        if (std::optional<RunFinished> refused = workers.starting(local)) {
            r.end = std::move(*refused);
            return r;
        }
    LocalClusterSinks sinks;
    sinks.observer = workers.chief_line ? nullptr : &observer;
    sinks.chief_line = workers.chief_line;
    sinks.error_line = workers.error_line;
    sinks.running = workers.running;
    r.cluster = runLocalCluster(local, workers.executable, workers.command, workers.jsonl,
                                threadsPerLocalWorker(local.num_workers), sinks, workers.forward_stop ? &stop : nullptr);
    r.end = r.cluster->end;
    return r;
}

} // namespace wb
