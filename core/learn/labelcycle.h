// SPDX-License-Identifier: Apache-2.0
#pragma once

// One cycle of "Label to learn" (issue 47; docs/label-to-learn.md, "One cycle"): the labels so
// far become a model, and the model rescores the pool. A cycle is ordinary product work, in a
// folder of its own:
//
//   <cycle_dir>/data/train.csv, dev.csv   the train labels and the eval texts (the labels file's
//                                          columns text,label)
//   <cycle_dir>/prepared/                  `prepare` of them (classification_task_name csv, the
//                                          session's label names as label_list, vocab, casing,
//                                          max_seq_length; its bag-of-words baseline on the eval texts)
//   <cycle_dir>/run/                       a `train` run (one_device, the session's start: random
//                                          weights or init_checkpoint), evaluated on the eval texts
//
// then every pool text is classified by the run's final model: class probabilities and the pooled
// [CLS] vector (the embedding the queue's k-centre step measures distances in). The pool is
// tokenized once, when the LabelCycle is made, and reused by every cycle.
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
    double learning_rate = 1e-4;
    int64_t train_batch_size = 16;
    /// Epochs: max(min_epochs, ceil(min_steps · train_batch_size / train examples)), so that a
    /// handful of labels still gets min_steps steps and a few hundred get min_epochs passes.
    int64_t min_epochs = 10;
    int64_t min_steps = 40;
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
    double eval_accuracy = std::nan("");         ///< the run's last evaluation; NaN without eval texts
    double bag_of_words_accuracy = std::nan(""); ///< prepare's baseline on the same eval texts
    /// Every pool text (all of them, labelled or not), row i = pool text i: probabilities
    /// float32 [n, num_labels] (softmax) and embeddings float32 [n, hidden_size] (pooled [CLS]).
    /// labelled_embeddings is left empty (the caller knows which rows are labelled).
    PoolScores scores;
    std::vector<int64_t> predicted; ///< argmax of each row
    double seconds_prepare = 0, seconds_train = 0, seconds_score = 0;
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
    /// prepare `train` (+ `eval`, which may be empty: no accuracy then), train, rescore the pool.
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
