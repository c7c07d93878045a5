// SPDX-License-Identifier: Apache-2.0
// The pretraining lesson's comparison of its finished runs (core/formats/lessonverdict.h).
#include "core/formats/lessonverdict.h"

#include "core/advice/runfacts.h"
#include "core/io/metricsreader.h"

#include <cmath>
#include <limits>

namespace wb {

std::string pretrainingLessonSummary(const std::vector<PretrainingLessonRun> &runs)
{
    std::vector<double> fromPretraining, fromRandom;
    double ratePretrained = 0, rateRandom = 0;
    double majority = std::numeric_limits<double>::quiet_NaN();
    for (const PretrainingLessonRun &r : runs) {
        if (r.pretrain)
            continue;
        const MetricsLog log = readMetricsFile(r.options.metricsPath());
        if (log.eval.empty() || !std::isfinite(log.eval.back().eval_accuracy))
            continue;
        const bool random = r.options.init_checkpoint.empty();
        (random ? fromRandom : fromPretraining).push_back(log.eval.back().eval_accuracy);
        (random ? rateRandom : ratePretrained) = defaultLearningRate(r.options);
        if (!std::isfinite(majority))
            majority = lessonMajorityShare(r.options.eval_data_path);
    }
    return pretrainingLessonVerdict(fromPretraining, fromRandom, ratePretrained, rateRandom, majority);
}

} // namespace wb
