// SPDX-License-Identifier: Apache-2.0
// The multi-label bag-of-words baseline: TF-IDF (bagofwords.h) and one binary L2-regularised
// logistic regression per label (liblinear's L2R_LR with probability outputs; one-vs-rest as
// scikit-learn's OneVsRestClassifier), scored with scikit-learn's multi-label metrics
// (f1_score average micro / macro / samples, hamming_loss, accuracy_score = subset accuracy).
#include "core/prepare/bagofwords.h"
#include "core/prepare/liblinearrows.h"

#include "core/events/stoptoken.h"
#include "core/util/error.h"


#include <chrono>
#include <cmath>
#include <functional>
#include <memory>

namespace wb {

namespace {

// One binary model of label `label` on the rows `which` of `x`; null when the label is constant
// there (then `constant` is its value).
LiblinearModel fitLabel(const std::vector<BagOfWordsDocument> &docs, const std::vector<feature_node *> &x,
                  const std::vector<size_t> &which, size_t label, int columns, double C, double eps, int &constant)
{
    std::vector<double> y;
    std::vector<feature_node *> rows;
    int ones = 0;
    for (const size_t i : which) {
        y.push_back(double(docs[i].label_set[label]));
        ones += docs[i].label_set[label] != 0 ? 1 : 0;
        rows.push_back(x[i]);
    }
    if (ones == 0 || ones == int(which.size())) {
        constant = ones == 0 ? 0 : 1;
        return nullptr;
    }
    problem prob{};
    prob.l = int(y.size());
    prob.n = columns + 1;
    prob.y = y.data();
    prob.x = rows.data();
    prob.bias = 1.0;
    parameter param{};
    param.solver_type = L2R_LR;
    param.C = C;
    param.eps = eps;
    param.p = 0.1;
    if (const char *bad = check_parameter(&prob, &param))
        throw Error("bag_of_words_baseline", std::string("liblinear refused its parameters: ") + bad);
    LiblinearModel m(::train(&prob, &param));
    if (!m)
        throw Error("bag_of_words_baseline", "liblinear did not return a model");
    return m;
}

// P(label = 1 | x) of a binary model (liblinear orders its labels by first appearance).
double probabilityOfOne(const model &m, const feature_node *x)
{
    int labels[2] = {0, 0};
    get_labels(&m, labels);
    double p[2] = {0, 0};
    predict_probability(&m, x, p);
    return labels[0] == 1 ? p[0] : p[1];
}

// Counts of the multi-label metrics over predicted / true sets.
struct Tally
{
    std::vector<int64_t> tp, fp, fn;
    double samplesF1 = 0;
    int64_t exact = 0, wrongCells = 0, texts = 0;

    explicit Tally(size_t labels) : tp(labels, 0), fp(labels, 0), fn(labels, 0) {}

    void add(const std::vector<int64_t> &truth, const std::vector<int> &predicted)
    {
        int64_t both = 0, nTrue = 0, nPred = 0, wrong = 0;
        for (size_t l = 0; l < tp.size(); ++l) {
            const bool t = truth[l] != 0, p = predicted[l] != 0;
            tp[l] += t && p;
            fp[l] += !t && p;
            fn[l] += t && !p;
            both += t && p;
            nTrue += t;
            nPred += p;
            wrong += t != p;
        }
        samplesF1 += nTrue + nPred > 0 ? 2.0 * double(both) / double(nTrue + nPred) : 0.0;
        exact += wrong == 0;
        wrongCells += wrong;
        ++texts;
    }

    double microF1() const
    {
        int64_t t = 0, f = 0;
        for (size_t l = 0; l < tp.size(); ++l) {
            t += tp[l];
            f += fp[l] + fn[l];
        }
        return 2 * t + f > 0 ? 2.0 * double(t) / double(2 * t + f) : 0.0;
    }

    double macroF1() const
    {
        double sum = 0;
        for (size_t l = 0; l < tp.size(); ++l) {
            const int64_t d = 2 * tp[l] + fp[l] + fn[l];
            sum += d > 0 ? 2.0 * double(tp[l]) / double(d) : 0.0;
        }
        return sum / double(tp.size());
    }
};

// The models of every label fitted on rows `which`; constants in `constant` (-1: fitted).
std::vector<LiblinearModel> fitAll(const std::vector<BagOfWordsDocument> &docs, const std::vector<feature_node *> &x,
                             const std::vector<size_t> &which, size_t numLabels, int columns, double C, double eps,
                             std::vector<int> &constant, const std::function<void()> &throwIfStopped)
{
    std::vector<LiblinearModel> models;
    constant.assign(numLabels, -1);
    for (size_t l = 0; l < numLabels; ++l) {
        models.push_back(fitLabel(docs, x, which, l, columns, C, eps, constant[l]));
        throwIfStopped();
    }
    return models;
}

std::vector<int> predictSet(const std::vector<LiblinearModel> &models, const std::vector<int> &constant,
                            const feature_node *x, double threshold)
{
    std::vector<int> out(models.size(), 0);
    for (size_t l = 0; l < models.size(); ++l)
        out[l] = models[l] ? (probabilityOfOne(*models[l], x) >= threshold ? 1 : 0) : constant[l];
    return out;
}

// One C for all labels: the grid's best mean micro-F1 over folds by position.
void chooseMultiLabelC(const std::vector<BagOfWordsDocument> &train, const LiblinearRows &rows, size_t numLabels, int columns,
                       double eps, const std::function<void()> &throwIfStopped, BagOfWordsBaseline &out)
{
    const size_t n = train.size(), used = std::min<size_t>(n, size_t(kBagOfWordsCvMaxExamples));
    if (int64_t(numLabels) > kBagOfWordsCvMaxLabels || used < size_t(kBagOfWordsFolds)) {
        out.C = 1.0;
        out.C_chosen_by = int64_t(numLabels) > kBagOfWordsCvMaxLabels ? "1: too many labels to cross-validate"
                                                                      : "1: too few examples to cross-validate";
        return;
    }
    double best = -1;
    for (const double C : kBagOfWordsCGrid) {
        Tally tally(numLabels);
        for (int f = 0; f < kBagOfWordsFolds; ++f) {
            std::vector<size_t> fit, held;
            for (size_t k = 0; k < used; ++k)
                (int(k % size_t(kBagOfWordsFolds)) == f ? held : fit).push_back(used == n ? k : k * n / used);
            std::vector<int> constant;
            const auto models = fitAll(train, rows.pointers, fit, numLabels, columns, C, eps, constant, throwIfStopped);
            for (const size_t i : held)
                tally.add(train[i].label_set, predictSet(models, constant, rows.pointers[i], out.threshold));
        }
        if (tally.microF1() > best + 1e-12) { // a tie keeps the smaller C
            best = tally.microF1();
            out.C = C;
        }
    }
    out.cv_accuracy = best;
    out.C_chosen_by = std::to_string(kBagOfWordsFolds) + "-fold cross-validation on the train split (micro-F1)";
}

void checkLabelSets(const std::vector<BagOfWordsDocument> &docs, int64_t numLabels)
{
    for (const BagOfWordsDocument &d : docs)
        if (int64_t(d.label_set.size()) != numLabels)
            throw Error("label_ids", "a multi-label record has " + std::to_string(d.label_set.size())
                                         + " label values, expected num_labels = " + std::to_string(numLabels),
                        "prepare the data again");
}

} // namespace

BagOfWordsBaseline fitMultiLabelBagOfWordsBaseline(const std::vector<BagOfWordsDocument> &train,
                                                   const std::vector<BagOfWordsDocument> &eval, int64_t numLabels,
                                                   const BagOfWordsOptions &options, const StopToken *stop)
{
    const auto t0 = std::chrono::steady_clock::now();
    const std::function<void()> throwIfStopped = [stop] {
        if (stop && stop->stopRequested())
            throw Error("prepare", "cancelled", "Nothing was written.");
    };
    BagOfWordsBaseline out;
    out.multi_label = true;
    out.train_examples = int64_t(train.size());
    out.eval_examples = int64_t(eval.size());
    out.C = options.C;
    out.C_chosen_by = "given";
    if (numLabels < 2)
        out.error = "the task has " + std::to_string(numLabels) + " label(s); multi-label needs at least 2";
    else if (train.empty())
        out.error = "the training set is empty";
    else if (eval.empty())
        out.error = "there is no eval set to score it on (set eval_fraction above 0, or add a dev file)";
    if (!out.error.empty())
        return out;
    checkLabelSets(train, numLabels);
    checkLabelSets(eval, numLabels);
    silenceLiblinear();
    TfidfVectorizer tfidf;
    tfidf.fit(train);
    out.num_features = tfidf.numColumns();
    const LiblinearRows trainRows(tfidf, train), evalRows(tfidf, eval);
    const size_t L = size_t(numLabels);
    if (options.C == 0)
        chooseMultiLabelC(train, trainRows, L, tfidf.numColumns(), options.eps, throwIfStopped, out);
    std::vector<size_t> all(train.size());
    for (size_t i = 0; i < all.size(); ++i)
        all[i] = i;
    std::vector<int> constant;
    const auto models = fitAll(train, trainRows.pointers, all, L, tfidf.numColumns(), out.C, options.eps, constant,
                               throwIfStopped);
    for (size_t l = 0; l < L; ++l)
        if (constant[l] >= 0)
            out.constant_labels.push_back(int64_t(l));
    if (out.constant_labels.size() == L) {
        out.error = "every label is on all training texts or on none; there is nothing to fit";
        return out;
    }
    Tally tally(L);
    for (size_t i = 0; i < eval.size(); ++i)
        tally.add(eval[i].label_set, predictSet(models, constant, evalRows.pointers[i], out.threshold));
    out.eval_accuracy = double(tally.exact) / double(tally.texts);
    out.eval_macro_f1 = tally.macroF1();
    out.eval_micro_f1 = tally.microF1();
    out.eval_samples_f1 = tally.samplesF1 / double(tally.texts);
    out.eval_hamming_loss = double(tally.wrongCells) / double(tally.texts * int64_t(L));
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace wb
