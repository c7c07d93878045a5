// SPDX-License-Identifier: Apache-2.0
#pragma once

// Distillation's data (issue 48; docs/distillation.md): a finished fine-tuning run (the teacher)
// labels the texts a smaller model (the student) will learn from, once, and the student then
// trains as any run does — `train` of records that carry the teacher's logits (core/engine's
// fine-tuning task mixes them into the loss: distillationLossFor, core/engine/batching.h).
//
//   <output_dir>/train.tf_record       the teacher's training records (gold label, has_label 1)
//                                      and the transfer texts (the teacher's prediction as label,
//                                      has_label 0), each with teacher_logits, in a seeded order
//   <output_dir>/eval.tf_record        the teacher's evaluation records with teacher_logits, in
//                                      their order (the student is measured on the teacher's set)
//   <output_dir>/input_meta_data.json  the teacher's, with has_teacher_logits and the new counts;
//                                      labels.txt and prepare_report.json copied beside it
//   <output_dir>/teacher.json          what the outputs were computed from (the cache key) and
//                                      the counts; written last
//
// The folder is built in "<output_dir>.partial" and renamed into place, so it is whole or absent.
// It is the cache: when teacher.json's key matches (the teacher's weights, its records, the
// transfer texts, max_seq_length, the seed), nothing is computed again — a distillation stopped
// or killed during the student's training resumes without a second teacher pass.
//
// Header torch-free (the window includes it); the implementation is wb_core's.
// Thread rules: one call per output_dir at a time; it runs the teacher on the calling thread.

#include "core/config/diagnostics.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace wb {

class StopToken;
struct TrainingOptions;

/// What the student will learn from.
struct DistillationRequest
{
    std::string teacher_dir;        ///< the teacher: a fine-tuning run's model_dir (its run_config.json)
    /// Which of its checkpoints: "" (its best model when it kept one, else its latest, as
    /// classify takes it), "best", "latest" or a ckpt-N path.
    std::string teacher_checkpoint;
    /// Unlabelled texts besides the teacher's training texts: a text file (one per line), a
    /// .csv/.tsv/.jsonl/.json column, or a folder (one file a text), read as prepare reads text
    /// (core/label/labelpool.h readLabelPool). "" = the training texts only.
    std::string transfer_data;
    std::string transfer_column;    ///< the column of a table; "" recognises it as prepare does
    bool email_body_only = false;   ///< each transfer text is a mail: keep its body (prepare's)
    int64_t max_transfer_texts = 0; ///< 0: all
    std::string output_dir;         ///< required; usually <student model_dir>/distillation
    uint64_t seed = 42;             ///< the order of train.tf_record
    int64_t batch_size = 32;        ///< the teacher's batches
};

/// What prepareDistillationData made (or found).
struct DistillationData
{
    std::string input_meta_data_path, train_data_path, eval_data_path; ///< the student's data
    std::string teacher_weights;        ///< the checkpoint the teacher's outputs came from
    std::string teacher_weights_label;  ///< "best, step 42 (eval_accuracy 0.9)" or "latest, step 60" ("" named)
    std::string teacher_vocab_file;     ///< the vocabulary the records were made with
    std::string teacher_do_lower_case;  ///< "true" or "false"
    int64_t labelled = 0;               ///< the teacher's training records (gold labels)
    int64_t transfer = 0;               ///< transfer texts kept
    int64_t transfer_in_eval = 0;       ///< transfer texts left out: the same wordpieces as an eval text
    int64_t transfer_duplicates = 0;    ///< left out: the same wordpieces as a training text or an earlier transfer text
    int64_t transfer_truncated = 0;     ///< kept, cut at max_seq_length
    int64_t eval = 0;                   ///< evaluation records
    double teacher_agreement_train = 0; ///< share of the labelled records the teacher gets right (classification)
    double teacher_seconds = 0;         ///< the teacher's passes (0 when cached)
    bool cached = false;                ///< teacher.json matched: nothing was computed
    std::vector<std::string> notes;     ///< where the teacher's files came from, what was left out
};

/// Builds (or reuses) the student's data in request.output_dir as the comment above says.
/// `progress` (may be empty) gets a line now and then ("teacher: 640 of 2,400 texts").
/// Throws wb::Error naming the option or file: teacher_dir not a fine-tuning run or without a
/// checkpoint, a pretraining run, transfer_data unreadable or without any text, records the
/// teacher's meta data does not describe; wb::StoppedByUser when `stop` is set (the partial
/// folder is removed, an earlier complete one kept). Reads and writes files; see thread rules.
DistillationData prepareDistillationData(const DistillationRequest &request, const StopToken &stop,
                                         const std::function<void(const std::string &)> &progress = {});

/// Everything about the student that can be known before the teacher's pass, so that a wrong
/// flag costs no pass: every option's range (distillation_alpha, distillation_temperature among
/// them), the teacher run (teacher_dir), a vocabulary other than the teacher's, and the
/// pre-flight check (validateRun: the strategy, the BERT config, vocab_size against the
/// wordpiece ids, max_seq_length …) of the student against the teacher's own records, whose
/// shapes the student's records keep (a finding on those files is named as the teacher's; not
/// for a --pretrained_model student, whose config the run's plan fetches later). Only errors. Reads the teacher's run_config.json, its records and the vocabularies; any thread.
Diagnostics checkStudentOptions(const TrainingOptions &student, const DistillationRequest &request);

/// The student's options once its data is made, as `distil` and the window's dialog set them:
/// `student` with the three data paths of `data`, and vocab_file / do_lower_case the teacher's
/// where it has none. Throws wb::Error on vocab_file when the student's vocabulary is another
/// file than the teacher's (SHA-256): the records hold the teacher's wordpiece ids. Reads the two
/// vocabulary files; any thread.
TrainingOptions studentOptions(TrainingOptions student, const DistillationData &data);

/// The lines that say what the student learns from, as `distil` prints them and the window's
/// Distil Model dialog shows them: each note ("note: …"), the teacher's checkpoint, the counts
/// ("student's data: 200 labelled texts …"), and where the teacher's outputs are
/// (`dataDir`, computed in how many seconds or reused). Pure; any thread.
std::vector<std::string> distillationSummary(const DistillationData &data, const std::string &dataDir);

} // namespace wb
