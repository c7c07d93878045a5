// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace wb {

/// What "Prepare data" reads and writes: create_finetuning_data.py's flag names
/// (seed-spec §17.2) plus our own output_dir, eval_fraction, column names and seed.
///
/// Input formats (`classification_task_name`):
/// - "folders": `input_data_dir` holds one sub-folder per label, each file one example
///   (e.g. SpamAssassin ham/ spam/, IMDB pos/ neg/). Labels are the folder names sorted by
///   byte value; hidden files and folders are ignored.
/// - "tsv" / "csv": a header row naming the columns; `text_a_column`, optional
///   `text_b_column`, `label_column`. `input_data_dir` is either one file, or a folder with
///   train.tsv|csv (+ optional dev.*, test.*). CSV follows RFC 4180 quoting; TSV has none.
///   Labels are sorted (numerically when all are integers, else by byte value).
/// - a GLUE name (COLA, SST-2, MRPC, QQP, STS-B, MNLI, QNLI, RTE, WNLI): the TSV layouts of
///   seed-spec §17.3 (train.tsv, dev.tsv or dev_matched.tsv, test.tsv), labels as there.
/// Without a dev set, `eval_fraction` of the training examples (shuffled with `seed`) is
/// split off as the eval set. Training examples are written in shuffled order (the
/// reader's shuffle buffer holds only 100 records).
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
    std::string text_a_column = "text";  ///< tsv/csv
    std::string text_b_column;           ///< tsv/csv; empty: single sentences
    std::string label_column = "label";  ///< tsv/csv
    uint64_t seed = 42;                  ///< split and order shuffle
    int num_threads = 2;                 ///< tokenizer threads
    int max_input_chars_per_word = 200;  ///< WordPiece limit (google-research/bert)
};

/// What prepareData() did. A plain value.
struct PrepareReport
{
    std::string processor_type;          ///< value written to the meta data
    std::vector<std::string> labels;     ///< label names in id order (also in labels.txt)
    bool regression = false;
    int64_t train_examples = 0;
    int64_t eval_examples = 0;
    int64_t test_examples = 0;
    std::map<std::string, int64_t> train_label_counts; ///< label → training examples
    int64_t truncated_examples = 0;      ///< examples longer than max_seq_length tokens
    int64_t texts_with_bom = 0;          ///< UTF-8 byte order mark removed
    int64_t texts_latin1 = 0;            ///< not valid UTF-8: read as Latin-1
    int64_t texts_with_nul = 0;          ///< contained NUL bytes (dropped by the tokenizer)
    int64_t empty_texts = 0;             ///< examples whose text is empty
    int64_t skipped_rows = 0;            ///< malformed rows skipped (QQP only, as the reference)
    std::vector<std::string> warnings;   ///< human-readable notes
    std::string train_path, eval_path, test_path, meta_path, labels_path;
    double seconds = 0.0;                ///< wall time
};

/// Progress: `fraction` in [0,1] and a short stage name ("reading", "tokenizing", "writing").
/// Called on the thread that called prepareData().
using PrepareProgress = std::function<void(double fraction, const std::string &stage)>;

/// Converts raw text into train/eval(/test) TFRecords, input_meta_data.json (json indent 4,
/// create_finetuning_data.py's keys and order) and labels.txt.
///
/// Each example becomes [CLS] a [SEP] (b [SEP]) with longest-first truncation to
/// max_seq_length, segment ids 0/1, zero padding, label_ids (int64 index, or float for
/// STS-B), is_real_example [1] and example_id. Encoding problems (BOM, Latin-1, NUL) are
/// fixed and counted, not fatal. All outputs are written atomically and only after every
/// example was converted. Synchronous; uses `num_threads` worker threads internally.
/// Throws wb::Error for bad options or input (naming the file and line); a set `cancel`
/// flag ends the run with wb::Error("prepare", "cancelled") and writes nothing.
PrepareReport prepareData(const PrepareOptions &options, const PrepareProgress &progress = {},
                          const std::atomic<bool> *cancel = nullptr);

/// Returns the task names prepareData() accepts (GLUE names, folders, tsv, csv).
std::vector<std::string> prepareTaskNames();

} // namespace wb
