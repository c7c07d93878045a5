// SPDX-License-Identifier: Apache-2.0
#pragma once

// prepare_report.json, beside input_meta_data.json: what prepareData() (core/prepare/dataprep.h)
// did, its writer and its one reader (keys in docs/file-formats.md).

#include "core/prepare/bagofwords.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// A row (or folder file) that did not become an example.
struct SkippedRow
{
    std::string where;   ///< "file:line" (folders: the file)
    std::string reason;  ///< e.g. "the label is empty"
    /// A "removed" line of --corrections_file left it out (listed with the corrections, not
    /// warned about); not in the JSON (its reason says so there: "removed by <file>:<line>").
    bool removed_by_correction = false;
};

/// Two rows with the same text as the tokenizer reads it (text_a and text_b after
/// BasicTokenizer's normalisation: white space, punctuation spacing, and when uncased case,
/// accents and Unicode normal form).
struct TextPair
{
    std::string first;   ///< "file:line" of the earlier row (train)
    std::string second;  ///< "file:line" of the later row (train or eval)
};

/// A label whose name (or a markup tag) is written in most of its texts and rarely in the
/// others, within the first max_seq_length tokens: the model can read the answer instead of
/// learning it (e.g. Reuters XML, where every text starts with <TOPICS><D>acq</D></TOPICS>).
struct LabelInText
{
    std::string label;                 ///< the label
    std::string token;                 ///< what was found: the label's name, or a tag as "<d>"
    bool markup = false;               ///< `token` is a markup tag, not the label's name
    int64_t label_texts = 0;           ///< train+eval texts of the label
    int64_t label_texts_with = 0;      ///< of them, texts holding `token`
    int64_t other_texts = 0;           ///< texts of the other labels
    int64_t other_texts_with = 0;      ///< of them, texts holding `token`
    std::vector<std::string> examples; ///< up to 3 "file:line" of the label's texts that hold it
};

/// A row whose label --corrections_file changed, or that it removed (docs/file-formats.md,
/// "corrections.jsonl").
struct CorrectedRow
{
    std::string where;           ///< "file:line" as split.jsonl names the row (a folder file: the file)
    std::string label;           ///< the label as given in the input
    std::string corrected_label; ///< the label prepare used; "" for a removed row
    std::string decision;        ///< "accepted" or "changed"; "removed" in PrepareReport::removed_rows
    int64_t correction_line = 0; ///< the line of the corrections file
};

/// Two labels on the same texts (multi-label), counted over train and eval.
struct LabelPairCount
{
    std::string first, second; ///< label names, `first` before `second` in label id order
    int64_t texts = 0;         ///< train+eval texts that carry both
};

/// What prepare found in multi-label data (problem_type multi_label_classification;
/// docs/multi-label.md, "The report"). Counts are of the train+eval texts written.
struct MultiLabelReport
{
    /// How the labels were read, in words, e.g. "the label column 'labels' split at '|' (…)".
    std::string reading;
    std::string delimiter;               ///< a delimited label column's separator, else ""
    double label_cardinality = 0.0;      ///< mean labels per text (train+eval)
    double train_label_cardinality = 0.0, eval_label_cardinality = 0.0;
    int64_t distinct_label_sets = 0;     ///< different label combinations (train+eval)
    int64_t no_label_texts = 0;          ///< texts with no label (all-zero label_ids), train+eval
    int64_t train_no_label_texts = 0, eval_no_label_texts = 0;
    /// The most frequent pairs (up to kReportedPairs), most texts first, ties in label id order.
    std::vector<LabelPairCount> cooccurrence;
    std::vector<std::string> never_present;  ///< labels of the set on no train/eval text
    std::vector<std::string> always_present; ///< labels on every text (allow_constant_labels)
    /// Labels with 2+ texts but none in eval after the split (the split could not keep them).
    std::vector<std::string> missing_in_eval;
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
    /// "single_label_classification" or "multi_label_classification" (classification; as in
    /// input_meta_data.json), "" for regression. Multi-label: train/eval_label_counts count the
    /// texts carrying each label, and `multi_label` holds the rest.
    std::string problem_type;
    std::optional<MultiLabelReport> multi_label;
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
    std::vector<LabelInText> label_in_text; ///< labels given away by their texts (see LabelInText)
    bool email_body_only = false;        ///< the texts were reduced to e-mail bodies (PrepareOptions)
    bool strip_quoted_replies = false;   ///< quoted replies were removed
    /// How the eval set was made: "dev" (the input's dev file), "stratified", "random",
    /// "iterative_stratification" (multi-label: Sechidis, Tsoumakas & Vlahavas 2011),
    /// "split_file" (--split_file) or "none" (no eval set).
    std::string split_method;
    std::string split_path;              ///< split.jsonl beside the meta data (not in the JSON)
    /// --corrections_file (as given; "" when none) and what it did: the rows relabelled, in the
    /// order of the file, and its lines that relabel nothing (decision suggested or rejected).
    std::string corrections_file;
    std::vector<CorrectedRow> corrected_rows;
    std::vector<CorrectedRow> removed_rows; ///< the rows its "removed" lines left out, in the file's order
    int64_t corrections_not_applied = 0;
    /// The TF-IDF + logistic-regression baseline on the same train/eval split (bagofwords.h);
    /// unset when prepare was asked not to fit it (or a report of an older version).
    /// Not fitted (`error` set) for regression, one label, or no eval set.
    std::optional<BagOfWordsBaseline> bag_of_words;
    std::string train_path, eval_path, test_path, meta_path, labels_path, report_path;
    double seconds = 0.0;                ///< wall time
};

/// How many duplicate / overlap pairs the report lists by name (all are counted).
constexpr size_t kReportedPairs = 20;
/// Texts are tokenized up to this many times max_seq_length to measure their length.
constexpr int64_t kTokenCountCap = 16;

/// Returns `report` as the JSON text of prepare_report.json (indent 2; keys documented in
/// docs/file-formats.md). Pure; thread-safe.
std::string prepareReportJson(const PrepareReport &report);

/// Returns the path of prepare_report.json beside `metaDataPath` (input_meta_data.json).
std::string prepareReportPath(const std::string &metaDataPath);

/// Reads prepare_report.json's text (`source` names it in errors) — prepareReportJson's
/// twin: every key it writes comes back as written (invalid UTF-8, which the writer replaces
/// by U+FFFD, aside; mean_tokens null reads as NaN); report_path is `source`, the other
/// paths and seconds (not in the file) stay empty. A key that is absent keeps its default
/// (reports of older versions have fewer keys). Throws wb::Error("<source>: <key>", …) when
/// the text is not a JSON object or a key has another type (a label count that is not a
/// whole number ≥ 0 included). Pure; thread-safe.
PrepareReport parsePrepareReport(const std::string &text, const std::string &source);

/// Reads the prepare_report.json beside `metaDataPath`; nothing when `metaDataPath` is empty
/// or there is no report. Throws wb::Error as parsePrepareReport, or when it cannot be read.
std::optional<PrepareReport> readPrepareReport(const std::string &metaDataPath);

/// Records `baseline` as bag_of_words_baseline in the prepare_report.json beside
/// `metaDataPath` (read with readPrepareReport, written back atomically with every other key
/// as it was). Returns the report's path, or empty when there is no report (nothing is
/// written then). Throws wb::Error naming the file when it cannot be read or written.
std::string recordBagOfWordsBaseline(const std::string &metaDataPath, const BagOfWordsBaseline &baseline);

/// The eval examples of each label id: eval_label_counts in the order of `labels` (the label
/// id order of prepare; a label without a count has 0). Empty for regression or a report
/// without labels. Pure.
std::vector<int64_t> evalCountsByLabelId(const PrepareReport &report);

/// What `prepare` recorded about its tokenizer, for the defaults of export, classify and Try it.
struct PreparedTokenizer
{
    std::string vocab_file;             ///< absolute or as given to prepare; empty when not recorded
    std::string vocab_sha256;           ///< SHA-256 (hex) of its bytes at prepare time; empty when not recorded
    std::optional<bool> do_lower_case;  ///< unset when not recorded
    std::optional<int64_t> max_seq_length;
};

/// The tokenizer keys (vocab_file, vocab_sha256, do_lower_case, max_seq_length) of the prepare_report.json
/// beside `metaDataPath` (readPrepareReport); unset when the report or a key is absent.
/// Throws wb::Error naming the file and key when the report exists but cannot be read.
/// Torch-free; thread-safe.
PreparedTokenizer readPreparedTokenizer(const std::string &metaDataPath);

} // namespace wb
