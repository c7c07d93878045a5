// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// One evaluation example as the last evaluation saw it: a line of `model_dir/eval_examples.jsonl`.
///
/// JSON form (one object per line, keys in this order): {"index": i, "step": S,
/// "true_label": "spam", "true_label_id": 1, "predicted_label": "ham", "predicted_label_id": 0,
/// "probabilities": [p0, p1, …] (label id order), "loss": −log p(true label) in nats,
/// "text": "…", "text_b": "…" (pairs only)}. "text" is the detokenized wordpieces of the
/// record (detokenizeWordpieces) when a vocabulary is known, else absent.
///
/// Multi-label runs (issue 45; docs/file-formats.md) write instead, keys in this order:
/// {"index": i, "step": S, "multi_label": true, "true_labels": ["billing", "urgent"],
/// "true_label_ids": [0, 2] (ascending; [] for an example with no label), "predicted_labels",
/// "predicted_label_ids" (the labels with probability ≥ 0.5, the headline metrics' threshold),
/// "probabilities": [σ(logit) per label id] (float64; they do not sum to 1), "label_losses":
/// [binary cross-entropy per label id, nats, no pos_weight], "loss": mean of label_losses,
/// "text", "text_b" as above}. Read back, such a line has multi_label = true, the vectors
/// filled, true_label_id = predicted_label_id = −1 and true_label / predicted_label the
/// names joined by ", " (empty for the empty set).
struct EvalExample
{
    int64_t index = 0;               ///< position in the evaluation TFRecord set (0-based)
    int64_t step = 0;                ///< global step of the evaluation
    int64_t true_label_id = 0;
    int64_t predicted_label_id = 0;
    std::string true_label;          ///< label names (labels.txt, id2label or "label N")
    std::string predicted_label;
    std::vector<double> probabilities;
    double loss = 0;
    std::string text;
    std::string text_b;
    /// Multi-label lines only (empty / false otherwise): see above. label_losses has one value
    /// per label id, as probabilities.
    bool multi_label = false;
    std::vector<int64_t> true_label_ids, predicted_label_ids;
    std::vector<std::string> true_labels, predicted_labels;
    std::vector<double> label_losses;
    /// Single-label: the predicted label is the true one. Multi-label: the predicted set is the
    /// true set (subset accuracy's "exact match").
    bool correct() const
    {
        return multi_label ? true_label_ids == predicted_label_ids : true_label_id == predicted_label_id;
    }
};

/// Returns model_dir/eval_examples.jsonl.
std::string evalExamplesPath(const std::string &modelDir);

/// Returns the JSON line (no newline) of `e`.
std::string evalExampleJson(const EvalExample &e);

/// Writes `examples` as JSON lines to `path` atomically. Throws wb::Error naming the file.
void writeEvalExamples(const std::string &path, const std::vector<EvalExample> &examples);

/// Reads eval_examples.jsonl. Throws wb::Error naming the file and line for a missing file
/// or a line that is not an object of the form above (an optional key of another type
/// included: "step", "true_label", "predicted_label", "text", "text_b"; multi-label lines:
/// "true_labels", "predicted_labels", and label ids outside the probabilities or label_losses
/// of another length than probabilities). Thread-safe.
std::vector<EvalExample> readEvalExamples(const std::string &path);

/// Joins WordPiece tokens to text as google-research/bert's tokenization undoes it: "##"
/// continuations are glued to the previous piece, [PAD] is dropped, [CLS] is dropped, and
/// everything after the first [SEP] goes to `textB` (pairs; the second [SEP] is dropped).
std::string detokenizeWordpieces(const std::vector<std::string> &tokens, std::string *textB = nullptr);

/// The examples with the highest loss first (fastai's top_losses: most confidently wrong
/// first), at most `n` (0 = all). Filters: only examples with this true label id and/or this
/// predicted label id (a confusion-matrix cell); `mistakesOnly` drops correct ones. Ties
/// keep file order. Pure; thread-safe.
std::vector<EvalExample> topLosses(const std::vector<EvalExample> &examples, size_t n,
                                   std::optional<int64_t> trueLabelId = std::nullopt,
                                   std::optional<int64_t> predictedLabelId = std::nullopt,
                                   bool mistakesOnly = false);

/// Multi-label examples by the binary cross-entropy of label `labelId` (label_losses[labelId]),
/// highest first, at most `n` (0 = all); ties keep file order. Examples that are not
/// multi-label or have no loss for that label are left out. Pure; thread-safe.
std::vector<EvalExample> topLabelLosses(const std::vector<EvalExample> &examples, int64_t labelId, size_t n = 0);

/// A (true, predicted) pair of different labels and how often the model made that mistake.
struct ConfusedPair
{
    int64_t true_label_id = 0;
    int64_t predicted_label_id = 0;
    std::string true_label;
    std::string predicted_label;
    int64_t count = 0;
};

/// The mistakes grouped by (true, predicted), most frequent first (fastai's most_confused),
/// ties by true then predicted id; pairs with fewer than `minCount` are left out; multi-label
/// examples (no single true and predicted label) are left out. Pure.
std::vector<ConfusedPair> mostConfusedPairs(const std::vector<EvalExample> &examples, int64_t minCount = 1);

} // namespace wb
