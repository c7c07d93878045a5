// SPDX-License-Identifier: Apache-2.0
#include "core/engine/evalpass.h"

#include "core/distribute/strategy.h"
#include "core/engine/batching.h"
#include "core/engine/evaluation.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace wb {

std::string formatMetric(double v, int precision)
{
    std::ostringstream s;
    s << std::setprecision(precision) << v;
    return s.str();
}

namespace {

/// One evaluation pass, in the steps evaluate() takes: forward each batch, collect its
/// regression values or class predictions (and the requested per-example outputs), combine
/// the shards of a multi-worker pass, compute the metrics.
/// The gathered rows (worker 0's, then worker 1's, …) back in the order of the evaluation
/// TFRecords: record r was read by worker r % W as its (r / W)-th example (ClassifierDataset's
/// round-robin shards), so row r of the result is row offset[r % W] + r / W. Counts that are
/// not a round-robin split leave the rows as they are.
std::vector<size_t> recordOrder(const std::vector<int64_t> &counts)
{
    const size_t workers = counts.size();
    int64_t total = 0;
    std::vector<size_t> offset;
    for (int64_t n : counts) {
        offset.push_back(size_t(total));
        total += n;
    }
    for (size_t w = 0; w < workers; ++w) // worker w holds ceil((total − w) / W) records
        if (counts[w] != (total - int64_t(w) + int64_t(workers) - 1) / int64_t(workers))
            return {};
    std::vector<size_t> order(static_cast<size_t>(total));
    for (size_t r = 0; r < order.size(); ++r)
        order[r] = offset[r % workers] + r / workers;
    return order;
}

template <typename Row>
void permuteRows(std::vector<Row> &rows, const std::vector<size_t> &order)
{
    if (rows.size() != order.size())
        return; // not kept (empty)
    std::vector<Row> sorted;
    sorted.reserve(rows.size());
    for (size_t from : order)
        sorted.push_back(std::move(rows[from]));
    rows = std::move(sorted);
}

void putInRecordOrder(EvalExampleOutputs &e, const std::vector<int64_t> &counts)
{
    const std::vector<size_t> order = counts.size() > 1 ? recordOrder(counts) : std::vector<size_t>{};
    if (order.empty())
        return;
    permuteRows(e.labels, order);
    permuteRows(e.probabilities, order);
    permuteRows(e.losses, order);
    permuteRows(e.input_ids, order);
    permuteRows(e.segment_ids, order);
    permuteRows(e.label_sets, order);
    permuteRows(e.label_probabilities, order);
    permuteRows(e.label_losses, order);
    if (e.pooled_width > 0 && e.pooled.size() == order.size() * size_t(e.pooled_width)) {
        std::vector<std::vector<float>> pooled;
        for (size_t k = 0; k < order.size(); ++k)
            pooled.emplace_back(e.pooled.begin() + long(k * size_t(e.pooled_width)),
                                e.pooled.begin() + long((k + 1) * size_t(e.pooled_width)));
        permuteRows(pooled, order);
        e.pooled.clear();
        for (const auto &row : pooled)
            e.pooled.insert(e.pooled.end(), row.begin(), row.end());
    }
}

class EvalPass
{
public:
    EvalPass(ProblemType problem, int64_t numLabels, std::vector<std::vector<float>> *outputs,
             EvalExampleOutputs *examples)
        : m_problem(problem), m_regression(problem == ProblemType::Regression), m_numLabels(numLabels),
          m_outputs(outputs), m_examples(examples)
    {
        m_multi.num_labels = numLabels;
    }

    void add(nn::BertForSequenceClassification &model, ClassifierBatch &batch, const c10::Device &device,
             const std::string &padding)
    {
        BatchTensors t = onDevice(toTensors(batch, padding), device);
        torch::Tensor logits;
        if (m_examples && m_examples->keep_pooled && !m_regression) {
            // The model's forward in eval mode (no dropout), keeping the pooled [CLS] vector.
            auto hidden = model->encoder->forward(model->embeddings->forward(t.ids, t.segments), t.mask);
            auto pooled = torch::tanh(model->pooler->forward(hidden.select(1, 0)));
            logits = model->classifier->forward(pooled).to(torch::kFloat);
            auto rows = pooled.to(torch::kFloat).cpu().contiguous();
            m_examples->pooled_width = rows.size(1);
            const float *p = rows.data_ptr<float>();
            m_examples->pooled.insert(m_examples->pooled.end(), p, p + rows.numel());
        } else {
            logits = model->forward(t.ids, t.mask, t.segments);
        }
        m_lossSum += lossFor(logits, t, m_problem).item<double>() * double(batch.size);
        logits = logits.cpu(); // no-op on the CPU
        m_count += batch.size;
        if (!batch.teacher_logits.empty())
            addAgreement(logits, batch);
        if (m_problem == ProblemType::MultiLabel)
            addMultiLabel(logits, batch);
        else if (m_regression)
            addRegression(logits, batch);
        else
            addClassification(logits, batch);
    }

    /// Sharded evaluation: combine the shards, so that the metrics are computed as one worker would.
    void combine(Strategy &strategy)
    {
        std::vector<double> sums{m_lossSum, double(m_count), m_agreed, m_decisions};
        strategy.sumAcrossWorkers(sums);
        m_lossSum = sums[0];
        m_count = int64_t(sums[1]);
        m_agreed = sums[2];
        m_decisions = sums[3];
        strategy.gatherAcrossWorkers(m_labels);
        strategy.gatherAcrossWorkers(m_preds);
        strategy.gatherAcrossWorkers(m_targets);
        strategy.gatherAcrossWorkers(m_values);
        if (m_problem == ProblemType::MultiLabel) {
            strategy.gatherAcrossWorkers(m_multi.truth);
            std::vector<double> probs(m_multi.probabilities.begin(), m_multi.probabilities.end()); // exact in double
            strategy.gatherAcrossWorkers(probs);
            m_multi.probabilities.assign(probs.begin(), probs.end());
        }
        if (m_examples && !m_regression)
            combineExamples(strategy);
    }

    /// Every worker's examples, in rank order, on every worker (the chief writes them:
    /// eval_examples.jsonl of a multi-worker run holds the whole evaluation set).
    void combineExamples(Strategy &strategy)
    {
        EvalExampleOutputs &e = *m_examples;
        std::vector<int64_t> counts{int64_t(e.losses.size())}; // each worker's examples, by rank
        strategy.gatherAcrossWorkers(counts);
        strategy.gatherAcrossWorkers(e.labels);
        strategy.gatherAcrossWorkers(e.losses);
        const auto gatherRows = [&strategy](auto &rows, auto flat, size_t width) {
            for (const auto &r : rows)
                flat.insert(flat.end(), r.begin(), r.end());
            strategy.gatherAcrossWorkers(flat);
            rows.clear();
            for (size_t from = 0; width > 0 && from + width <= flat.size(); from += width)
                rows.emplace_back(flat.begin() + long(from), flat.begin() + long(from + width));
        };
        std::vector<std::vector<double>> probs;
        for (const auto &p : e.probabilities)
            probs.emplace_back(p.begin(), p.end());
        gatherRows(probs, std::vector<double>{}, size_t(m_numLabels));
        e.probabilities.clear();
        for (const auto &p : probs)
            e.probabilities.emplace_back(p.begin(), p.end());
        if (m_problem == ProblemType::MultiLabel) {
            gatherRows(e.label_probabilities, std::vector<double>{}, size_t(m_numLabels));
            gatherRows(e.label_losses, std::vector<double>{}, size_t(m_numLabels));
            std::vector<std::vector<int64_t>> hot; // the sets travel multi-hot (fixed width)
            for (const auto &set : e.label_sets) {
                hot.emplace_back(size_t(m_numLabels), 0);
                for (int64_t id : set)
                    hot.back()[size_t(id)] = 1;
            }
            gatherRows(hot, std::vector<int64_t>{}, size_t(m_numLabels));
            e.label_sets.clear();
            for (const auto &row : hot) {
                e.label_sets.emplace_back();
                for (size_t j = 0; j < row.size(); ++j)
                    if (row[j])
                        e.label_sets.back().push_back(int64_t(j));
            }
        }
        if (e.keep_pooled) {
            std::vector<double> flat(e.pooled.begin(), e.pooled.end()); // float32 values, exact in double
            std::vector<int64_t> widths{e.pooled_width};
            strategy.gatherAcrossWorkers(widths);
            strategy.gatherAcrossWorkers(flat);
            e.pooled.assign(flat.begin(), flat.end());
            e.pooled_width = *std::max_element(widths.begin(), widths.end());
        }
        if (e.keep_tokens) {
            // Every worker pads to the same max_seq_length; the width travels with the data.
            std::vector<int64_t> widths{e.input_ids.empty() ? 0 : int64_t(e.input_ids.front().size())};
            strategy.gatherAcrossWorkers(widths);
            const int64_t width = *std::max_element(widths.begin(), widths.end());
            gatherRows(e.input_ids, std::vector<int64_t>{}, size_t(width));
            gatherRows(e.segment_ids, std::vector<int64_t>{}, size_t(width));
        }
        putInRecordOrder(e, counts);
    }

    EvalMetrics metrics() const
    {
        EvalMetrics m;
        m.eval_loss = m_count ? m_lossSum / double(m_count) : 0.0;
        if (m_problem == ProblemType::MultiLabel)
            computeMultiLabelMetrics(m_multi, m);
        else if (m_regression)
            computeRegressionMetrics(m_targets, m_values, m);
        else
            computeClassificationMetrics(m_labels, m_preds, m_numLabels, m);
        if (m_decisions > 0) {
            m.distilled = true;
            m.eval_teacher_agreement = m_agreed / m_decisions;
        }
        return m;
    }

private:
    /// Distillation data: how often the model decides as its teacher did — the same argmax
    /// (single-label), the same side of 0.5 for each label (multi-label); regression has no
    /// decision to agree on.
    void addAgreement(const torch::Tensor &logits, const ClassifierBatch &batch)
    {
        const int64_t width = int64_t(batch.teacher_logits.size()) / std::max<int64_t>(batch.size, 1);
        const auto z = logits.to(torch::kFloat).reshape({batch.size, -1}).contiguous();
        const float *s = z.data_ptr<float>(), *t = batch.teacher_logits.data();
        if (m_regression || z.size(1) != width)
            return;
        for (int64_t k = 0; k < batch.size; ++k) {
            const float *sk = s + k * width, *tk = t + k * width;
            if (m_problem == ProblemType::MultiLabel) {
                for (int64_t j = 0; j < width; ++j)
                    m_agreed += (sk[j] >= 0) == (tk[j] >= 0) ? 1.0 : 0.0;
                m_decisions += double(width);
            } else {
                m_agreed += std::max_element(sk, sk + width) - sk == std::max_element(tk, tk + width) - tk ? 1.0 : 0.0;
                m_decisions += 1.0;
            }
        }
    }

    void addMultiLabel(const torch::Tensor &logits, const ClassifierBatch &batch)
    {
        auto prob = torch::sigmoid(logits.to(torch::kFloat)).contiguous();
        const float *q = prob.data_ptr<float>();
        m_multi.probabilities.insert(m_multi.probabilities.end(), q, q + batch.size * m_numLabels);
        for (float v : batch.label_sets)
            m_multi.truth.push_back(v != 0.0f ? 1 : 0);
        if (m_outputs)
            for (int64_t k = 0; k < batch.size; ++k)
                m_outputs->emplace_back(q + k * m_numLabels, q + (k + 1) * m_numLabels);
        if (m_examples)
            addMultiLabelExamples(logits, batch, q);
    }

    /// Each example's label set, sigmoids and per-label binary cross-entropy, in float64 from
    /// the float32 logits x (targets y in {0, 1}): p = σ(x), loss = max(x, 0) − x·y + log1p(e^−|x|)
    /// (= −[y log p + (1 − y) log(1 − p)] without its rounding for |x| large: BCEWithLogits).
    void addMultiLabelExamples(const torch::Tensor &logits, const ClassifierBatch &batch, const float *q)
    {
        auto x64 = logits.to(torch::kDouble).contiguous();
        const double *x = x64.data_ptr<double>();
        for (int64_t k = 0; k < batch.size; ++k) {
            std::vector<int64_t> set;
            std::vector<double> probs, losses;
            double sum = 0;
            for (int64_t j = 0; j < m_numLabels; ++j) {
                const size_t at = size_t(k * m_numLabels + j);
                const double y = batch.label_sets[at] != 0.0f ? 1.0 : 0.0, v = x[at];
                if (y != 0.0)
                    set.push_back(j);
                probs.push_back(v >= 0 ? 1.0 / (1.0 + std::exp(-v)) : std::exp(v) / (1.0 + std::exp(v)));
                losses.push_back(std::max(v, 0.0) - v * y + std::log1p(std::exp(-std::abs(v))));
                sum += losses.back();
            }
            m_examples->label_sets.push_back(std::move(set));
            m_examples->probabilities.emplace_back(q + k * m_numLabels, q + (k + 1) * m_numLabels);
            m_examples->label_probabilities.push_back(std::move(probs));
            m_examples->label_losses.push_back(std::move(losses));
            m_examples->losses.push_back(m_numLabels > 0 ? sum / double(m_numLabels) : 0.0);
            addTokens(batch, k);
        }
    }

    /// Example `k`'s input_ids and segment_ids (padding included), when keep_tokens.
    void addTokens(const ClassifierBatch &batch, int64_t k)
    {
        if (!m_examples->keep_tokens)
            return;
        const size_t len = size_t(batch.seq_length), from = size_t(k) * len;
        m_examples->input_ids.emplace_back(batch.input_ids.begin() + long(from), batch.input_ids.begin() + long(from + len));
        m_examples->segment_ids.emplace_back(batch.segment_ids.begin() + long(from),
                                             batch.segment_ids.begin() + long(from + len));
    }

    void addRegression(const torch::Tensor &logits, const ClassifierBatch &batch)
    {
        auto v = logits.squeeze(-1).contiguous();
        const float *p = v.data_ptr<float>();
        for (int64_t k = 0; k < batch.size; ++k) {
            m_values.push_back(p[k]);
            const double target = batch.label_values.empty() ? double(batch.label_ids[size_t(k)])
                                                             : double(batch.label_values[size_t(k)]);
            m_targets.push_back(target);
            if (m_outputs)
                m_outputs->push_back({p[k]});
            if (m_examples)
                m_examples->values.push_back(target);
        }
    }

    void addClassification(const torch::Tensor &logits, const ClassifierBatch &batch)
    {
        auto am = logits.argmax(-1).contiguous();
        const int64_t *p = am.data_ptr<int64_t>();
        for (int64_t k = 0; k < batch.size; ++k) {
            m_preds.push_back(p[k]);
            m_labels.push_back(batch.label_ids[size_t(k)]);
        }
        if (!m_outputs && !m_examples)
            return;
        auto prob = torch::softmax(logits, -1).contiguous();
        const float *q = prob.data_ptr<float>();
        if (m_outputs)
            for (int64_t k = 0; k < batch.size; ++k)
                m_outputs->emplace_back(q + k * m_numLabels, q + (k + 1) * m_numLabels);
        if (m_examples)
            addExamples(logits, batch, q);
    }

    void addExamples(const torch::Tensor &logits, const ClassifierBatch &batch, const float *q)
    {
        auto logp = torch::log_softmax(logits, -1).contiguous();
        const float *lp = logp.data_ptr<float>();
        for (int64_t k = 0; k < batch.size; ++k) {
            const int64_t label = batch.label_ids[size_t(k)];
            m_examples->labels.push_back(label);
            m_examples->probabilities.emplace_back(q + k * m_numLabels, q + (k + 1) * m_numLabels);
            m_examples->losses.push_back(label >= 0 && label < m_numLabels ? -double(lp[k * m_numLabels + label]) : 0.0);
            addTokens(batch, k);
        }
    }

    ProblemType m_problem;
    bool m_regression;
    int64_t m_numLabels;
    std::vector<std::vector<float>> *m_outputs;
    EvalExampleOutputs *m_examples;
    double m_lossSum = 0;
    int64_t m_count = 0;
    double m_agreed = 0, m_decisions = 0; ///< distillation: decisions the same as the teacher's, of all
    std::vector<int64_t> m_labels, m_preds;
    std::vector<double> m_targets, m_values;
    MultiLabelOutputs m_multi;
};

} // namespace

EvalMetrics evaluate(nn::BertForSequenceClassification &model, ClassifierDataset &data, ProblemType problem,
                     int64_t numLabels, std::vector<std::vector<float>> *outputs, Strategy *strategy,
                     EvalExampleOutputs *examples, const std::string &padding)
{
    torch::NoGradGuard guard;
    model->eval();
    data.reset();
    EvalPass pass(problem, numLabels, outputs, examples);
    const c10::Device device = model->parameters().front().device();
    ClassifierBatch batch;
    while (data.next(batch))
        if (batch.size > 0)
            pass.add(model, batch, device, padding);
    model->train();
    if (strategy && strategy->worldSize() > 1)
        pass.combine(*strategy);
    return pass.metrics();
}

std::string evalLine(const EvalMetrics &m)
{
    std::string s = "Step: [" + std::to_string(m.step) + "] eval_loss = " + formatMetric(m.eval_loss);
    if (m.regression)
        s += ", eval_mse = " + formatMetric(m.eval_mse) + ", eval_pearson = " + formatMetric(m.eval_pearson)
             + ", eval_spearman = " + formatMetric(m.eval_spearman);
    else if (m.multi_label)
        s += ", eval_micro_f1 = " + formatMetric(m.eval_micro_f1) + ", eval_samples_f1 = "
             + formatMetric(m.eval_samples_f1) + ", eval_hamming_loss = " + formatMetric(m.eval_hamming_loss)
             + ", eval_accuracy (subset) = " + formatMetric(m.eval_accuracy);
    else
        s += ", eval_accuracy = " + formatMetric(m.eval_accuracy);
    const auto name = [&m](int64_t id) {
        return id >= 0 && size_t(id) < m.label_names.size() ? m.label_names[size_t(id)] : "label " + std::to_string(id);
    };
    if (m.binary)
        s += ", eval_f1 = " + formatMetric(m.eval_f1) + " (positive class: " + name(m.positive_label)
             + "), eval_mcc = " + formatMetric(m.eval_mcc);
    if (!m.regression && !m.class_f1.empty())
        s += ", macro_f1 = " + formatMetric(m.eval_macro_f1);
    if (m.multi_label) // the tuned thresholds' gain, measured on texts they were not tuned on
        s += " at threshold 0.5; with tuned thresholds (cross-fitted) micro_f1 = " + formatMetric(m.eval_micro_f1_tuned)
             + ", macro_f1 = " + formatMetric(m.eval_macro_f1_tuned);
    if (m.distilled)
        s += ", teacher_agreement = " + formatMetric(m.eval_teacher_agreement);
    s += " (" + std::to_string(m.num_examples) + " examples)";
    // Per class, one line each: "  spam: precision = 0.9, recall = 0.8, f1 = 0.85 (12 examples)".
    for (size_t k = 0; !m.regression && k < m.class_f1.size(); ++k)
        s += "\n  " + name(int64_t(k)) + ": precision = " + formatMetric(k < m.class_precision.size() ? m.class_precision[k] : 0)
             + ", recall = " + formatMetric(k < m.class_recall.size() ? m.class_recall[k] : 0) + ", f1 = "
             + formatMetric(m.class_f1[k]) + " (" + std::to_string(k < m.class_support.size() ? m.class_support[k] : 0)
             + " examples)"
             + (k < m.thresholds.size() ? ", threshold = " + formatMetric(m.thresholds[k], 3) : std::string());
    return s;
}

} // namespace wb
