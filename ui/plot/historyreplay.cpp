// SPDX-License-Identifier: Apache-2.0
#include "ui/plot/historyreplay.h"

#include "core/events/trainingobserver.h"
#include "ui/plot/lossplot.h"
#include "ui/runs/runhistory.h"

namespace wb {

int replayHistory(LossPlot &plot, const RunHistory &h, int64_t upToStep)
{
    int added = 0;
    for (size_t i = 0; i < h.trainStep.size(); ++i) {
        if (h.trainStep[i] > double(upToStep))
            break;
        StepMetrics m;
        m.step = int64_t(h.trainStep[i]);
        m.loss = h.trainLoss[i];
        m.learning_rate = i < h.learningRate.size() ? h.learningRate[i] : 0.0;
        m.wall_time = i < h.trainWallTime.size() ? h.trainWallTime[i] : 0.0;
        plot.addStep(m);
        ++added;
    }
    for (size_t i = 0; i < h.evalStep.size(); ++i) {
        if (h.evalStep[i] > double(upToStep))
            break;
        EvalMetrics e;
        e.step = int64_t(h.evalStep[i]);
        e.eval_loss = h.evalLoss[i];
        e.eval_accuracy = i < h.evalAccuracy.size() ? h.evalAccuracy[i] : 0.0;
        e.wall_time = i < h.evalWallTime.size() ? h.evalWallTime[i] : 0.0;
        plot.addEvaluation(e);
        ++added;
    }
    return added;
}

} // namespace wb
