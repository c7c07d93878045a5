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
    bool correct() const { return true_label_id == predicted_label_id; }
};

/// Returns model_dir/eval_examples.jsonl.
std::string evalExamplesPath(const std::string &modelDir);

/// Returns the JSON line (no newline) of `e`.
std::string evalExampleJson(const EvalExample &e);

/// Writes `examples` as JSON lines to `path` atomically. Throws wb::Error naming the file.
void writeEvalExamples(const std::string &path, const std::vector<EvalExample> &examples);

/// Reads eval_examples.jsonl. Throws wb::Error naming the file and line for a missing file
/// or a line that is not an object of the form above (an optional key of another type
/// included: "step", "true_label", "predicted_label", "text", "text_b"). Thread-safe.
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
/// ties by true then predicted id; pairs with fewer than `minCount` are left out. Pure.
std::vector<ConfusedPair> mostConfusedPairs(const std::vector<EvalExample> &examples, int64_t minCount = 1);

} // namespace wb
