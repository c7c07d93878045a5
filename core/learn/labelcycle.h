// SPDX-License-Identifier: Apache-2.0
#pragma once

// One cycle of "Label to learn" (issue 47; docs/label-to-learn.md, "One cycle"): the labels so
// far become a model, and the model rescores the pool. A cycle is ordinary product work, in a
// folder of its own:
//
//   <cycle_dir>/data/train.csv             the train labels (the labels file's columns text,label)
//   <cycle_dir>/prepared/                  `prepare` of them (classification_task_name csv, the
//                                          session's label names as label_list, vocab, casing,
//                                          max_seq_length), with the train texts as its dev set too
//   <cycle_dir>/run/                       a `train` run (one_device, the session's start: random
//                                          weights or init_checkpoint); its evaluations are on its
//                                          own train labels (a few hundred texts at most: cheap)
//
// then every pool text and every eval text is classified by the run's final model (TextClassifier,
// the features `prepare` builds, so the probabilities are `classify`'s): the eval accuracy, and for
// the pool the class probabilities and the pooled [CLS] vector (the embedding the queue's k-centre
// step measures distances in). The eval texts are measured once, by the final model, rather than
// by the run after every epoch: with a few labels a cycle takes tens of epochs, and evaluating 600
// texts after each cost more than all the training (measured: docs/label-to-learn.md). The
// bag-of-words baseline (core/prepare/bagofwords.h, prepare's) is fitted on the same train labels
// and scored on the same eval texts. The pool is tokenized once, when the LabelCycle is made, and
// eval texts the first time they are seen.
//
// Each cycle trains from the start (not from the last cycle's model): a model is a function of the
// labels alone, so the curve's points are comparable, and a label the user changed leaves no trace.
//
// Header torch-free (the window includes it); the implementation is wb_core's.
// Thread rules: a LabelCycle belongs to one thread at a time (a worker thread in the window: a
// cycle takes seconds). Distinct objects are independent.

#include "core/label/labelqueue.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace wb {

class StopToken;

/// How a cycle's model is made.
struct LabelCycleSettings
{
    std::string bert_config_file;     ///< required
    std::string init_checkpoint;      ///< "" = random weights; else as train's --init_checkpoint
    std::string vocab_file;           ///< required
    bool do_lower_case = true;
    int64_t max_seq_length = 128;
    std::vector<std::string> label_names; ///< >= 2, in id order (prepare's label_list)
    int64_t seed = 42;                ///< prepare's and train's --seed
    /// The peak learning rate; 0 (the default): by the start, 1e-3 from random weights (what the
    /// label loop measured for BERT-Tiny on the spam mails, docs/label-to-learn.md), 5e-4 from a
    /// pretraining run of this program (core/config/learningrates.h; at 1e-3 such a start's
    /// cycles fell to the majority label, at 5e-4 none did), else kPretrainedLearningRate (5e-5).
    double learning_rate = 0;
    int64_t train_batch_size = 16;
    /// Passes over the labels: max(min_epochs, ceil(min_steps · train_batch_size / train texts)),
    /// so that a handful of labels still gets min_steps steps and a few hundred get min_epochs
    /// passes. The passes are one epoch of a train file that lists each label that many times
    /// (shuffled together by prepare and the dataset), so that the run evaluates and writes a
    /// checkpoint once, at its end, not after each of tens of passes (measured: a checkpoint of
    /// BERT-Tiny with its optimizer state is 52 MB; 40 of them were most of a cycle's time).
    int64_t min_epochs = 10;
    int64_t min_steps = 100; ///< 40 (at 5e-4) left BERT-Tiny guessing the majority label at 100 labels
    int num_threads = 0;              ///< train's --num_threads (0: automatic)
    int64_t score_batch_size = 64;    ///< texts per forward pass when rescoring
    /// false: a cycle trains and measures but leaves CycleResult::scores and predicted empty
    /// (the random order needs no scores; the simulated annotator saves the time).
    bool rescore_pool = true;
};

/// One labelled text of a cycle.
struct CycleText
{
    std::string text;
    std::string label; ///< one of LabelCycleSettings::label_names
};

/// What a cycle gives.
struct CycleResult
{
    std::string cycle_dir, model_dir;
    int64_t train_texts = 0, eval_texts = 0;
    double eval_accuracy = std::nan("");         ///< the final model's accuracy on the eval texts; NaN without
    double bag_of_words_accuracy = std::nan(""); ///< the bag-of-words baseline's, same labels, same eval texts
    /// Every pool text (all of them, labelled or not), row i = pool text i: probabilities
    /// float32 [n, num_labels] (softmax) and embeddings float32 [n, hidden_size] (pooled [CLS]).
    /// labelled_embeddings is left empty (the caller knows which rows are labelled).
    PoolScores scores;
    std::vector<int64_t> predicted; ///< argmax of each row
    double seconds_prepare = 0, seconds_train = 0, seconds_score = 0; ///< score: the pool's and the eval texts'
    double seconds_baseline = 0; ///< the bag-of-words baseline's fit (C chosen by cross-validation)
};

/// Progress of a cycle, for the window's status line: "preparing", "training", "scoring", and a
/// fraction in [0, 1] of that stage. Called on the thread running the cycle.
using CycleProgress = std::function<void(const std::string &stage, double fraction)>;

class LabelCycle
{
public:
    /// Checks the settings (throws wb::Error naming the field: a missing config or vocab, fewer
    /// than two label names, a label name prepare would not keep as it is) and tokenizes the
    /// pool (as prepare does: [CLS] text [SEP], cut to max_seq_length).
    LabelCycle(const LabelCycleSettings &settings, std::vector<std::string> pool);
    ~LabelCycle();
    LabelCycle(const LabelCycle &) = delete;
    LabelCycle &operator=(const LabelCycle &) = delete;

    /// Runs one cycle in `cycle_dir` (created; a folder left by an earlier attempt is replaced):
    /// prepare `train`, train, rescore the pool and measure on `eval` (which may be empty: no
    /// accuracy then).
    /// `train` needs at least one text of two different labels (else wb::Error "labels", with
    /// how many more are needed). Throws wb::Error for a failed prepare or run (its message),
    /// and wb::Error("label cycle", "cancelled") when `stop` is requested (the run's folder
    /// then holds a stopped run).
    CycleResult run(const std::string &cycle_dir, const std::vector<CycleText> &train,
                    const std::vector<CycleText> &eval, const StopToken &stop, const CycleProgress &progress = {});

    int64_t poolSize() const;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace wb
