// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"

#include <string>
#include <vector>

namespace wb {

/// The lines of one metrics.jsonl, decoded with the formats of core/io/runeventjson.h.
struct MetricsLog
{
    std::vector<StepMetrics> train; ///< the "kind":"train" lines, in file order
    std::vector<EvalMetrics> eval;  ///< the "kind":"eval" lines, in file order
    std::vector<CoachNote> notes;   ///< the "kind":"note" lines (the coach), in file order
};

/// Reads a metrics.jsonl written by MetricsWriter (core/io/metricswriter.h) — the writer's
/// twin. Empty lines and lines of another "kind" are skipped; a missing key keeps the
/// struct's default, null reads as NaN. A line that is not a JSON object sets `*error` to
/// "<path>: line N: not a JSON object" and stops reading (what came before is returned),
/// except on the last line: a partly written last line (a run still in progress, or killed
/// mid-write) is ignored. A file that cannot be opened sets `*error` to
/// "<path>: cannot open: <reason>". Never throws; any thread.
MetricsLog readMetricsFile(const std::string &path, std::string *error = nullptr);

} // namespace wb
