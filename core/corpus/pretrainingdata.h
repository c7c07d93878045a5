// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/corpus/pretrainingtext.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace wb {

class StopToken;

/// What `bert-workbench-cli prepare_pretraining` reads and writes: google-research/bert
/// create_pretraining_data.py's flag names and defaults, plus next_sentence, masking,
/// eval_fraction, the input format options and the output sharding (docs/pretraining.md).
struct PretrainingDataOptions
{
    std::vector<std::string> input_files;   ///< text files, folders of .txt, .csv/.tsv/.jsonl (in this order)
    std::string input_format = "auto";      ///< auto, text, csv, tsv or jsonl (PretrainingTextReader)
    std::string text_column;                ///< csv/tsv/jsonl: empty = recognised (sentence, text, review)
    /// The texts are e-mail messages: keep each one's body, as prepare --email_body_only does
    /// (PretrainingTextReader: each plain file one mail, a folder's files whatever their name).
    bool email_body_only = false;
    std::string vocab_file;                 ///< WordPiece vocab.txt; must hold [CLS], [SEP], [MASK], [UNK]
    bool do_lower_case = true;
    int64_t max_seq_length = 128;           ///< L, tokens per sequence with [CLS]/[SEP]
    int64_t max_predictions_per_seq = 20;   ///< P
    double masked_lm_prob = 0.15;
    double short_seq_prob = 0.1;            ///< share of sequences with a random shorter target length
    /// Sequences made from each document (each with new random choices and, for static
    /// masking, new masks). 0: google-research's 10 for static masking, 1 for dynamic.
    int64_t dupe_factor = 0;
    uint64_t random_seed = 12345;
    bool do_whole_word_mask = false;
    /// google-research's sentence pairs A/B with next_sentence_labels (is_random_next, 50 %).
    /// Off (the default, as RoBERTa and Hugging Face's run_mlm.py): contiguous sentences are
    /// packed up to max_seq_length, across document ends ([SEP] between documents), one segment.
    bool next_sentence = false;
    std::string masking = "dynamic";        ///< "static" (masked_lm_* in the records) or "dynamic"
    double eval_fraction = 0.05;            ///< share of the document pieces held out for eval
    std::string output_dir;
    int64_t num_output_shards = 1;          ///< train.tf_record, or train.tf_record-0000i-of-0000N
    int num_threads = 2;                    ///< tokenizer threads
    int max_input_chars_per_word = 200;     ///< WordPiece limit (google-research/bert)
};

/// What preparePretrainingData() did; also prepare_report.json (pretrainingReportJson()).
struct PretrainingDataReport
{
    std::string input_format, text_column;  ///< "text"/"csv"/"tsv"/"jsonl"/"mail"; csv/tsv/jsonl: the column read
    bool email_body_only = false;           ///< the texts were reduced to e-mail bodies (options)
    bool text_column_recognised = false;
    int64_t input_files = 0;
    uint64_t input_bytes = 0;
    int64_t documents = 0;                  ///< documents read (non-empty)
    int64_t empty_rows = 0;                 ///< csv/tsv/jsonl rows (email_body_only: mails) with no text (not documents)
    int64_t sentences = 0;                  ///< non-empty lines with at least one token
    int64_t tokens = 0;                     ///< WordPiece tokens of the corpus (once, before dupe_factor)
    int64_t unk_tokens = 0;                 ///< of those, [UNK]
    double unk_rate = 0.0;                  ///< unk_tokens / tokens
    int64_t train_documents = 0, eval_documents = 0; ///< document pieces per split (see long_documents_cut)
    int64_t documents_longer_than_a_sequence = 0;    ///< more tokens than fit one sequence: spread over several
    int64_t long_documents_cut = 0;         ///< cut into pieces of at most 64 sequences' tokens for the split
    int64_t sentences_split = 0;            ///< lines longer than a sequence, cut into sequence-sized parts
    /// Lines longer than 1 MiB (PretrainingTextReader::kMaxSentenceBytes) read in parts: the lines,
    /// the cuts, and of those the cuts inside a word (a run of more than 1 MiB without whitespace,
    /// cut at a character boundary); every other cut is between two tokens, so no token changes.
    int64_t long_lines_split = 0, long_line_cuts = 0, long_line_cuts_inside_a_word = 0;
    std::vector<PretrainingLineSplit> long_line_splits; ///< the first 20 of those lines: where, and where cut
    /// Documents whose tokens equal an earlier document's (by a 64-bit hash): in the same split
    /// (`duplicate_documents`), or one in train and one in eval (`train_eval_overlap_documents`,
    /// counted once for the later one). The hash table has a fixed size: beyond about 1.5 M
    /// distinct documents later ones are not checked (`duplicate_check_saturated`).
    int64_t duplicate_documents = 0, train_eval_overlap_documents = 0;
    bool duplicate_check_saturated = false;
    int64_t train_sequences = 0, eval_sequences = 0;  ///< records written
    int64_t sequence_tokens = 0;            ///< real tokens in the records, [CLS]/[SEP] included
    int64_t random_next_sequences = 0;      ///< next_sentence: records with next_sentence_labels 1
    /// static: masked positions written; dynamic: the positions one epoch of the trainer masks
    /// (mlmNumToPredict per record; an upper bound with whole-word masking).
    int64_t masked_positions = 0;
    std::string masking;                    ///< "static" or "dynamic"
    int64_t dupe_factor = 1;                ///< as used (train; eval sequences are made once)
    int64_t max_seq_length = 0, max_predictions_per_seq = 0;
    double masked_lm_prob = 0.0, short_seq_prob = 0.0, eval_fraction = 0.0;
    bool whole_word_masking = false, next_sentence = false;
    uint64_t random_seed = 0;
    std::string vocab_file, vocab_sha256;
    int64_t vocab_size = 0;
    bool do_lower_case = true;
    std::vector<std::string> train_files;   ///< the train shards
    std::string eval_file;                  ///< empty when eval_fraction is 0
    std::string meta_path, report_path;
    std::vector<std::string> warnings;
    double seconds = 0.0;
};

/// Progress: fraction in [0, 1] and a stage ("reading", "shuffling", "done"); on the calling thread.
using PretrainingProgress = std::function<void(double fraction, const std::string &stage)>;

/// Train sequences below this many get a warning: fewer than one batch of train's default
/// train_batch_size.
constexpr int64_t kPretrainingTinyCorpusSequences = 32;

/// The largest max_predictions_per_seq accepted for `maxSeqLength` and `maskedLmProb`:
/// ceil(L × masked_lm_prob) rounded up to a multiple of 4 (google-research's own settings,
/// 20 for 128 and 80 for 512, are this value). At most round((L − 2) × prob) slots are ever filled.
int64_t maxUsefulPredictionsPerSeq(int64_t maxSeqLength, double maskedLmProb);

/// The default of max_predictions_per_seq for a sequence length: create_pretraining_data.py's 20
/// fits 128 tokens, a shorter sequence gets what it can fill (maxUsefulPredictionsPerSeq). Lowers
/// o.max_predictions_per_seq to that; values the option check refuses (max_seq_length < 1,
/// masked_lm_prob outside (0, 1]) are left for it. For a value the user did not give. Pure.
void fitMaxPredictionsToSequence(PretrainingDataOptions &o);

/// Converts a text corpus into pretraining TFRecords as google-research/bert
/// create_pretraining_data.py does, streaming (docs/pretraining.md, "Data"):
/// 1. documents are read one at a time (PretrainingTextReader) and tokenized in batches of a
///    few MB on `num_threads` threads; a document is cut into pieces of at most 64 × L tokens;
/// 2. each piece goes to eval when a hash of (its index, random_seed) falls below
///    eval_fraction (the first piece always to train), so the split needs no pass over the corpus;
/// 3. pieces become sequences (packed, or google-research's A/B pairs with next_sentence,
///    the random B drawn from a uniform reservoir sample of earlier pieces of the same split, 8 M tokens at most),
///    dupe_factor times for train; static masking masks them (applyMlmMasking);
/// 4. train records go to bucket files on disk (a random bucket each), then every bucket is
///    shuffled in memory (at most 64 MB at a time) and dealt round-robin to the shards; eval
///    records are written in order.
/// Memory stays bounded by the batch, the reservoir and one bucket, whatever the input size.
/// Outputs in `output_dir`: the train shards, eval.tf_record (eval_fraction > 0),
/// input_meta_data.json (task_type bert_pretraining) and prepare_report.json, every one
/// written to a temporary name and renamed when all are complete; temporary files are removed
/// on failure, and earlier outputs of another shard count are removed after success.
/// Throws wb::Error for bad options or input (naming the flag, or the file and byte offset
/// or line), unwritable outputs or a full disk; when `stop` is requested it throws
/// wb::Error("prepare_pretraining", "cancelled"). Synchronous.
PretrainingDataReport preparePretrainingData(const PretrainingDataOptions &options,
                                             const PretrainingProgress &progress = {},
                                             const StopToken *stop = nullptr);

/// Returns `report` as prepare_report.json text (indent 2). Pure.
std::string pretrainingReportJson(const PretrainingDataReport &report);

/// The warnings of a finished preparation `rep` made with `o` (report.warnings): fewer training
/// sequences than one batch, an empty eval set, more than 5 % [UNK], repeated documents,
/// eval documents also in training, empty rows. Pure.
std::vector<std::string> pretrainingDataWarnings(const PretrainingDataOptions &o, const PretrainingDataReport &rep);

/// Returns input_meta_data.json of a pretraining data set (the keys of the pretraining
/// contract, in order, indent 4). Pure.
std::string pretrainingMetaJson(const PretrainingDataReport &report);

} // namespace wb
