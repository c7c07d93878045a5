// SPDX-License-Identifier: Apache-2.0
#pragma once

// The corrections file (issue 46; docs/file-formats.md "corrections.jsonl", docs/data-map.md
// "Suspects and corrections"): the decisions on the suspects, one JSON object a line, that
// `prepare --corrections_file` applies to the rows it reads (in memory; the user's files are never
// touched). Also the reader of split.jsonl's rows that ties a training record to its input row.
// Torch-free; every function is pure or reads/writes only the files it names; thread-safe.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// What was decided about a suspect.
enum class CorrectionDecision
{
    Suggested, ///< listed, not decided yet: prepare ignores it
    Accepted,  ///< the suggested label is taken
    Rejected,  ///< the label as given stays: prepare ignores it
    Changed,   ///< the user's own label (corrected_label) is taken
    Removed,   ///< the row is left out of the prepared data (skipped, as cleanlab's pruning does)
};

/// The name of `d` in the file: "suggested", "accepted", "rejected", "changed", "removed".
const char *correctionDecisionName(CorrectionDecision d);

/// One line of corrections.jsonl. A plain value.
struct Correction
{
    std::string file;            ///< the input row's file as split.jsonl names it
    int64_t line = 0;            ///< its 1-based line; 0 for a whole file (a folder-per-label input)
    int64_t index = -1;          ///< the training record (train.tf_record, 0-based); -1: not recorded
    std::string label;           ///< the row's label as given
    std::string suggested_label; ///< the suspects' suggestion ("" when the line was written by hand without one)
    CorrectionDecision decision = CorrectionDecision::Suggested;
    std::string corrected_label; ///< accepted: the suggestion; changed: the user's; otherwise "" (removed too)
    std::string time;            ///< when it was decided, UTC ISO 8601 ("2026-12-05T18:20:00Z"); may be ""
    int64_t source_line = 0;     ///< the line of the file it was read from (parseCorrections); not written

    /// Whether prepare relabels the row (accepted or changed).
    bool relabels() const
    {
        return decision == CorrectionDecision::Accepted || decision == CorrectionDecision::Changed;
    }
    /// Whether prepare leaves the row out (removed).
    bool removes() const { return decision == CorrectionDecision::Removed; }
};

/// The text of corrections.jsonl: one object a line, keys in the documented order ("line" only
/// when not 0, "index" only when ≥ 0, "suggested_label" only when set, "corrected_label" only
/// for accepted and changed, "time" only when set).
std::string correctionsJsonl(const std::vector<Correction> &corrections);

/// Writes correctionsJsonl(corrections) to `path` atomically (writeFileAtomic). Throws wb::Error
/// naming the path when it cannot be written.
void writeCorrections(const std::string &path, const std::vector<Correction> &corrections);

/// Parses corrections.jsonl text; `source` names it in errors. Blank lines are skipped. Throws
/// wb::Error("<source>:<line>: <key>", what was expected, how to fix it) for a line that is not a
/// JSON object, a missing or mistyped key ("file", "label", "decision" strings; "line" an integer
/// ≥ 1; "index" an integer ≥ 0), a decision that is none of the five, an accepted line without a
/// suggestion (or whose corrected_label is not it), a changed line without corrected_label.
/// An accepted line without corrected_label takes suggested_label.
std::vector<Correction> parseCorrections(const std::string &text, const std::string &source);

/// A corrections file with a listing's lines put in (mergeCorrections).
struct MergedCorrections
{
    std::vector<Correction> lines; ///< the file's lines in their order, then the new rows' in theirs
    size_t written = 0;            ///< listed rows that took the listing's line (new, or "suggested" before)
    size_t kept_decided = 0;       ///< listed rows whose earlier decision was kept
    size_t kept_other = 0;         ///< lines of rows that were not listed
};

/// `existing` (a corrections file's lines) with `listed` put in, rows matched by file and line:
/// a row already decided there (accepted, rejected, changed, removed: by the user, the window or
/// an earlier listing) keeps its line; an undecided ("suggested") row takes the listed line in
/// place, a new row is appended. What `suspects --corrections_file` writes to a file that exists.
/// Pure.
MergedCorrections mergeCorrections(std::vector<Correction> existing, const std::vector<Correction> &listed);

/// Reads the corrections file at `path` (parseCorrections). Throws wb::Error naming the path when
/// it cannot be read.
std::vector<Correction> readCorrections(const std::string &path);

/// The current time as Correction::time writes it (UTC, seconds).
std::string correctionTimeNow();

/// One row of split.jsonl (docs/file-formats.md, "The eval split and split.jsonl").
struct SplitRow
{
    std::string file;
    int64_t line = 0;    ///< 0: absent (a whole file)
    std::string split;   ///< train, eval, test or skipped
    int64_t index = -1;  ///< position in that split's TFRecord; -1 for skipped rows
    std::string label;   ///< single-label: the label; else "" (regression, multi-label, test)
};

/// Reads split.jsonl at `path`. Throws wb::Error("<path>:<line>", …) for a line that is not such
/// a record, wb::Error(path, …) when it cannot be read.
std::vector<SplitRow> readSplitRows(const std::string &path);

} // namespace wb
