// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

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
};

/// One evaluation pass over the whole of `data` (reset first): eval_loss is the
/// example-weighted mean of the per-batch losses (run_classifier's eval loss), the rest
/// from core/train/evaluation.h. With a multi-worker `strategy` every worker passes its
/// shard and the shards are combined before the metrics. When `outputs` is non-null it
/// receives one row per example: class probabilities (softmax) or the regression value.
/// When `examples` is non-null (classification) it receives this worker's examples.
/// Leaves the model in train mode. Throws what the data reader throws (wb::Error).
EvalMetrics evaluate(nn::BertForSequenceClassification &model, ClassifierDataset &data, bool regression,
                     int64_t numLabels, std::vector<std::vector<float>> *outputs = nullptr,
                     Strategy *strategy = nullptr, EvalExampleOutputs *examples = nullptr);

/// run_classifier's log line "Step: [<step>] eval_loss = …, eval_accuracy = … (N examples)".
std::string evalLine(const EvalMetrics &m);

/// `v` with `precision` significant digits (log lines).
std::string formatMetric(double v, int precision = 4);

} // namespace wb
