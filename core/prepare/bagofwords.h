// SPDX-License-Identifier: Apache-2.0
#pragma once

// The bag-of-words baseline (issue 25, "A baseline to beat"): TF-IDF features of the
// wordpieces the model sees, and an L2-regularised logistic regression (liblinear) fitted
// on the train split, scored on the eval split. prepare records it in prepare_report.json
// (key bag_of_words_baseline, docs/file-formats.md); `bert-workbench-cli baseline` computes
// it again from the TFRecords. Torch-free; no Qt.

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace wb {

class StopToken;
struct ClassifierRecord;
struct RecordSpec;

/// One example as the baseline reads it: its terms (bagOfWordsTerms(), repeats kept: a
/// term's count is its term frequency) and its label id.
struct BagOfWordsDocument
{
    std::vector<uint32_t> terms;
    int64_t label = 0;
    /// Multi-label: 0/1 per label (the record's multi-hot label_ids); empty for single-label.
    std::vector<int64_t> label_set = {};
};

/// The terms of a record: every wordpiece the model sees (input_mask 1) except the
/// structural [CLS] (position 0) and the [SEP] that ends each segment, as
/// `2 × input_id + segment_id`, so that a wordpiece of text_a and the same wordpiece of
/// text_b are different terms (single-sentence tasks have only even terms). The record is
/// [CLS] a [SEP] (b [SEP]) as prepare writes it; truncated texts give the tokens the model
/// sees, not the whole text. Pure.
std::vector<uint32_t> bagOfWordsTerms(const ClassifierRecord &record);

/// One sparse row: (column, value), columns ascending.
using SparseRow = std::vector<std::pair<int32_t, double>>;

/// TF-IDF as scikit-learn's TfidfVectorizer(sublinear_tf=True, smooth_idf=True, norm="l2")
/// computes it (scikit-learn user guide, "Tf–idf term weighting"), fitted on the training
/// documents only:
///   tf(t, d)  = 1 + ln(count of t in d)                       (sublinear; 0 when absent)
///   idf(t)    = ln((1 + n) / (1 + df(t))) + 1                 (n training documents, df(t)
///                                                              of them contain t)
///   row(d)    = tf · idf / ‖tf · idf‖₂                       (a row without known terms stays 0)
/// The columns are the terms of the training documents in ascending order; a term no
/// training document has is not a column (its weight in a fitted model would be 0 anyway).
/// A plain value; const members are thread-safe.
class TfidfVectorizer
{
public:
    /// Fits the vocabulary and idf on `train`.
    void fit(const std::vector<BagOfWordsDocument> &train);
    /// Returns the L2-normalised TF-IDF row of `doc` (unknown terms dropped).
    SparseRow transform(const BagOfWordsDocument &doc) const;

    int32_t numColumns() const { return int32_t(m_terms.size()); }
    /// The term of each column (ascending) and its idf.
    const std::vector<uint32_t> &terms() const { return m_terms; }
    const std::vector<double> &idf() const { return m_idf; }

private:
    std::vector<uint32_t> m_terms;
    std::vector<double> m_idf;
};

/// The inverse regularisation strengths the baseline chooses among by cross-validation: a
/// decade apart, from heavily regularised (0.01) to nearly unregularised (1000).
inline constexpr double kBagOfWordsCGrid[] = {0.01, 0.1, 1.0, 10.0, 100.0, 1000.0};
/// Folds of the cross-validation that chooses C.
inline constexpr int kBagOfWordsFolds = 5;
/// At most this many training examples take part in choosing C (an evenly spaced subset of a
/// larger train split, so that prepare stays fast); the final fit uses them all.
inline constexpr int64_t kBagOfWordsCvMaxExamples = 10000;

/// liblinear's settings for the baseline (liblinear README, "train" options -s 0 -c C -e eps -B 1).
struct BagOfWordsOptions
{
    /// Inverse regularisation strength (liblinear's -c); 0 (the default): chosen from
    /// kBagOfWordsCGrid by stratified kBagOfWordsFolds-fold cross-validation on the train split
    /// (the C of the best mean accuracy; the smallest such C on a tie), as a careful baseline
    /// does: one fixed C is itself a constant classifier on some data sets.
    double C = 0.0;
    double eps = 0.01;    ///< stopping tolerance of the primal solver (liblinear's default for -s 0)
};

/// What the baseline scored; prepare_report.json's bag_of_words_baseline. A plain value.
struct BagOfWordsBaseline
{
    /// Empty when the baseline was fitted; otherwise why not, in words for the user
    /// ("the training set has only one label (ham) …"), and the numbers stay NaN/0.
    std::string error;
    double eval_accuracy = std::numeric_limits<double>::quiet_NaN();  ///< in [0, 1]
    /// Unweighted mean over the num_labels classes of the per-class F1 (0 for a class
    /// without predictions and examples), as the training run's eval_macro_f1.
    double eval_macro_f1 = std::numeric_limits<double>::quiet_NaN();
    int64_t train_examples = 0;
    int64_t eval_examples = 0;
    int64_t num_features = 0;  ///< TF-IDF columns (distinct terms of the train split)
    double C = 1.0;            ///< the C fitted (given, or chosen by cross-validation)
    /// How C was set: "given", or "5-fold cross-validation on the train split" (with the
    /// subset's size when kBagOfWordsCvMaxExamples limited it), or "1: too few examples of each
    /// label to cross-validate" (C = 1 then); "" in reports of older versions.
    std::string C_chosen_by;
    /// The mean held-out accuracy of the chosen C in the cross-validation; NaN when C was given.
    double cv_accuracy = std::numeric_limits<double>::quiet_NaN();
    /// The label id the baseline predicts for every eval example when it predicts only one (it
    /// is itself a constant classifier, and no better than the majority label); -1 otherwise.
    int64_t constant_label = -1;
    double seconds = 0.0;      ///< wall time of features + fit + scoring (not in the file)
    /// Multi-label (fitMultiLabelBagOfWordsBaseline): one-vs-rest, a label predicted when its
    /// probability is at least `threshold` (0.5). Then eval_accuracy is the subset accuracy (the
    /// share of eval texts whose predicted label set is exactly right), eval_macro_f1 the mean
    /// of the per-label F1, and these hold the other scikit-learn metrics (f1_score average
    /// "micro" and "samples", hamming_loss; a 0/0 F1 counts 0 as scikit-learn's zero_division
    /// default), each in [0, 1]. NaN for single-label.
    bool multi_label = false;
    double threshold = 0.5;
    double eval_micro_f1 = std::numeric_limits<double>::quiet_NaN();
    double eval_samples_f1 = std::numeric_limits<double>::quiet_NaN();
    double eval_hamming_loss = std::numeric_limits<double>::quiet_NaN();
    /// Multi-label: labels the baseline could not fit (all train texts have it, or none): it
    /// predicts that constant for them.
    std::vector<int64_t> constant_labels;

    bool fitted() const { return error.empty(); }
};

/// Fits TF-IDF + liblinear's L2-regularised logistic regression (solver L2R_LR, the primal
/// trust-region Newton method; bias feature 1, -B 1; two labels: one model, more:
/// one-vs-rest, as liblinear does) on `train` and scores `eval` (predicted label: the
/// largest decision value). With options.C 0, C is chosen first (BagOfWordsOptions::C; the
/// folds are assigned by label in input order, the TF-IDF is the whole train split's, which
/// uses no label); the eval split plays no part in the choice. Deterministic: the solver draws no random numbers and the
/// features do not depend on the input order beyond the documents' order. Labels are ids in
/// [0, numLabels). Returns a result with `error` set, and no numbers, when train has fewer
/// than 2 distinct labels, eval is empty, or numLabels < 2. Thread-safe (liblinear's
/// console output is switched off once per process). Throws wb::Error only when `stop`
/// is requested ("cancelled").
BagOfWordsBaseline fitBagOfWordsBaseline(const std::vector<BagOfWordsDocument> &train,
                                         const std::vector<BagOfWordsDocument> &eval, int64_t numLabels,
                                         const BagOfWordsOptions &options = {}, const StopToken *stop = nullptr);

/// The multi-label baseline: the same TF-IDF, and per label a binary L2R_LR (one-vs-rest, as
/// scikit-learn's OneVsRestClassifier), with a label predicted at probability >= 0.5. Documents
/// carry `label_set` (numLabels values). With options.C 0, one C for all labels is chosen from
/// kBagOfWordsCGrid by kBagOfWordsFolds-fold cross-validation (folds by position, on at most
/// kBagOfWordsCvMaxExamples texts) maximising micro-F1; with more than kBagOfWordsCvMaxLabels labels C
/// is 1. Returns a result with `error` set when numLabels < 2, train is empty or every label is
/// constant in train, or eval is empty. Deterministic; thread-safe. Throws wb::Error for a
/// label_set of the wrong length, or when `stop` is requested ("cancelled").
BagOfWordsBaseline fitMultiLabelBagOfWordsBaseline(const std::vector<BagOfWordsDocument> &train,
                                                   const std::vector<BagOfWordsDocument> &eval, int64_t numLabels,
                                                   const BagOfWordsOptions &options = {},
                                                   const StopToken *stop = nullptr);
/// More labels than this: the multi-label baseline does not cross-validate C (C = 1).
inline constexpr int64_t kBagOfWordsCvMaxLabels = 50;

/// Where the baseline reads prepared data: prepare's outputs (run_classifier's flag names).
struct PreparedDataPaths
{
    std::string train_data_path;      ///< train.tf_record
    std::string eval_data_path;       ///< eval.tf_record
    std::string input_meta_data_path; ///< input_meta_data.json (num_labels, max_seq_length)
};

/// The baseline of prepared data (`bert-workbench-cli baseline`): reads the meta data and
/// both record files, then fitBagOfWordsBaseline(). A regression task (num_labels 1) gives a
/// result with `error` set. Throws wb::Error naming the file (and record) for a missing
/// or bad file.
BagOfWordsBaseline bagOfWordsBaselineOfPreparedData(const PreparedDataPaths &paths,
                                                    const BagOfWordsOptions &options = {},
                                                    const StopToken *stop = nullptr);

/// Reads the documents of a TFRecord file of classifier records (checked against `spec`).
/// Throws wb::Error naming "<path>: record N" for a bad record.
std::vector<BagOfWordsDocument> readBagOfWordsDocuments(const std::string &path, const RecordSpec &spec);

} // namespace wb
