// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reading texts from a file by its columns: the one reader behind `prepare` (tsv, csv, jsonl,
// json) and `classify --input_file` (and the pretraining data), so that whatever column or
// pair layout one recognises in a file, the other recognises in the same file
// (docs/file-formats.md, "Raw text for Prepare data").

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

/// The layouts of a text input file.
enum class TextFileFormat {
    Csv,       ///< RFC 4180, header row; a ';'-separated spreadsheet export is recognised
    Tsv,       ///< tab-separated, header row, no quoting (quotes read only when that alone fits)
    JsonLines, ///< one JSON object per line (keys are the columns)
    Json,      ///< one JSON array of objects (a .json file holding JSON Lines is read as such)
    Lines,     ///< one text per line, no columns
};

/// The format a file name implies, by its extension ignoring case: .csv, .tsv, .jsonl or
/// .ndjson, .json; anything else (.txt, none) is Lines. Pure.
TextFileFormat textFileFormatFromName(const std::string &path);

/// "csv", "tsv", "jsonl", "json", "lines". Pure.
const char *textFileFormatName(TextFileFormat format);

/// What to read from a file, and how its columns are found.
struct TextInputSpec
{
    TextFileFormat format = TextFileFormat::Csv;
    /// Column (key) names of the texts and the label: matched exactly, else ignoring ASCII case.
    /// Empty: recognised from the header (or keys), ignoring case: the pairs sentence1+sentence2,
    /// question+sentence, premise+hypothesis, question1+question2, text_a+text_b (first match),
    /// else one of sentence, text, review, text_a (two present is an error); labels from label,
    /// labels, class, category, target or sentiment (several is an error when a label is needed).
    /// A given `text_a_column` with an empty `text_b_column` means single texts.
    std::string text_a_column, text_b_column, label_column;
    bool need_label = false; ///< no label column is an error (prepare's train and dev files)
    /// Multi-label (docs/multi-label.md): one 0/1 column per label, by name (matched as
    /// `label_column`), in label id order; they replace `label_column`. A name that is missing
    /// is an error listing the columns found. Each record's values: TextInputRecord::label_values.
    std::vector<std::string> label_columns;
    /// When no label column is recognised and a label is needed: take every column that is not
    /// a text column as one 0/1 column per label, provided there are at least two and every
    /// value of them in the file is 0 or 1 (JSON: also false/true); else the usual error.
    bool detect_label_columns = false;
    /// Hints name how the user picks a format: false (prepare) "--classification_task_name=tsv",
    /// true (classify) the file name's extension.
    bool format_from_name = false;
};

/// The columns a TextInput was read with.
struct TextInputColumns
{
    std::string text_a, text_b, label; ///< names as in the file; text_b / label empty: none
    bool text_recognised = false;      ///< the text columns came from the header, not the spec
    bool label_recognised = false;     ///< the label column came from the header
    /// Multi-label 0/1 columns (TextInputSpec::label_columns, or detected); empty: none.
    std::vector<std::string> label_columns;
    bool label_columns_detected = false; ///< found by TextInputSpec::detect_label_columns
};

/// One record (row, JSON object or line) of a TextInput.
struct TextInputRecord
{
    int64_t line = 0;        ///< 1-based line where the record starts
    std::string text_a, text_b;
    std::string label;       ///< as written (JSON numbers as their JSON text); untrimmed
    bool has_label = false;  ///< the label column exists in this record
    /// JSON: the label value is an array (a multi-label record, e.g. "labels": ["a", "b"]):
    /// its elements as text (strings as they are, numbers as their JSON text); `label` is empty.
    bool label_is_list = false;
    std::vector<std::string> label_list;
    /// The values of TextInputColumns::label_columns in their order, untrimmed ("0", "1", and
    /// in JSON "false"/"true"); empty without label columns.
    std::vector<std::string> label_values;
    bool blank = false;      ///< every field is empty or white space (a spacer row; no texts read)
    bool latin1 = false;     ///< not valid UTF-8: decoded as Windows-1252 (see prep::toUtf8)
    /// Non-empty for a record that cannot be read: a row with another field count than the
    /// header, a JSON line that is not an object, a record without the text key or with a
    /// value that is not text. `hint` says how to fix it (no final period).
    std::string problem, hint;
};

/// A file read by its columns.
struct TextInput
{
    std::string path;
    TextFileFormat format = TextFileFormat::Csv;
    std::vector<std::string> columns_found; ///< header names, or keys in order of first appearance
    TextInputColumns columns;
    std::vector<TextInputRecord> records;   ///< in file order, blank and bad records included
    bool had_bom = false;                   ///< a UTF-8 byte order mark was removed
    std::vector<std::string> warnings;      ///< each starts with the path (e.g. "read with ';'")
};

/// Reads `bytes` (the contents of the file `path`, which is named in messages) as `spec` says.
/// Pure; thread-safe.
/// Throws wb::Error naming "<path>:<line>" (or the path) when the file as a whole cannot be
/// read: a CSV/TSV/JSON file without any record ("the file is empty"), a quoted field that
/// is not closed, a .json file that is neither a JSON array nor JSON Lines, or columns that
/// cannot be mapped (a given name that is missing, several or no text columns, no label
/// column when one is needed): that message lists the columns found and the flag to pass.
/// Record-level problems are returned in the records (TextInputRecord::problem).
TextInput parseTextInput(std::string_view bytes, const std::string &path, const TextInputSpec &spec);

/// Reads the file `path` and parses it with parseTextInput(). Throws wb::Error naming the
/// file when it cannot be read, else as parseTextInput().
TextInput readTextInput(const std::string &path, const TextInputSpec &spec);

} // namespace wb
