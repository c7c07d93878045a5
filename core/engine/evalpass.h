// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include "core/config/inputmetadata.h"
#include "core/data/classifierdataset.h"
#include "core/model/bertmodel.h"
#include "core/events/trainingobserver.h"

#include <string>
#include <vector>

namespace wb {

class Strategy;

/// Per-example results of a classification evaluation pass, in record order: true label,
/// class probabilities (softmax), cross-entropy loss −log p(true label) (nats, unweighted),
/// and the input_ids / segment_ids of the record (padding included).
struct EvalExampleOutputs
{
    std::vector<int64_t> labels;
    std::vector<std::vector<float>> probabilities;
    std::vector<double> losses;
    std::vector<std::vector<int64_t>> input_ids, segment_ids;
    /// Regression passes: the target value of each example (labels/probabilities stay empty).
    std::vector<double> values;
    /// Multi-label passes: each example's true label set (the ids of its multi-hot label_ids,
    /// ascending); `probabilities` holds each label's sigmoid (float32), `label_probabilities`
    /// the same sigmoids computed in float64 from the float32 logits, `label_losses` each
    /// label's binary cross-entropy in nats (float64, from the logits, no pos_weight:
    /// max(x, 0) − x·y + log(1 + e^−|x|)), `losses` their mean; `labels` stays empty; tokens
    /// and pooled as for single-label. All rows num_labels wide.
    std::vector<std::vector<int64_t>> label_sets;
    std::vector<std::vector<double>> label_probabilities, label_losses;
    /// false: input_ids and segment_ids stay empty (predict's labelled file needs no tokens).
    bool keep_tokens = true;
    /// true (classification): `pooled` receives each example's pooled [CLS] vector (BERT's
    /// pooler output, the classifier's input), float32, `pooled_width` values a row, for the
    /// embedding view (model_dir/embeddings/, core/formats/embeddings.h). The logits are then
    /// computed from that same vector (classifier(pooled): the model's forward in eval mode).
    bool keep_pooled = false;
    std::vector<float> pooled;
    int64_t pooled_width = 0;
};

/// One evaluation pass over the whole of `data` (reset first): eval_loss is the
/// example-weighted mean of the per-batch losses (run_classifier's eval loss), the rest
/// from core/engine/evaluation.h. With a multi-worker `strategy` every worker passes its
/// shard and the shards are combined before the metrics. When `outputs` is non-null it
/// receives one row per example: class probabilities (softmax) or the regression value.
/// When `examples` is non-null it receives this worker's examples (classification: labels,
/// probabilities, losses and, when keep_tokens, the tokens; regression: the targets in `values`).
/// Multi-label: `outputs` rows are each label's sigmoid; the metrics are computeMultiLabelMetrics'
/// (thresholds included); `examples` gets label_sets, probabilities, label_probabilities,
/// label_losses, losses (their mean), tokens and pooled (gathered across workers like single-label's).
/// `padding` "longest" cuts each batch to its longest row (trimmedToLongest: the metrics move by
/// float rounding only). Leaves the model in train mode. Throws what the data reader throws
/// (wb::Error).
EvalMetrics evaluate(nn::BertForSequenceClassification &model, ClassifierDataset &data, ProblemType problem,
                     int64_t numLabels, std::vector<std::vector<float>> *outputs = nullptr,
                     Strategy *strategy = nullptr, EvalExampleOutputs *examples = nullptr,
                     const std::string &padding = "max_length");

/// run_classifier's log line "Step: [<step>] eval_loss = …, eval_accuracy = … (N examples)",
/// with the binary eval_f1 naming its positive class ("eval_f1 = 0.8 (positive class: spam)"),
/// macro_f1, and one line per class after it ("  spam: precision = …, recall = …, f1 = … (N
/// examples)"): the set metrics.jsonl and training_summary.json hold.
std::string evalLine(const EvalMetrics &m);

/// `v` with `precision` significant digits (log lines).
std::string formatMetric(double v, int precision = 4);

} // namespace wb
