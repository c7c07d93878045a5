// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include "core/config/bertconfig.h"
#include "core/config/inputmetadata.h"
#include "core/config/trainingoptions.h"
#include "core/data/classifierdataset.h"

#include <torch/torch.h>

namespace wb {

class Strategy;

/// One batch as tensors: input_ids, input_mask, segment_ids int64 [batch, max_seq_length];
/// label_ids int64 [batch] (classification), label values and sample weights float32
/// [batch] when the data has them, multi-hot targets float32 [batch, num_labels] (multi-label);
/// undefined tensors otherwise; `indices` int64 [batch] each row's record index
/// (ClassifierBatch::record_indices), always on the CPU; distillation data: `teacher` float32
/// [batch, num_labels] (regression [batch, 1]) the teacher's logits and `has_label` float32
/// [batch] (1 gold label, 0 transfer text).
struct BatchTensors
{
    torch::Tensor ids, mask, segments, labels, values, weights, targets, indices, teacher, has_label;
};

/// Views `b` as tensors without copying: `b` must outlive the result.
BatchTensors toTensors(ClassifierBatch &b);

/// `t` with the columns after its longest row cut off (padding "longest", as Hugging Face's
/// DataCollatorWithPadding pads a batch; TrainingOptions::padding): L = 1 + the last position
/// any row's input_mask marks (at least 1), and ids, mask and segments become their first L
/// columns, int64 [rows, L], contiguous copies; every other tensor stays as it is. The dropped
/// positions are padding in every row: attention gives them probability 0, so no real token's
/// output changes except by float rounding (sums over fewer zeros; dropout masks drawn for the
/// narrower shape). Returns `t` itself when nothing can go. CPU tensors only (call before
/// onDevice); any thread.
BatchTensors trimmedToLongest(const BatchTensors &t);

/// 1 + the last column any row of `mask` (int64 [rows, width], CPU) marks non-zero; at least 1.
/// trimmedToLongest's L, also for the pretraining batch.
int64_t longestMarkedRow(const torch::Tensor &mask);

/// toTensors(b), trimmed to its longest row when `padding` is "longest".
BatchTensors toTensors(ClassifierBatch &b, const std::string &padding);

/// This worker's rows of a global batch: [rank·b, (rank+1)·b) with b = size / workers.
/// Every worker reads the same global batches, so N workers train on exactly the data
/// order of one worker, each on its own share of every batch.
BatchTensors workerSlice(const BatchTensors &t, const Strategy &s);

/// Rows [from, from + count) of every tensor of `t` (views; micro-batches of gradient
/// accumulation).
BatchTensors rowsOf(const BatchTensors &t, int64_t from, int64_t count);

/// Micro-batch `k` of `t` split into `microBatches` equal parts of m = rows / microBatches:
/// rowsOf(t, k·m, m) (views), or `t` itself when there is one part. Tensors: BatchTensors or
/// any struct with an int64 [rows, …] `ids` and a rowsOf overload (the pretraining batch).
template <class Tensors>
Tensors microBatchOf(const Tensors &t, int64_t k, int64_t microBatches)
{
    if (microBatches == 1)
        return t;
    const int64_t m = t.ids.size(0) / microBatches;
    return rowsOf(t, k * m, m);
}

/// Copies the batch to `device` (no-op on the CPU, where the tensors stay views).
BatchTensors onDevice(BatchTensors t, const c10::Device &device);

/// The loss of a batch by problem type: mean cross-entropy (single-label) or Keras MSE
/// Σ w·(ŷ−y)² / batch (regression), as run_classifier's (tensorflow/models
/// official/nlp/bert/run_classifier.py); multi-label: binary cross-entropy with logits averaged
/// over batch × num_labels (transformers' BCEWithLogitsLoss for multi_label_classification),
/// `posWeight` float32 [num_labels] weighting each label's positive term when defined.
/// Sample weights scale each row when the data has them. Returns a float32 scalar.
torch::Tensor lossFor(const torch::Tensor &logits, const BatchTensors &t, ProblemType problem,
                      const torch::Tensor &posWeight = {});

/// The loss of a distillation batch (t.teacher defined; docs/distillation.md): α·soft + (1 − α)·hard.
/// soft, over every row: single-label T²·KL(softmax(teacher/T) ‖ softmax(logits/T)) averaged over
/// rows (Hinton et al. 2015); multi-label T²·binary cross-entropy of σ(logits/T) against
/// σ(teacher/T), averaged over rows × labels; regression (logits − teacher)², averaged.
/// hard: lossFor's loss over the rows with has_label 1 only (0 when the batch has none).
/// Sample weights scale each row of both terms. `temperature` > 0, `alpha` in [0, 1].
/// Returns a float32 scalar.
torch::Tensor distillationLossFor(const torch::Tensor &logits, const BatchTensors &t, ProblemType problem,
                                  double temperature, double alpha, const torch::Tensor &posWeight = {});

/// pos_weight "balanced" of a multi-label run: for each label, negatives / positives over the
/// training records `o` names (the first `take` when set; every worker reads them all, so every
/// worker gets the same weights), clipped to [1, 100]; a label no record carries gets 1.
/// Returns float32 [num_labels] on the CPU. Throws what the data reader throws.
torch::Tensor balancedPosWeight(DatasetOptions o, std::optional<int64_t> take);

/// The dataset options of a run: training (shuffled, repeated, capped at train_data_size,
/// seeded by --seed) or evaluation (one ordered pass) over `pattern`.
DatasetOptions datasetOptions(const TrainingOptions &spec, const BertConfig &cfg, const InputMetaData &meta,
                              const std::string &pattern, bool training);

} // namespace wb
