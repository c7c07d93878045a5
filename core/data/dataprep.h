// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace wb {

class StopToken;

/// What "Prepare data" reads and writes: create_finetuning_data.py's flag names
/// (tensorflow/models official/nlp/data/create_finetuning_data.py) plus our own output_dir,
/// eval_fraction, column names, label_list, skip_bad_rows and seed. The input formats and
/// every rule for rows, labels and texts are described in docs/file-formats.md ("Raw text
/// for Prepare data").
///
/// Input formats (`classification_task_name`):
/// - "folders": `input_data_dir` holds one sub-folder per label, each file one example.
///   Labels are the folder names sorted by byte value; hidden files and folders are ignored.
/// - "tsv" / "csv": a header row naming the columns; `text_a_column`, optional
///   `text_b_column`, `label_column`, each recognised from the header when empty (see
///   `text_a_column`). `input_data_dir` is either one file, or a folder with
///   train.tsv|csv (+ optional dev.*, test.*). CSV follows RFC 4180 (a ';'-separated export
///   is recognised from its header); TSV has no quoting (a generic tsv file is read with
///   CSV quotes only when that alone makes its rows fit). Every row must have as many fields
///   as the header.
/// - a GLUE name (COLA, SST-2, MRPC, QQP, STS-B, MNLI, QNLI, RTE, WNLI): the TSV layouts of
///   tensorflow/models' classifier_data_lib.py processors, labels as there.
/// Without a dev set, `eval_fraction` of the training examples (shuffled with `seed`) is
/// split off as the eval set. Training examples are written in shuffled order.
struct PrepareOptions
{
    std::string input_data_dir;          ///< folder (or, for tsv/csv, a single file)
    std::string vocab_file;              ///< WordPiece vocab.txt (required)
    bool do_lower_case = true;
    int64_t max_seq_length = 128;
    std::string classification_task_name = "folders"; ///< GLUE name, folders, tsv or csv
    std::string mnli_type = "matched";   ///< MNLI dev/test set: matched or mismatched
    std::string train_data_output_path;  ///< default <output_dir>/train.tf_record
    std::string eval_data_output_path;   ///< default <output_dir>/eval.tf_record
    std::string test_data_output_path;   ///< written only when set (or write_test with output_dir)
    std::string meta_data_file_path;     ///< default <output_dir>/input_meta_data.json
    std::string output_dir;              ///< directory for all outputs under default names
    bool write_test = false;             ///< with output_dir: also <output_dir>/test.tf_record
    double eval_fraction = 0.1;          ///< share split off as eval when there is no dev set
    /// tsv/csv: the header names of the text and label columns, matched exactly or else
    /// ignoring ASCII case. Empty `text_a_column` (and `text_b_column`): recognised from the
    /// header, case-insensitively: the pairs sentence1+sentence2, question+sentence,
    /// premise+hypothesis, question1+question2 (first match), else one of sentence, text or
    /// review (two present is an error). Given `text_a_column` with empty `text_b_column`:
    /// single sentences. Empty `label_column`: label, labels, class, category, target or
    /// sentiment (several is an error). A name that is missing, or nothing recognised, is an error listing the
    /// columns found and the flag to pass. Dev and test files use the train file's names.
    std::string text_a_column;
    std::string text_b_column;
    std::string label_column;
    /// Comma-separated label names that fix the label set and its id order (as the GLUE
    /// processors' get_labels()); any other label is a bad row. Empty: labels from the data.
    std::string label_list;
    /// Rows with the wrong field count, an empty or unknown label are skipped and listed in
    /// the report instead of ending the preparation with an error.
    bool skip_bad_rows = false;
    uint64_t seed = 42;                  ///< split and order shuffle
    int num_threads = 2;                 ///< tokenizer threads
    int max_input_chars_per_word = 200;  ///< WordPiece limit (google-research/bert)
};

/// A row (or folder file) that did not become an example.
struct SkippedRow
{
    std::string where;   ///< "file:line" (folders: the file)
    std::string reason;  ///< e.g. "the label is empty"
};

/// Two rows with the same text (text_a and text_b byte for byte).
struct TextPair
{
    std::string first;   ///< "file:line" of the earlier row (train)
    std::string second;  ///< "file:line" of the later row (train or eval)
};

/// What prepareData() did; also written as prepare_report.json (see prepareReportJson()).
/// A plain value, safe to copy between threads.
struct PrepareReport
{
    std::string processor_type;          ///< value written to the meta data
    /// tsv/csv: the header names read (text_b empty for single sentences); `*_recognised`
    /// when the name came from the header rather than an option. Empty for folders/GLUE.
    std::string text_a_column, text_b_column, label_column;
    bool text_columns_recognised = false, label_column_recognised = false;
    /// The tokenization the records were made with, for export and classify: the vocab as
    /// an absolute path and the SHA-256 (hex) of its bytes, casing and sequence length.
    std::string vocab_file, vocab_sha256;
    bool do_lower_case = true;
    int64_t max_seq_length = 0;
    std::vector<std::string> labels;     ///< label names in id order (also in labels.txt)
    bool regression = false;
    int64_t train_examples = 0;
    int64_t eval_examples = 0;
    int64_t test_examples = 0;
    std::map<std::string, int64_t> train_label_counts; ///< label → training examples
    std::map<std::string, int64_t> eval_label_counts;  ///< label → evaluation examples
    int64_t truncated_examples = 0;      ///< examples longer than max_seq_length tokens
    /// Tokens each example needs without truncation ([CLS]/[SEP] included), counted up to
    /// kTokenCountCap × max_seq_length per text; `max_tokens_capped` when a text hit that cap.
    double mean_tokens = 0.0;
    int64_t max_tokens = 0;
    bool max_tokens_capped = false;
    int64_t texts_with_bom = 0;          ///< UTF-8 byte order mark removed (files)
    int64_t texts_latin1 = 0;            ///< rows/files not valid UTF-8: read as Latin-1
    int64_t texts_with_nul = 0;          ///< contained NUL bytes (dropped by the tokenizer)
    int64_t empty_texts = 0;             ///< texts empty after the tokenizer's clean-up
    int64_t skipped_rows = 0;            ///< rows that did not become examples (== skipped.size())
    std::vector<SkippedRow> skipped;     ///< each skipped row with its reason
    int64_t train_duplicates = 0;        ///< training rows whose text occurred earlier in train
    int64_t conflicting_duplicates = 0;  ///< of those, rows whose label differs from the earlier row
    std::vector<TextPair> duplicate_examples; ///< up to kReportedPairs duplicates within train
    int64_t train_eval_overlap = 0;      ///< eval examples whose text also occurs in train
    std::vector<TextPair> overlap_examples;   ///< up to kReportedPairs of them
    std::vector<std::string> warnings;   ///< human-readable notes, each naming file:line where it can
    std::string train_path, eval_path, test_path, meta_path, labels_path, report_path;
    double seconds = 0.0;                ///< wall time
};

/// How many duplicate / overlap pairs the report lists by name (all are counted).
constexpr size_t kReportedPairs = 20;
/// Texts are tokenized up to this many times max_seq_length to measure their length.
constexpr int64_t kTokenCountCap = 16;

/// Progress: `fraction` in [0,1] and a short stage name ("reading", "tokenizing", "writing").
/// Called on the thread that called prepareData().
using PrepareProgress = std::function<void(double fraction, const std::string &stage)>;

/// Converts raw text into train/eval(/test) TFRecords, input_meta_data.json (json indent 4,
/// create_finetuning_data.py's keys and order), labels.txt and prepare_report.json (beside
/// the meta data).
///
/// Each example becomes [CLS] a [SEP] (b [SEP]) with longest-first truncation to
/// max_seq_length, segment ids 0/1, zero padding, label_ids (int64 index, or float for
/// STS-B), is_real_example [1] and example_id. Encoding problems (BOM, Latin-1, NUL) are
/// fixed and reported with file:line. All outputs are written atomically and only after
/// every example was converted. Synchronous; uses `num_threads` worker threads internally.
/// Throws wb::Error for bad options or input (naming the file and line, what was found and
/// the fix); when `stop` is requested it throws wb::Error("prepare", "cancelled") and
/// writes nothing.
PrepareReport prepareData(const PrepareOptions &options, const PrepareProgress &progress = {},
                          const StopToken *stop = nullptr);

/// Returns `report` as the JSON text of prepare_report.json (indent 2; keys documented in
/// docs/file-formats.md). Pure; thread-safe.
std::string prepareReportJson(const PrepareReport &report);

/// Returns the task names prepareData() accepts (GLUE names, folders, tsv, csv).
std::vector<std::string> prepareTaskNames();

} // namespace wb
