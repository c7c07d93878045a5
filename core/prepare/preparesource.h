// SPDX-License-Identifier: Apache-2.0
#pragma once
// Internal to prepareData(): the readers (folders, TSV/CSV, GLUE) and the label rules.
// Not used outside core/data.

#include "core/config/fieldproblem.h"
#include "core/prepare/dataprep.h"
#include "core/prepare/textinput.h"
#include "core/util/asciitext.h"

#include <cstdint>
#include <filesystem>

#include <string>
#include <vector>

namespace wb::prep {

/// One source row (or folder file) before tokenization.
struct RawExample
{
    std::string text_a;
    std::string text_b;
    std::string path;        ///< folders: read the text from this file
    std::string label;       ///< trimmed label string (classification)
    int64_t label_id = -1;   ///< set by assignLabels()
    float value = 0.0f;      ///< regression label
    std::string where;       ///< "file:line" (folders: the file) for messages
    std::string file;        ///< the source file (folders: the example's file)
    int64_t line = 0;        ///< 1-based line where the row starts; 0 for a folder file
    bool skip = false;       ///< a bad row dropped under skip_bad_rows
    /// --corrections_file relabelled the row: its label as given (`label` is the new one).
    std::string corrected_from;
    /// A "removed" line of --corrections_file left the row out (`skip` is set too); it keeps its
    /// place in the training order's shuffle (splitAndCount).
    bool removed = false;
    /// Multi-label: the label names read (trimmed, each once) and, set by assignLabels(), their
    /// ids in increasing order (the 1s of the multi-hot label_ids); empty: a text with no label.
    std::vector<std::string> label_names;
    std::vector<int64_t> label_ids;
};

/// What a reader found.
struct SourceSplits
{
    std::vector<RawExample> train, eval, test;
    bool hasEval = false, hasTest = false;
    std::vector<std::string> labels; ///< fixed label set (GLUE, folders); empty: from the data
    bool regression = false;
    std::string processor;           ///< processor_type for the meta data
    bool pair = false;               ///< examples have a text_b
    /// tsv/csv: the header names read as text_a / text_b / label (empty: none), and whether
    /// they were recognised from the header (no --text_a_column / --label_column given).
    std::string text_a_column, text_b_column, label_column;
    bool text_columns_recognised = false, label_column_recognised = false;
    /// Multi-label (problem_type multi_label_classification): the examples carry label_names /
    /// label_ids; `label_reading` says how they were read (for the report), e.g. "the label
    /// column 'labels' split at '|'"; `label_delimiter` is set for a delimited column;
    /// `label_columns` names the 0/1 columns of that reading.
    bool multi_label = false;
    std::string label_reading, label_delimiter;
    std::vector<std::string> label_columns;
};

/// Findings the readers collect beside the rows; merged into the PrepareReport.
struct ReadNotes
{
    std::vector<SkippedRow> skipped;
    std::vector<std::string> latin1;   ///< where: rows/files read as Latin-1
    std::vector<std::string> nul;      ///< where: texts with NUL bytes
    int64_t bom = 0;
    std::vector<std::string> warnings;
    /// Bad rows found without skip_bad_rows: thrown together by throwBadRows().
    struct BadRow
    {
        std::string where;
        FieldProblem problem; ///< the message, plain advice and the options that fix it
    };
    std::vector<BadRow> bad;
};

/// How many bad rows an error lists by name (all are counted).
constexpr size_t kListedBadRows = 20;

/// A row problem: recorded in `notes.bad` (thrown later by throwBadRows()), or, with
/// `skipBadRows`, recorded in `notes.skipped`. Returns normally; the caller drops the row.
/// `advice` says how to fix the row in plain words; skip_bad_rows (`skipPurpose`: "to skip such
/// rows") and any `otherFixes` before it are the options that fix it too (FieldProblem).
void badRow(bool skipBadRows, ReadNotes &notes, const std::string &where, const std::string &message,
            const std::string &advice, const char *skipPurpose = "to skip such rows",
            std::vector<OptionFix> otherFixes = {});

/// Throws the bad rows of `notes`: one row as FieldError(where, its problem); several as a
/// BadRowsError(first where, first message + "; N more bad rows: <where>: <message>; …" (up to
/// kListedBadRows named), every distinct plain hint, the listed rows). Returns when there are none.
void throwBadRows(const ReadNotes &notes);

/// trimmed(s): `s` without leading and trailing ASCII whitespace (core/util/asciitext.h).
using wb::trimmed;

/// Reads the whole file; throws wb::Error naming it when unreadable.
std::string readWholeFile(const std::string &path);

/// Returns `text` as valid UTF-8: text that is not valid UTF-8 is decoded as windows-1252
/// (Latin-1 with typographic quotes, dashes and € at 0x80-0x9F: what spreadsheet and
/// Notepad exports on Western Windows systems write; WHATWG Encoding Standard, which also
/// decodes the label "latin1" this way); `latin1` is set when that happened.
std::string toUtf8(std::string text, bool &latin1);

/// toUtf8 for every field of a row, in place; returns whether any field was read as Latin-1.
bool fieldsToUtf8(std::vector<std::string> &fields);

/// Folder per label (labels = sorted folder names).
void readFolders(const PrepareOptions &o, SourceSplits &s, ReadNotes &notes);

/// Whether a folder entry is hidden (its name starts with '.'): label folders and their files
/// skip these (.DS_Store, .git), for prepare's folders and the pretraining lesson's corpus alike.
bool isHiddenName(const std::filesystem::path &p);
/// The label folders of a corpus (a folder per label): its sub-folders that are not hidden,
/// sorted by name. Throws std::filesystem::filesystem_error when `dir` cannot be listed.
std::vector<std::filesystem::path> labelFolders(const std::string &dir);
/// The example files of one label folder: its regular files that are not hidden, sorted by path.
std::vector<std::string> labelFolderFiles(const std::filesystem::path &labelDir);

/// Generic "tsv" / "csv" with a header row, "jsonl" / "json" with keys (a file, or a folder
/// with train.<ext> and optional dev/eval/validation.<ext>, test.<ext>); the records are read
/// by readTextInput() (core/prepare/textinput.h), as classify reads them.
void readTable(const PrepareOptions &o, TextFileFormat format, SourceSplits &s, ReadNotes &notes);
/// readTable() for "csv" (true) or "tsv" (false), as before the JSON formats.
inline void readTable(const PrepareOptions &o, bool csv, SourceSplits &s, ReadNotes &notes)
{
    readTable(o, csv ? TextFileFormat::Csv : TextFileFormat::Tsv, s, notes);
}

/// Returns true when `name` is a GLUE task; then reads its TSV files.
bool isGlueTask(const std::string &name);
void readGlue(const PrepareOptions &o, bool wantTest, SourceSplits &s, ReadNotes &notes);

/// Parses `text` as a finite decimal number ("1", "1.0", "-2.5e1"; not hex, inf or nan).
bool parseNumber(const std::string &text, double &value);

/// Decides the label set and sets every train/eval example's label_id (docs/file-formats.md,
/// "Labels"): --label_list, or the fixed set of the reader, or the training labels (numbers
/// written differently are unified, numbers mixed with words are bad rows). Test examples
/// get id 0. Bad rows are thrown or skipped as badRow() says.
void assignLabels(const PrepareOptions &o, SourceSplits &s, ReadNotes &notes);

} // namespace wb::prep
