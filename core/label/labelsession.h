// SPDX-License-Identifier: Apache-2.0
#pragma once

// A labelling session of "Label to learn" (issue 47; docs/label-to-learn.md): a folder holding
//
//     <label_dir>/label_session.json   what is labelled and how (LabelSessionSettings)
//     <label_dir>/labels.csv           the labels, saved as they are made (core/label/labelstore.h)
//     <label_dir>/curve.jsonl          one line per model trained: labels used, accuracy (CurvePoint)
//     <label_dir>/cycles/labels-NNNNN/ each cycle's prepared data and model_dir (core/learn/labelcycle.h)
//
// and the rule that decides which texts are shown next (planNextTexts): the queue's picks
// (core/label/labelqueue.h), with every `held_out_every`-th text drawn at random from the held-out
// part of the pool (core/label/labelpool.h isHeldOut), so that the curve is measured on texts the
// queue did not choose.
//
// Torch-free, no Qt. Thread rules: pure functions, or I/O on the files they name.

#include "core/label/labelpool.h"
#include "core/label/labelqueue.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// label_session.json: what a labelling session labels and how its model learns. A plain value;
/// the JSON keys are the field names.
struct LabelSessionSettings
{
    std::string pool_path;            ///< the imported texts (readLabelPool)
    std::string text_column;          ///< PoolReadOptions::text_column
    bool email_body_only = false;     ///< PoolReadOptions::email_body_only
    std::vector<std::string> label_names; ///< the labels the user created, in id order (>= 2 to train)
    /// The model's start: a bert_config.json and, optionally, weights to start from (an export
    /// folder or .safetensors: a Hub model, one's own pretraining); "" = random weights.
    std::string bert_config_file;
    std::string init_checkpoint;
    std::string vocab_file;
    bool do_lower_case = true;
    int64_t max_seq_length = 128;
    int64_t batch_size = 10;          ///< k: a model is retrained after every k labels
    std::string strategy = "uncertain_diverse"; ///< or "random" (labelQueueStrategies())
    int64_t seed = 42;                ///< random order, held-out draws and the model's seed
    double held_out_fraction = 0.2;   ///< share of the pool held out (isHeldOut)
    int64_t held_out_every = 5;       ///< every n-th text shown is a held-out one (0: never)
};

/// "uncertain_diverse", "random". Pure.
const std::vector<std::string> &labelQueueStrategies();

/// `<dir>/label_session.json`, `<dir>/labels.csv`, `<dir>/curve.jsonl`, `<dir>/cycles`. Pure.
std::string labelSessionPath(const std::string &dir);
std::string labelSessionLabelsPath(const std::string &dir);
std::string labelSessionCurvePath(const std::string &dir);
std::string labelSessionCyclesDir(const std::string &dir);

/// Writes label_session.json atomically (temporary file, fsync, rename). Throws wb::Error
/// naming the path when it cannot be written, and naming the field for a bad value (fewer than
/// two labels is allowed: the session can start before the labels exist).
void writeLabelSession(const std::string &path, const LabelSessionSettings &s);
/// Reads it back (what was written comes back exactly; missing keys keep the defaults). Throws
/// wb::Error naming the file and key for bad JSON, a wrong type or an unknown strategy.
LabelSessionSettings readLabelSession(const std::string &path);

/// One model trained in a session (or one step of a simulated annotator): a line of curve.jsonl.
struct CurvePoint
{
    int64_t labels = 0;          ///< labels given so far (train + held out)
    int64_t train_labels = 0;    ///< of them, the ones the model trained on
    int64_t eval_examples = 0;   ///< texts the accuracy was measured on
    /// "held_out": the session's held-out labels; "gold": a labelled eval set given to the
    /// simulated annotator; "none": no eval texts yet (accuracy NaN).
    std::string eval_source = "held_out";
    double accuracy = std::nan("");             ///< the model's eval accuracy in [0, 1]
    double bag_of_words_accuracy = std::nan(""); ///< the TF-IDF + logistic regression baseline on the same texts
    std::string strategy;        ///< the queue's strategy the labels were chosen by
    int64_t seed = 0;
    double seconds = 0;          ///< the cycle's wall time (prepare, train, baseline, rescore)
    double seconds_train = 0;    ///< of it, the training run's
    double seconds_score = 0;    ///< of it, classifying the pool and the eval texts
    std::string model_dir;       ///< the cycle's run folder ("" for none)
};

/// One JSON line (no line end) and its reader. The reader throws wb::Error naming `where`
/// (file:line) for bad JSON or a wrong type. NaN is written as null.
std::string curvePointJson(const CurvePoint &p);
CurvePoint parseCurvePoint(const std::string &line, const std::string &where);
/// Appends one line (O_APPEND, fsync). Throws wb::Error naming the path.
void appendCurvePoint(const std::string &path, const CurvePoint &p);
/// Every line of curve.jsonl (a missing file: none; a cut last line is left out).
std::vector<CurvePoint> readCurve(const std::string &path);

/// What to show next. `scores`: the latest model's view of every pool text (n rows; none yet:
/// n = 0, and the picks are random). `labelled[i]`: pool text i has a label. `held_out[i]`:
/// isHeldOut(pool[i]). `shown`: texts shown so far in this session (it sets the rhythm of the
/// held-out draws). Returns up to `count` unlabelled pool indices, in the order to show them:
/// every settings.held_out_every-th position (counting `shown` + 1 …) is a random unlabelled
/// held-out text (seeded by settings.seed and `shown`), the others the queue's picks among
/// unlabelled texts that are not held out (pickUncertainDiverse with the labelled texts'
/// embeddings as centres, or randomOrder(settings.seed) for "random" and when there are no
/// scores). Pure.
std::vector<int64_t> planNextTexts(const LabelSessionSettings &settings, const PoolScores &scores,
                                   const std::vector<bool> &labelled, const std::vector<bool> &held_out,
                                   int64_t shown, int64_t count);

} // namespace wb
