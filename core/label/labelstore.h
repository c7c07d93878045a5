// SPDX-License-Identifier: Apache-2.0
#pragma once

// The labels file of "Label to learn" (issue 47; docs/label-to-learn.md, docs/file-formats.md
// "The labels file"): the labels a user gives to pool texts, saved as they are made, in a CSV that
// `bert-workbench-cli prepare --classification_task_name=csv` reads as it is (columns `text` and
// `label` are the ones prepare recognises; the other columns are ignored by it):
//
//     text,label,file,line,suggested_label,time
//     "Win a prize, now!",spam,mails.txt,12,spam,2026-12-06T00:10:03.250Z
//
// - `file`, `line`: the pool text's source, as split.jsonl names rows (`file` relative to the
//   imported folder, or the file's name; `line` 1-based, empty for a whole file); both empty for
//   a text without a source. Together they are the text's stable id: one label per id.
// - `suggested_label`: the model's suggestion when the user labelled the text; empty: none.
// - `time`: when the label was given, UTC ISO 8601 with milliseconds, ending in 'Z'. It is the
//   last column on purpose: a line cut anywhere before its line end fails the time's format (or
//   the field count, or ends inside a quote), so a cut line is never read as a label.
//
// Durability. A new label is appended as one complete line with one write(2) to the file opened
// O_APPEND, then fsync(2) (and, when the file was just created, the folder's fsync). Appending was
// chosen over write-to-temp + rename per label because a label costs one short write and one fsync
// whatever the file's size (a rewrite costs the whole file per keystroke: megabytes for a few
// thousand e-mails), and because the worst a crash, kill -9 or power loss can leave is the last
// line cut short (nothing earlier is ever rewritten). The reader recognises such a cut: a last
// record without its line end that is not a whole, valid record (or that ends inside an open
// quote) is dropped and reported (`cut_tail`), and LabelStore::open() truncates it away, so the
// file is again one prepare reads. A whole last record without its line end (a file saved by an
// editor) is kept, and open() adds the line end. Anything else malformed is an error naming the
// file and line.
//
// Undo and relabel rewrite the file atomically (LabelStore::rewrite: a temporary file in the same
// folder, fsync, rename over the file, fsync of the folder): after a crash the file holds the
// labels before or after the undo, never a mix. So the file always lists exactly the labels in
// force, which is what prepare must read (an "undone" marker line would be read by prepare as a
// labelled text).
//
// Torch-free, no Qt. Thread rules: the free functions are pure or touch only the files they name;
// a LabelStore belongs to one thread at a time.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

/// One label given to a pool text: one row of the labels file. A plain value.
struct PoolLabel
{
    std::string text;            ///< the pool text, whole (UTF-8, not empty, no NUL byte)
    /// The label's name: not empty, no surrounding white space, no line break, NUL, '|', ',' or ';'
    /// (prepare trims labels, and reads '|', ',' or ';' as separating several labels when the pieces
    /// recur, e.g. "a,b" beside "a").
    std::string label;
    std::string file;            ///< the text's source file as split.jsonl names it (no line break or NUL); "" for none
    int64_t line = 0;            ///< its 1-based line; 0: the whole file (or no source)
    std::string time;            ///< UTC ISO 8601 ("2026-12-06T00:10:03.250Z"; fraction optional)
    std::string suggested_label; ///< the model's suggestion when it was labelled; "" for none
    int64_t source_line = 0;     ///< the file line its record starts on (set by the reader; not written)
};

/// The header row of the labels file, with its line end: "text,label,file,line,suggested_label,time\n".
const char *labelsCsvHeader();

/// One record of the labels file, with its line end ("\n"). Fields are quoted (RFC 4180) when they
/// hold ',', '"', a line break or surrounding white space; '"' is doubled. Throws wb::Error naming
/// the text's id when `label` breaks PoolLabel's rules (the message says which), so that nothing
/// prepare would read differently is written.
std::string labelCsvRecord(const PoolLabel &label);

/// The whole file: the header and one record a label.
std::string labelsCsv(const std::vector<PoolLabel> &labels);

/// What parseLabelsCsv() read.
struct LabelsRead
{
    std::vector<PoolLabel> labels; ///< in file order
    /// Bytes of the file that hold the header and the complete records (the length to keep).
    uint64_t complete_bytes = 0;
    /// Non-empty when the last record was cut off mid-write (a crash while it was appended): what
    /// was dropped, as a sentence naming the file and line, for a warning.
    std::string cut_tail;
    /// The last record is whole but has no line end (a file saved by an editor); it is in `labels`
    /// and counted in `complete_bytes`.
    bool missing_line_end = false;
};

/// Parses the labels file's bytes; `path` names it in messages. An empty input (or one whose only
/// line, the header, was cut) has no labels. A last record without its line end that does not read
/// as a whole valid record, or that ends inside a quoted field, is dropped and described in
/// `cut_tail`. Pure; thread-safe.
/// Throws wb::Error("<path>:<line>", what was expected, how to fix it) for: a header other than
/// labelsCsvHeader()'s, a quote closed and followed by other text, a complete record with another
/// field count than six, an empty text or label, a label with surrounding white space, '|', ',' or ';', a
/// NUL byte or a line break where PoolLabel allows none, text that is not UTF-8, a
/// `line` that is not an integer >= 1 (or is given without a file), a `time` that is not
/// UTC ISO 8601 ("YYYY-MM-DDTHH:MM:SS[.fff]Z"), and a second label for the same file and line.
LabelsRead parseLabelsCsv(std::string_view bytes, const std::string &path);

/// Reads the labels file (parseLabelsCsv); changes nothing. A file that does not exist has no
/// labels. Throws wb::Error naming the path when it cannot be read, else as parseLabelsCsv().
LabelsRead readLabelsCsv(const std::string &path);

/// The current time as PoolLabel::time writes it (UTC, milliseconds).
std::string labelTimeNow();

/// The labels file of one labelling session: the labels in force, kept in memory and on disk.
/// Every call that changes it returns only after the change is on disk (fsync). Move-only.
class LabelStore
{
public:
    /// Opens (or, on the first append, creates) the labels file at `path`: reads it, and when
    /// its last record was cut off (a crash), truncates the file to its complete records and
    /// fsyncs it; cutTail() then says what was dropped. A whole last record without its line end
    /// gets one. Throws as readLabelsCsv(), or wb::Error
    /// naming the path when the cut tail cannot be removed.
    static LabelStore open(const std::string &path);

    const std::string &path() const { return m_path; }
    /// The labels in force, in the order they were given.
    const std::vector<PoolLabel> &labels() const { return m_labels; }
    /// What open() dropped (LabelsRead::cut_tail); "" when the file was whole.
    const std::string &cutTail() const { return m_cutTail; }
    /// The index in labels() of the label of `file`:`line`; -1 when it has none (or `file` is "").
    int64_t find(const std::string &file, int64_t line) const;

    /// Appends `label` (its `time` set to labelTimeNow() when empty) as one line and fsyncs it
    /// (the first label creates the file, its header and any missing folders).
    /// Throws wb::Error (nothing changed, in memory or on disk) when the label breaks PoolLabel's
    /// rules, when its file and line already have a label (use relabel()), when the file's size is
    /// no longer what this store wrote (another program changed it: open it again), or when it
    /// cannot be written (a partial line is truncated away again).
    void append(PoolLabel label);

    /// Removes the last label given (atomic rewrite) and returns it. Throws wb::Error when there
    /// is none, or as rewrite().
    PoolLabel undoLast();

    /// Gives the label at `index` the name `label` (its time now, suggested_label kept) by an atomic
    /// rewrite; its place in the order stays. Throws wb::Error for an index out of range or a bad
    /// name, or as rewrite().
    void relabel(int64_t index, const std::string &label);

    /// Replaces the file by `labels` atomically (temporary file, fsync, rename, fsync of the
    /// folder). Throws wb::Error naming the path (nothing changed) when it cannot be written or a
    /// label breaks the rules (as labelsCsv()).
    void rewrite(std::vector<PoolLabel> labels);

private:
    LabelStore() = default;
    void checkSize() const;

    std::string m_path;
    std::vector<PoolLabel> m_labels;
    std::string m_cutTail;
    uint64_t m_size = 0; ///< the file's size as this store left it
};

} // namespace wb
