// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/infer/attribution.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// Where a TextClassifier takes its model from: an export folder (`model_export_path`,
/// written by `export`), or a model_dir checkpoint with the files of the run. An export
/// folder's weights are its model.safetensors, else its onnx/model.onnx (read back by
/// initialiser name, core/export/onnxexport.h loadOnnxWeights); without input_meta_data.json
/// (a folder of config.json, onnx/model.onnx, vocab.txt and tokenizer_config.json) the labels
/// come from config.json's id2label (problem_type regression: one value) and max_seq_length
/// from tokenizer_config.json.
struct ClassifierSource
{
    std::string model_export_path;       ///< export folder; when set, the fields below are defaults only
    /// training run: its latest checkpoint …; an export folder (config.json with
    /// model.safetensors or onnx/model.onnx, no run_config.json) is read as model_export_path
    std::string model_dir;
    std::string checkpoint_path;         ///< … or this one ("best", a ckpt-N, or a .safetensors file)
    std::string bert_config_file;        ///< with model_dir
    std::string input_meta_data_path;    ///< with model_dir (num_labels, max_seq_length, labels.txt beside)
    std::string vocab_file;              ///< with model_dir; default: prepare_report.json's vocab
    /// Default: what the model was trained with (an export's tokenizer_config.json; a run's
    /// checkpoint, else its run_config.json), else the meta data's, else prepare_report.json's,
    /// else inferred from the vocab (a vocab with capital-letter pieces is cased; a warning says so).
    std::optional<bool> do_lower_case;
    int64_t max_seq_length = 0;          ///< 0: the meta data's (or tokenizer_config.json's)
    /// libtorch's intra-op threads, set when the classifier is opened (torch::set_num_threads:
    /// process-wide); 0 keeps libtorch's own choice.
    int64_t num_threads = 0;
};

/// One text after WordPiece tokenization, as the model sees it.
struct TokenizedText
{
    std::vector<std::string> tokens;     ///< [CLS] a… [SEP] (b… [SEP]); no padding
    std::vector<int64_t> input_ids;      ///< same length as tokens
    std::vector<int64_t> segment_ids;    ///< 0 for [CLS], text a and its [SEP]; 1 for text b
    std::vector<bool> unknown;           ///< true where the token is [UNK]
    bool truncated = false;              ///< the texts did not fit into max_seq_length
    int64_t tokens_needed = 0;           ///< length without the cut, [CLS]/[SEP] included
};

/// What the model says about one text.
struct Classification
{
    std::string text, text_b;
    /// softmax, one per label name (regression: the value; multi-label: each label's sigmoid)
    std::vector<double> probabilities;
    int64_t predicted_label_id = 0;      ///< argmax
    std::string predicted_label;         ///< its name
    /// Multi-label: the predicted label set, the labels whose probability reaches their
    /// threshold (TextClassifier::thresholds()), in id order, and their names; empty otherwise.
    std::vector<int64_t> predicted_label_ids;
    std::vector<std::string> predicted_labels;
    bool multi_label = false;            ///< the model is multi-label (the set above is its answer)
    std::vector<double> thresholds;      ///< multi-label: the per-label thresholds the set was decided with
    TokenizedText tokenized;
};

/// A fine-tuned BertForSequenceClassification with its tokenizer and label names, for
/// classifying texts one by one or in batches (CLI `classify`, the window's Try it).
/// Features are built as `prepare` builds them (google-research/bert run_classifier.py's
/// convert_single_example), so the probabilities equal `predict`'s test_results.tsv for the
/// same texts, up to float rounding. Facade over a pimpl: includes no Torch header. CPU inference.
///
/// Thread rules: construct and use from one thread at a time (a worker thread in a GUI:
/// loading and classify() take milliseconds to seconds); the const methods too, since the
/// forward pass keeps its buffers in the object (nn::ClassifierInference). Distinct objects are
/// independent.
class TextClassifier
{
public:
    /// Loads the model, config, meta data, labels (readLabelNames) and vocabulary. Throws
    /// wb::Error naming the file or flag for anything missing or inconsistent (a vocab whose
    /// size differs from vocab_size, a checkpoint of another num_labels, no checkpoint).
    explicit TextClassifier(const ClassifierSource &source);
    ~TextClassifier();
    TextClassifier(const TextClassifier &) = delete;
    TextClassifier &operator=(const TextClassifier &) = delete;

    /// Label names in id order (empty for regression).
    const std::vector<std::string> &labelNames() const;
    int64_t maxSeqLength() const;
    bool isRegression() const;
    /// problem_type multi_label_classification: probabilities are per-label sigmoids and
    /// Classification::predicted_label_ids the label set.
    bool isMultiLabel() const;
    /// Multi-label: the per-label thresholds in id order (an export's config.json "thresholds",
    /// a run's evaluation of the checkpoint, else 0.5 each with a warning) and where they came
    /// from in words; empty otherwise.
    const std::vector<double> &thresholds() const;
    const std::string &thresholdsSource() const;
    /// The checkpoint or safetensors file the weights came from.
    const std::string &weightsPath() const;
    /// Which checkpoint of the run that is when none was named: "best, step 42 (eval_accuracy
    /// 0.6667)" (the run kept a best model: it is taken first) or "latest, step 60"; "" for an
    /// export folder or a named checkpoint.
    const std::string &weightsLabel() const;
    /// Warnings met while loading (e.g. labels.txt of another length, a casing inferred from
    /// the vocab), for the log.
    const std::vector<std::string> &warnings() const;
    /// Where the files came from when the source did not name them: the run's recorded config,
    /// meta data, vocabulary and casing (fillFromRecordedRun's notes) and the best checkpoint
    /// taken first. Facts, not problems: the CLI prints them as notes, the window behind a detail.
    const std::vector<std::string> &notes() const;
    /// Whether texts are lower-cased (and accents stripped), and where that was read
    /// ("--do_lower_case", a file's path, or "<vocab> (inferred)").
    bool doLowerCase() const;
    const std::string &casingSource() const;
    /// The mean wordpieces per training text (prepare_report.json's mean_tokens beside the
    /// meta data, [CLS]/[SEP] included); NaN when no report says it (an export folder).
    double trainingMeanTokens() const;

    /// Tokenizes `a` (and `b` for pair tasks, when non-empty) without running the model.
    TokenizedText tokenize(const std::string &a, const std::string &b = {}) const;
    /// Classifies one text (pair).
    Classification classify(const std::string &a, const std::string &b = {}) const;
    /// Classifies texts in batches of `batchSize`; `pairs[k].second` may be empty. Results are
    /// in input order; texts of similar length are batched together and each batch is padded
    /// to its longest text, not to max_seq_length (a short text costs what its wordpieces cost;
    /// the probabilities differ from a max_seq_length-padded pass only by float rounding).
    std::vector<Classification> classifyAll(const std::vector<std::pair<std::string, std::string>> &pairs,
                                            int64_t batchSize = 32) const;

    /// The model's forward pass on features already built (classifyAll's, without the
    /// tokenizer): input_ids, attention_mask (1 = token, 0 = padding) and token_type_ids are
    /// row-major int64 [batch, sequence] (sequence ≤ max_position_embeddings). Returns the
    /// softmax probabilities (regression: the values; multi-label: sigmoids) as row-major
    /// float32 [batch, num_labels].
    /// With `pooled`, also the pooled [CLS] vectors (tanh of the pooler on the last layer's
    /// [CLS] state, what the classifier head reads) as row-major float32 [batch, hidden_size],
    /// from the same forward pass (label to learn's queue measures distances in them).
    /// With `logits`, also the classifier's logits, row-major float32 [batch, num_labels]
    /// (regression [batch, 1]) from the same pass (distillation's teacher outputs).
    /// Throws wb::Error ("input_ids") when the three sizes do not match `batch`, or an id lies
    /// outside the vocabulary or the sequence is longer than the model's positions
    /// ("token_type_ids" for a token type outside type_vocab_size). The pass: the module's eval
    /// logits bit for bit, on buffers kept in the object (core/model/classifierinference.h;
    /// docs/benchmarks.md, "One text faster than ONNX Runtime"). For benchmarks and callers
    /// with their own tokenization; thread rules as classify().
    std::vector<float> probabilitiesOf(const std::vector<int64_t> &input_ids,
                                       const std::vector<int64_t> &attention_mask,
                                       const std::vector<int64_t> &token_type_ids, int64_t batch,
                                       std::vector<float> *pooled = nullptr,
                                       std::vector<float> *logits = nullptr) const;

    /// Which wordpieces decided (issue 25): the classification of `a` (and `b`) and the
    /// attribution of each of its wordpieces to the logit of options.target_label_id (−1: the
    /// predicted class), by Integrated Gradients on the word embeddings or gradient × input
    /// (core/infer/attributiontorch.h has the formulas, the baseline and the batching).
    /// Multi-label (issue 45): the target is one label's own logit, the log-odds of its sigmoid
    /// (never a softmax over the labels); −1 takes the most probable label; the completeness
    /// probabilities are that label's sigmoid (judgeBaselineMultiLabel, at its threshold) and
    /// target_is_predicted says whether the label is in the predicted set.
    /// Runs the unpadded text (max_seq_length cut as classify() cuts it), so Explanation's
    /// logits equal classify()'s up to float rounding. Cost: m interpolation points (m =
    /// ig_steps) in batched forward + backward passes, e.g. ~0.15 s CPU for 128 tokens, m = 32
    /// on BERT-Tiny, one core (docs/benchmarks.md). Throws wb::Error on "ig_steps" (m < 1) or "explain_class" (a
    /// class outside the labels). Thread rules as classify().
    Explanation explain(const std::string &a, const std::string &b, const ExplainOptions &options,
                        Classification *classification = nullptr) const;
    /// The name of label `id` ("label N" beyond the names; "value" for regression).
    std::string labelName(int64_t id) const;
    int64_t numLabels() const;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

/// A note for a text much shorter than those the model was trained on, in plain words for a
/// student: "This text has 1 wordpiece; the texts the model was trained on have 183 on
/// average (prepare_report.json). A model trained on long texts often answers short ones
/// badly: with no text at all it says spam 97.0 %." — `empty` is the classification of an
/// empty text. "" when the text has at least a fifth of the mean wordpieces, the mean is
/// unknown (NaN) or below 20, or for regression. Pure.
std::string shortTextNote(const Classification &text, const Classification &empty, double trainingMeanTokens);

} // namespace wb
