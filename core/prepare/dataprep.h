// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/prepare/preparereport.h"

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
    /// Fit the bag-of-words baseline (core/prepare/bagofwords.h: TF-IDF of the wordpieces in the
    /// records + liblinear logistic regression, C chosen by cross-validation on the train
    /// split) on the train split, score it on the
    /// eval split and record it in prepare_report.json (bag_of_words_baseline).
    bool bag_of_words_baseline = true;
    /// E-mail data (e.g. a folder of mails): keep only each text's body (emailBody(),
    /// core/prepare/emailbody.h): the RFC 5322 header block is dropped, MIME text parts are
    /// decoded. Applies to text_a and text_b of every format; a text that does not start with
    /// a header block is kept as it is. Recorded in prepare_report.json.
    bool email_body_only = false;
    /// Also drop quoted replies ('>' lines and "On … wrote:"; stripQuotedReplies()), with or
    /// without email_body_only.
    bool strip_quoted_replies = false;
    /// Classification without a dev set: split off the eval set per label, so that each label
    /// keeps its share (each label with at least two examples gets at least one eval example
    /// when the eval set has room for every label). false: one random cut of the shuffled rows.
    bool stratify_split = true;
    /// A split.jsonl written by an earlier prepare (docs/file-formats.md, "split.jsonl"): its
    /// train/eval sides are used instead of a new random split. Every train/eval row of the
    /// input must be listed (by file and line); rows it lists that are not in the input are
    /// an error, as is a source with a dev set.
    std::string split_file;
    /// A corrections.jsonl (docs/file-formats.md, "corrections.jsonl"; issue 46): its accepted
    /// and changed lines relabel the matching train/eval rows (matched by file and line as
    /// split_file matches them), in memory only; the input files are never changed. A line whose
    /// row is not in the input, whose label is not the row's, or whose new label is not a label
    /// of the data is an error naming the line. Single-label classification only. Combine with
    /// split_file (the split.jsonl of the prepare before) to keep the same eval set.
    std::string corrections_file;
    /// Single- or multi-label classification (docs/multi-label.md, "Data"): "" decides from
    /// the data (multi-label when the label column holds `label_delimiter` or JSON lists, when
    /// `label_columns` is given or the columns other than the text are all 0/1, or when a
    /// folder-per-label input has the same file name in several label folders; the report says
    /// which reading was chosen); "single_label_classification" or "multi_label_classification"
    /// force it (transformers' PretrainedConfig.problem_type names).
    std::string problem_type;
    /// Multi-label: what separates the labels of one text in the label column ("billing|urgent").
    /// A column that never holds it while another likely separator (',' ';') recurs, or that
    /// mixes separators, is an error naming the separator to pass.
    std::string label_delimiter = "|";
    /// Multi-label: comma-separated names of one 0/1 column per label (their order is the label
    /// id order); empty: detected when every column other than the text is 0/1.
    std::string label_columns;
    /// Multi-label: more distinct labels than this is an error (a text column read as labels?).
    int64_t max_labels = 1000;
    /// Multi-label: allow a label that every train/eval text carries (it teaches nothing; an
    /// error otherwise).
    bool allow_constant_labels = false;
};

/// Progress: `fraction` in [0,1] and a short stage name ("reading", "tokenizing", "baseline",
/// "writing").
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

/// Returns the task names prepareData() accepts (GLUE names, folders, tsv, csv).
std::vector<std::string> prepareTaskNames();

} // namespace wb
