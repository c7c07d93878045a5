// SPDX-License-Identifier: Apache-2.0
#include "core/config/localworkerplan.h"

#include "core/config/diagnostics.h"
#include "core/config/distributionstrategy.h"

namespace wb {

LocalWorkerPlan planLocalWorkers(const TrainingOptions &o)
{
    LocalWorkerPlan plan;
    if (o.mode != "train_and_eval")
        return plan;
    Diagnostics ignored; // the pre-flight check reports a bad strategy; here it only means "no plan"
    const StrategyKind kind = DistributionStrategy::parse(o.distribution_strategy, o.num_gpus, ignored).kind;
    if (kind == StrategyKind::MultiWorkerMirrored && o.num_local_workers > 0) {
        plan.num_workers = o.num_local_workers;
        plan.worker = o;
    } else if (kind == StrategyKind::Mirrored && o.num_gpus > 1) {
        plan.num_workers = o.num_gpus;
        plan.worker = o;
        plan.worker.distribution_strategy = "multi_worker_mirrored";
        plan.worker.num_gpus = 1;
    }
    plan.worker.num_local_workers = 0; // the workers join this cluster; they never launch their own
    return plan;
}

} // namespace wb
