// SPDX-License-Identifier: Apache-2.0
#pragma once
// prepare --corrections_file (issue 46): the accepted and changed lines of a corrections.jsonl
// (core/prepare/corrections.h) relabel the rows read, in memory. Internal to prepare.

#include "core/prepare/preparejobs.h"
#include "core/prepare/preparesource.h"

namespace wb::prep {

/// Applies o.corrections_file (nothing when it is empty) to the train/eval rows of `src`, after
/// assignLabels(): each accepted or changed line sets its row's label and label_id to the
/// corrected label and keeps the label as given in RawExample::corrected_from; each removed line
/// skips its row (RawExample::skip, and a SkippedRow in `notes` whose reason names the line, so
/// split.jsonl lists it as skipped); rows are matched by splitKey(file, line) as --split_file
/// matches them. Records the file, the relabelled and removed rows (in the file's order) and the
/// lines that change nothing in `rep`, with a warning when --split_file puts removed rows in the
/// eval set. Throws wb::Error naming
/// "<corrections_file>:<line>" (the first problem; the message counts and names the others) for
/// a row that is not among the input's train/eval rows, a label that is not the row's label as
/// given, a corrected label that is not a label of the data, or two lines for one row; and
/// wb::Error("corrections_file", …) for regression or multi-label data.
void applyCorrections(const PrepareOptions &o, SourceSplits &src, ReadNotes &notes, PrepareReport &rep);

/// After the split: a warning in `rep` naming the relabelled rows that are in the eval set (their
/// new labels are scored, so a run before the corrections and one after are not evaluated on the
/// same labels).
void warnCorrectedEvalRows(const Sorted &d, PrepareReport &rep);

} // namespace wb::prep
