// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

namespace wb {

class LossPlot;
struct RunHistory;

/// Draws the part of a run's recorded history (its metrics.jsonl) up to and including
/// `upToStep` into `plot`: training steps (loss, learning rate) and evaluations. Used when
/// a run resumes in a new session, so the curves start where the last session left them.
/// Returns the number of points added. GUI thread only.
int replayHistory(LossPlot &plot, const RunHistory &history, int64_t upToStep);

} // namespace wb
