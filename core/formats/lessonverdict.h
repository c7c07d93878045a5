// SPDX-License-Identifier: Apache-2.0
#pragma once

// The pretraining lesson's comparison of its finished runs, for the CLI's `example
// --lesson=pretraining` and the window's lesson alike (docs/tutorial.md, "7. Why pretraining
// matters"). Torch-free.

#include "core/corpus/pretraininglesson.h"

#include <string>
#include <vector>

namespace wb {

/// The sentence of pretrainingLessonVerdict() for the lesson's `runs` as they ended: each
/// fine-tune's last eval_accuracy (its metrics.jsonl), the rate each start ran at (the run's
/// learning_rate, else defaultLearningRate() of its options) and the eval set's majority share
/// (lessonMajorityShare of their eval set). Runs without an evaluation are left out;
/// "" when a start has none. Reads files; never throws; any thread.
std::string pretrainingLessonSummary(const std::vector<PretrainingLessonRun> &runs);

} // namespace wb
