// SPDX-License-Identifier: Apache-2.0
#pragma once

// The pretraining lesson of the example (docs/tutorial.md, "Why pretraining matters"; issue
// 24): pretrain a BERT-Tiny from random weights on the training mails' text without their
// labels (never the eval mails'), then fine-tune it on 200 labelled mails, next to fine-tuning
// from random weights on the same 200, at the same rate, for several seeds.

#include "core/config/trainingoptions.h"
#include "core/prepare/dataprep.h"

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace wb {

class StopToken;

/// What the lesson is made from and how large its runs are. The defaults are the lesson of
/// the example (minutes on a laptop CPU; docs/benchmarks.md, "The pretraining lesson").
struct PretrainingLessonOptions
{
    std::string corpus_dir;          ///< a folder per label (ham/, spam/), one mail per file
    std::string vocab_file;          ///< WordPiece vocab.txt of both data sets
    bool do_lower_case = true;
    std::string bert_config_file;    ///< the model of all three runs (BERT-Tiny in the example)
    std::string output_dir;          ///< everything the lesson writes (below)
    int64_t max_seq_length = 128;
    int64_t num_labelled = 200;      ///< training rows of the fine-tuning subset
    uint64_t subset_seed = 42;       ///< which rows (and the labelled data's split, as the example's)
    int64_t seed = 42;               ///< the runs' --seed (model initialisation, order, dropout)
    /// Fine-tunes per start, with seeds seed, seed + 1, …: the spread of each start over its
    /// seeds shows how much the seed alone moves the result, so that a difference between the
    /// starts is read against it (one seed cannot tell the two apart).
    int64_t num_seeds = 3;
    int64_t pretrain_epochs = 1;     ///< epochs over the pretraining sequences
    /// Pretraining sequences per epoch, in 4 evaluation intervals (train_data_size =
    /// pretrain_sequences / 4 caps each; the records are shuffled); 0: all of them, about
    /// 118,000 for the example's mails at length 128. 6400: 200 steps of 32.
    int64_t pretrain_sequences = 6400;
    int64_t pretrain_batch_size = 32;
    double pretrain_learning_rate = 1e-3;
    int64_t finetune_epochs = 10;    ///< epochs over the subset, both fine-tunes
    int64_t finetune_batch_size = 16;
    /// The fine-tunes' peak learning rate. 0 (the default): each start's own default, by the one
    /// rule every run follows (defaultLearningRate(), core/advice/runfacts.h: 5e-4 after this
    /// program's pretraining and from random weights, so only the start differs; were the rule
    /// to differ, the verdict names both rates); a rate above 0 is used for both starts.
    double finetune_learning_rate = 0;
    int num_threads = 2;             ///< data preparation threads
};

/// The files the lesson prepared (all under options.output_dir).
struct PretrainingLessonData
{
    std::string corpus_file;         ///< <out>/corpus.jsonl: {"text": …} per training mail, in path order
    int64_t corpus_documents = 0;    ///< mails written to it (one document each)
    int64_t corpus_left_out = 0;     ///< eval mails left out of it (the fine-tunes are scored on them)
    std::string pretraining_dir;     ///< <out>/pretraining-data: prepare_pretraining's outputs
    std::string labelled_dir;        ///< <out>/labelled: prepare of corpus_dir (folders, eval 10 %)
    std::string subset_dir;          ///< <out>/labels-<N>: train.tf_record, input_meta_data.json, labels.txt
    std::string eval_data_path;      ///< <labelled>/eval.tf_record: the eval set of both fine-tunes
    std::vector<int64_t> subset_rows;     ///< the chosen record indices of labelled/train.tf_record, in subset order
    std::vector<int64_t> subset_per_label; ///< rows of each label id in the subset
};

/// One of the lesson's runs: a normal model_dir, `pretrain` (RunPurpose::Pretrain) or `train`
/// with these options.
struct PretrainingLessonRun
{
    /// "pretrain", "finetune-pretrained-seed-<N>", "finetune-random-seed-<N>" (Group seeds
    /// shows each start's seeds as one curve with its spread)
    std::string name;
    bool pretrain = false;           ///< bert-workbench-cli pretrain (else train)
    TrainingOptions options;
};

/// Writes `path` as JSON Lines, one object {"text": <mail body>} per regular, non-hidden file in
/// the label folders of `corpusDir` (prep::labelFolders and prep::labelFolderFiles, the listing
/// of prepare's folders reader) except those `leaveOut` names ("label/name", as split.jsonl
/// names a folder file; `leftOut` receives how many were left out): each mail's body (emailBody(), as the example's classifier
/// prepares it with --email_body_only) is one document of prepare_pretraining, its lines its
/// sentences. Bytes that are not UTF-8 are read as windows-1252 and NUL bytes are dropped
/// (what prepare does to a mail). Written atomically. Returns the number of mails written.
/// Throws wb::Error naming the folder or file when it cannot be read or written.
int64_t writeMailCorpusJsonl(const std::string &corpusDir, const std::string &path,
                             const std::set<std::string> &leaveOut = {}, int64_t *leftOut = nullptr);

/// Chooses `count` row indices out of rows with the label ids `labels` (ids ≥ 0): stratified,
/// each label gets round(count × its share) rows (largest remainders first for the rest) and at
/// least one when it has any, drawn without replacement by a seeded shuffle (std::mt19937_64
/// from `seed`, the same seed gives the same rows on every platform); the result is in a seeded
/// random order. Throws wb::Error("num_labelled", …) when count exceeds labels.size() or
/// is below the number of labels present. Pure.
std::vector<int64_t> selectLabelledSubset(const std::vector<int64_t> &labels, int64_t count, uint64_t seed);

/// Prepares the lesson's data in options.output_dir: the labelled data set (prepareData of
/// corpus_dir: folders, e-mail bodies only, eval_fraction 0.1, seed subset_seed — the example's
/// own preparation), corpus.jsonl of every mail its split.jsonl puts in train
/// (writeMailCorpusJsonl: the eval mails are left out, so that pretraining never reads the text
/// the comparison is scored on), the pretraining data from it (preparePretrainingData: dynamic
/// masking, the given max_seq_length, about 60 mails — at most 10 % — held out for its
/// evaluation)
/// and the subset: labels-<N>/train.tf_record with the chosen records as they are, its
/// input_meta_data.json (the labelled one with train_data_size N) and labels.txt. Steps whose
/// outputs exist are done again (the outputs are small). Synchronous; `progress` on the calling
/// thread; `stop` is polled between steps. Throws wb::Error naming the file or option.
PretrainingLessonData preparePretrainingLesson(const PretrainingLessonOptions &options,
                                               const PrepareProgress &progress = {},
                                               const StopToken *stop = nullptr);

/// The lesson's runs, in the order they must run: the pretraining, then for each of num_seeds
/// seeds (seed, seed + 1, …) the fine-tune from the pretraining model_dir and the one from
/// random weights. model_dirs <out>/runs/<name>, one_device, the options' epochs; the two
/// fine-tunes of a seed differ only in init_checkpoint (the same data, batches, schedule and
/// seed; the learning rate unset, so each start's default, unless finetune_learning_rate is
/// given). Pure.
std::vector<PretrainingLessonRun> pretrainingLessonRuns(const PretrainingLessonOptions &options,
                                                        const PretrainingLessonData &data);

/// The lesson's comparison in words: each start's mean final eval accuracy over its seeds with
/// their range, the difference of the means, and whether it is larger than the seeds' spread
/// (the larger of the two starts' ranges) — "pretraining helped", "pretraining did worse" or
/// "the difference is within what the seed alone moves" — and what the two starts had alike
/// and what differed (the learning rates `ratePretrained` and `rateRandom` when they differ).
/// `pretrained` and `random` hold one accuracy per seed (the same seeds); "" when either is
/// empty. A start whose every seed ends at most half a point above `majorityShare` (the eval
/// set's share of its most frequent label; NaN: unknown) answered the majority label: the
/// sentence says it did not learn at its rate, so that a win over it is not read as a win of
/// pretraining. Pure.
std::string pretrainingLessonVerdict(const std::vector<double> &pretrained, const std::vector<double> &random,
                                     double ratePretrained, double rateRandom,
                                     double majorityShare = std::numeric_limits<double>::quiet_NaN());

/// The share of the most frequent label in the eval set at `evalDataPath`, from the
/// prepare_report.json beside it (the lesson's labelled/ folder); NaN when it cannot be read.
/// Never throws.
double lessonMajorityShare(const std::string &evalDataPath);

} // namespace wb
