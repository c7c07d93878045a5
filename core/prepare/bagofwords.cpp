// SPDX-License-Identifier: Apache-2.0
// The bag-of-words baseline: TF-IDF of the model's wordpieces + liblinear's L2-regularised
// logistic regression (liblinear 2.3, Debian's liblinear-dev; its README and linear.h
// describe struct problem, parameter and the -B bias feature used here).
#include "core/prepare/bagofwords.h"
#include "core/prepare/liblinearrows.h"

#include "core/config/diagnostics.h"
#include "core/config/inputmetadata.h"
#include "core/config/optionwords.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordreader.h"
#include "core/events/stoptoken.h"
#include "core/util/error.h"


#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>

namespace wb {

std::vector<uint32_t> bagOfWordsTerms(const ClassifierRecord &r)
{
    std::vector<uint32_t> terms;
    const size_t n = std::min({r.input_ids.size(), r.input_mask.size(), r.segment_ids.size()});
    // The positions the model sees: input_mask 1 (prepare writes them first, padding after).
    size_t end = 0;
    while (end < n && r.input_mask[end] != 0)
        ++end;
    // [CLS] a… [SEP] (b… [SEP]): position 0 and the last position of each segment are structural.
    for (size_t i = 1; i < end; ++i) {
        const bool segmentEnds = i + 1 == end || r.segment_ids[i + 1] != r.segment_ids[i];
        if (segmentEnds)
            continue;
        const int64_t id = r.input_ids[i];
        const int64_t segment = r.segment_ids[i] != 0 ? 1 : 0;
        if (id < 0 || id > int64_t(std::numeric_limits<uint32_t>::max() / 2 - 1))
            continue; // decodeClassifierRecord has checked the vocab range; nothing else to count
        terms.push_back(uint32_t(2 * id + segment));
    }
    return terms;
}

void TfidfVectorizer::fit(const std::vector<BagOfWordsDocument> &train)
{
    // Document frequency of each term: count each term once per document.
    std::vector<uint32_t> all;
    std::vector<uint32_t> unique;
    for (const BagOfWordsDocument &d : train) {
        unique = d.terms;
        std::sort(unique.begin(), unique.end());
        unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
        all.insert(all.end(), unique.begin(), unique.end());
    }
    std::sort(all.begin(), all.end());
    m_terms.clear();
    m_idf.clear();
    const double n = double(train.size());
    for (size_t i = 0; i < all.size();) {
        size_t j = i;
        while (j < all.size() && all[j] == all[i])
            ++j;
        m_terms.push_back(all[i]);
        m_idf.push_back(std::log((1.0 + n) / (1.0 + double(j - i))) + 1.0);
        i = j;
    }
}

SparseRow TfidfVectorizer::transform(const BagOfWordsDocument &doc) const
{
    std::vector<uint32_t> sorted = doc.terms;
    std::sort(sorted.begin(), sorted.end());
    SparseRow row;
    double norm2 = 0;
    for (size_t i = 0; i < sorted.size();) {
        size_t j = i;
        while (j < sorted.size() && sorted[j] == sorted[i])
            ++j;
        const auto it = std::lower_bound(m_terms.begin(), m_terms.end(), sorted[i]);
        if (it != m_terms.end() && *it == sorted[i]) {
            const size_t column = size_t(it - m_terms.begin());
            const double value = (1.0 + std::log(double(j - i))) * m_idf[column];
            row.emplace_back(int32_t(column), value);
            norm2 += value * value;
        }
        i = j;
    }
    if (norm2 > 0) {
        const double inv = 1.0 / std::sqrt(norm2);
        for (auto &cell : row)
            cell.second *= inv;
    }
    return row;
}

namespace {

// Why no baseline can be fitted ("" when it can): fewer than two labels, a training set of one
// label, no eval set. Throws wb::Error for a label id outside [0, numLabels) or a non-positive C
// or eps.
std::string whyNoBaseline(const std::vector<BagOfWordsDocument> &train, const std::vector<BagOfWordsDocument> &eval,
                          int64_t numLabels, const BagOfWordsOptions &options)
{
    std::set<int64_t> trainLabels;
    for (const BagOfWordsDocument &d : train)
        trainLabels.insert(d.label);
    if (numLabels < 2)
        return "the task has " + std::to_string(numLabels) + " label(s); a classifier needs at least 2";
    if (trainLabels.size() < 2)
        return trainLabels.empty() ? std::string("the training set is empty")
                                   : "every training example has the same label (id " + std::to_string(*trainLabels.begin())
                                         + "); a classifier needs examples of at least 2 labels";
    if (eval.empty())
        return "there is no eval set to score it on (set eval_fraction above 0, or add a dev file)";
    for (const auto *docs : {&train, &eval})
        for (const BagOfWordsDocument &d : *docs)
            if (d.label < 0 || d.label >= numLabels)
                throw Error("label_ids", "a label id is " + std::to_string(d.label) + ", outside [0, "
                                             + std::to_string(numLabels) + ")",
                            "prepare the data again");
    if (!(options.C >= 0) || !(options.eps > 0))
        throw Error("C", "C must be positive (or 0: chosen by cross-validation) and eps positive",
                    "the defaults are C = 0 (chosen), eps = 0.01");
    return {};
}

// L2-regularised logistic regression (liblinear's L2R_LR, with a bias feature) on `trainRows`.
// `rows` are the liblinear rows of `train` (LiblinearRows::pointers, or a subset of them in
// the same order as `labels`).
LiblinearModel fitLogisticRegression(const std::vector<int64_t> &labels,
                                                           std::vector<feature_node *> &rows, int numColumns,
                                                           double C, double eps)
{
    std::vector<double> y(labels.begin(), labels.end());
    problem prob{};
    prob.l = int(labels.size());
    prob.n = numColumns + 1; // + the bias feature
    prob.y = y.data();
    prob.x = rows.data();
    prob.bias = 1.0;
    parameter param{};
    param.solver_type = L2R_LR;
    param.C = C;
    param.eps = eps;
    param.nr_weight = 0;
    param.weight_label = nullptr;
    param.weight = nullptr;
    param.p = 0.1;
    param.init_sol = nullptr;
    if (const char *bad = check_parameter(&prob, &param))
        throw Error("bag_of_words_baseline", std::string("liblinear refused its parameters: ") + bad);
    LiblinearModel fitted(::train(&prob, &param));
    if (!fitted)
        throw Error("bag_of_words_baseline", "liblinear did not return a model");
    return fitted;
}

/// The C of kBagOfWordsCGrid with the best mean held-out accuracy in stratified k-fold
/// cross-validation on `train` (at most kBagOfWordsCvMaxExamples of it, evenly spaced): the
/// examples of each label in input order go to folds 0, 1, …, k−1, 0, …; a fold without
/// examples of two labels in its training part is skipped. Sets out.C, out.C_chosen_by and
/// out.cv_accuracy. Deterministic.
void chooseC(const std::vector<BagOfWordsDocument> &train, const LiblinearRows &trainRows, int numColumns, double eps,
             const std::function<void()> &throwIfStopped, BagOfWordsBaseline &out)
{
    const size_t n = train.size();
    const size_t used = std::min<size_t>(n, size_t(kBagOfWordsCvMaxExamples));
    // The folds, built once for every C: each one's training rows and its held-out examples.
    struct Fold
    {
        std::vector<int64_t> labels;
        std::vector<feature_node *> rows;
        std::vector<size_t> heldOut; // indices into train
    };
    std::vector<Fold> folds(kBagOfWordsFolds);
    std::map<int64_t, int> seen; // per label: how many of its examples have a fold
    for (size_t i = 0; i < used; ++i) {
        const size_t example = used == n ? i : size_t(double(i) * double(n) / double(used));
        const int f = seen[train[example].label]++ % kBagOfWordsFolds;
        folds[size_t(f)].heldOut.push_back(example);
        for (int other = 0; other < kBagOfWordsFolds; ++other)
            if (other != f) {
                folds[size_t(other)].labels.push_back(train[example].label);
                folds[size_t(other)].rows.push_back(trainRows.pointers[example]);
            }
    }
    // A fold whose training part holds one label only, or that holds nothing out, cannot score a C.
    folds.erase(std::remove_if(folds.begin(), folds.end(),
                               [](const Fold &f) {
                                   return f.heldOut.empty()
                                          || std::set<int64_t>(f.labels.begin(), f.labels.end()).size() < 2;
                               }),
                folds.end());
    if (folds.empty()) {
        out.C = 1.0;
        out.C_chosen_by = "1: too few examples of each label to cross-validate";
        return;
    }
    double bestAccuracy = -1;
    for (const double C : kBagOfWordsCGrid) {
        int64_t correct = 0, scored = 0;
        for (Fold &f : folds) {
            const auto fitted = fitLogisticRegression(f.labels, f.rows, numColumns, C, eps);
            for (const size_t i : f.heldOut)
                correct += int64_t(std::lround(::predict(fitted.get(), trainRows.pointers[i]))) == train[i].label;
            scored += int64_t(f.heldOut.size());
            throwIfStopped();
        }
        const double accuracy = double(correct) / double(scored);
        if (accuracy > bestAccuracy + 1e-12) { // a tie keeps the smaller C
            bestAccuracy = accuracy;
            out.C = C;
        }
    }
    out.cv_accuracy = bestAccuracy;
    out.C_chosen_by = std::to_string(kBagOfWordsFolds) + "-fold cross-validation on the train split";
    if (used < n)
        out.C_chosen_by += " (" + std::to_string(used) + " of its " + std::to_string(n) + " examples)";
}

// Eval accuracy and macro-F1 (the mean over labels of 2·TP / (predicted + actual)) of `fitted`.
void score(const model &fitted, const std::vector<BagOfWordsDocument> &eval, const LiblinearRows &evalRows,
           int64_t numLabels, BagOfWordsBaseline &out)
{
    std::vector<std::vector<int64_t>> confusion(size_t(numLabels), std::vector<int64_t>(size_t(numLabels), 0));
    int64_t correct = 0;
    std::set<int64_t> predictedLabels;
    for (size_t i = 0; i < eval.size(); ++i) {
        const int64_t predicted = int64_t(std::lround(::predict(&fitted, evalRows.pointers[i])));
        const int64_t truth = eval[i].label;
        predictedLabels.insert(predicted);
        correct += predicted == truth;
        if (predicted >= 0 && predicted < numLabels)
            ++confusion[size_t(truth)][size_t(predicted)];
    }
    out.eval_accuracy = double(correct) / double(eval.size());
    out.constant_label = predictedLabels.size() == 1 ? *predictedLabels.begin() : -1;
    double f1Sum = 0;
    for (size_t c = 0; c < size_t(numLabels); ++c) {
        int64_t predictedAs = 0, actual = 0;
        for (size_t o = 0; o < size_t(numLabels); ++o) {
            predictedAs += confusion[o][c];
            actual += confusion[c][o];
        }
        const double denominator = double(predictedAs + actual);
        f1Sum += denominator > 0 ? 2.0 * double(confusion[c][c]) / denominator : 0.0;
    }
    out.eval_macro_f1 = f1Sum / double(numLabels);
}

} // namespace

BagOfWordsBaseline fitBagOfWordsBaseline(const std::vector<BagOfWordsDocument> &train,
                                         const std::vector<BagOfWordsDocument> &eval, int64_t numLabels,
                                         const BagOfWordsOptions &options, const StopToken *stop)
{
    const auto t0 = std::chrono::steady_clock::now();
    const std::function<void()> throwIfStopped = [stop] {
        if (stop && stop->stopRequested())
            throw Error("prepare", "cancelled", "Nothing was written.");
    };
    BagOfWordsBaseline out;
    out.train_examples = int64_t(train.size());
    out.eval_examples = int64_t(eval.size());
    out.C = options.C;
    out.C_chosen_by = "given";
    out.error = whyNoBaseline(train, eval, numLabels, options);
    if (!out.error.empty())
        return out;

    silenceLiblinear();
    TfidfVectorizer tfidf;
    tfidf.fit(train);
    out.num_features = tfidf.numColumns();
    LiblinearRows trainRows(tfidf, train);
    throwIfStopped();
    if (options.C == 0)
        chooseC(train, trainRows, tfidf.numColumns(), options.eps, throwIfStopped, out);
    std::vector<int64_t> labels;
    labels.reserve(train.size());
    for (const BagOfWordsDocument &d : train)
        labels.push_back(d.label);
    const LiblinearModel fitted =
        fitLogisticRegression(labels, trainRows.pointers, tfidf.numColumns(), out.C, options.eps);
    throwIfStopped();

    const LiblinearRows evalRows(tfidf, eval);
    score(*fitted, eval, evalRows, numLabels, out);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

std::vector<BagOfWordsDocument> readBagOfWordsDocuments(const std::string &path, const RecordSpec &spec)
{
    std::vector<BagOfWordsDocument> docs;
    TFRecordReader reader(path);
    std::string payload;
    ClassifierRecord rec;
    while (reader.read(payload)) {
        try {
            decodeClassifierRecord(payload, spec, rec);
        } catch (const Error &e) {
            throw Error(reader.location(), e.what(), e.hint());
        }
        docs.push_back({bagOfWordsTerms(rec), rec.label_id, rec.label_set});
    }
    return docs;
}

} // namespace wb

namespace wb {

BagOfWordsBaseline bagOfWordsBaselineOfPreparedData(const PreparedDataPaths &paths, const BagOfWordsOptions &options,
                                                    const StopToken *stop)
{
    const auto t0 = std::chrono::steady_clock::now();
    for (const auto &[flag, path] : {std::pair<const char *, const std::string &>{"train_data_path", paths.train_data_path},
                                     {"eval_data_path", paths.eval_data_path},
                                     {"input_meta_data_path", paths.input_meta_data_path}}) {
        // The command line passes a flag and names the command; the window fills in a field
        // and names its menu entry.
        const bool window = optionWording() == OptionWording::Window;
        if (path.empty())
            throw Error(flag, "no file was given",
                        (window ? PassOption(flag, "<file>") : PassOption(flag)) + " (or " + optionName("data_dir")
                            + ", the folder prepare wrote).");
        if (!std::filesystem::is_regular_file(path))
            throw Error(path, "the file does not exist",
                        "Prepare the data first ("
                            + (window ? commandName("prepare") : std::string("bert-workbench-cli prepare"))
                            + "), or check the path.");
    }
    Diagnostics diag;
    const auto meta = InputMetaData::load(paths.input_meta_data_path, diag);
    for (const Diagnostic &d : diag.items())
        if (d.severity == Severity::Error)
            throw Error(d.field, d.message, d.hint);
    if (!meta)
        throw Error(paths.input_meta_data_path, "cannot be read as input_meta_data.json", "Prepare the data again.");
    if (meta->isPretraining())
        throw Error(paths.input_meta_data_path, "is the meta data of pretraining records (task_type bert_pretraining)",
                    "The baseline is a classifier: give the meta data of classification data.");
    BagOfWordsBaseline out;
    if (meta->isRegression()) {
        out.error = "the task is a regression (num_labels 1); the bag-of-words baseline is a classifier";
        return out;
    }
    RecordSpec spec;
    spec.max_seq_length = meta->max_seq_length;
    spec.num_labels = meta->num_labels;
    spec.has_sample_weights = meta->has_sample_weights;
    spec.multi_label = meta->isMultiLabel();
    const auto train = readBagOfWordsDocuments(paths.train_data_path, spec);
    if (stop && stop->stopRequested())
        throw Error("baseline", "cancelled");
    const auto eval = readBagOfWordsDocuments(paths.eval_data_path, spec);
    out = spec.multi_label ? fitMultiLabelBagOfWordsBaseline(train, eval, meta->num_labels, options, stop)
                           : fitBagOfWordsBaseline(train, eval, meta->num_labels, options, stop);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace wb
