// SPDX-License-Identifier: Apache-2.0
#pragma once
// Prepare's rows and texts worth a word: the skipped rows and the warnings that name where to
// look (labels without examples, encodings, NUL bytes, byte order marks). Internal to prepare.

#include "core/prepare/preparejobs.h"

#include <string>
#include <vector>

namespace wb::prep {

/// "3 rows were …: a.csv:4, a.csv:9 (and 1 more)": the count, `what`, and the first five places.
std::string namedCount(const std::vector<std::string> &where, const std::string &what);

/// Moves the readers' warnings and skipped rows into `rep` and adds the warnings of the split
/// `d` (every one names where to look).
void addWarnings(const SourceSplits &src, const Sorted &d, ReadNotes &notes, PrepareReport &rep);

} // namespace wb::prep
