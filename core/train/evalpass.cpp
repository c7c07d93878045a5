// SPDX-License-Identifier: Apache-2.0
#include "core/train/evalpass.h"

#include "core/distribute/strategy.h"
#include "core/train/batching.h"
#include "core/train/evaluation.h"

#include <iomanip>
#include <sstream>

namespace wb {

std::string formatMetric(double v, int precision)
{
    std::ostringstream s;
    s << std::setprecision(precision) << v;
    return s.str();
}

EvalMetrics evaluate(nn::BertForSequenceClassification &model, ClassifierDataset &data, bool regression,
                     int64_t numLabels, std::vector<std::vector<float>> *outputs, Strategy *strategy,
                     EvalExampleOutputs *examples)
{
    torch::NoGradGuard guard;
    model->eval();
    data.reset();
    ClassifierBatch batch;
    double lossSum = 0;
    int64_t count = 0;
    std::vector<int64_t> labels, preds;
    std::vector<double> targets, values;
    const c10::Device device = model->parameters().front().device();
    while (data.next(batch)) {
        if (batch.size == 0)
            continue;
        BatchTensors t = onDevice(toTensors(batch), device);
        auto logits = model->forward(t.ids, t.mask, t.segments);
        lossSum += lossFor(logits, t, regression).item<double>() * double(batch.size);
        logits = logits.cpu(); // no-op on the CPU
        count += batch.size;
        if (regression) {
            auto v = logits.squeeze(-1).contiguous();
            const float *p = v.data_ptr<float>();
            for (int64_t k = 0; k < batch.size; ++k) {
                values.push_back(p[k]);
                targets.push_back(batch.label_values.empty() ? double(batch.label_ids[size_t(k)])
                                                             : double(batch.label_values[size_t(k)]));
                if (outputs)
                    outputs->push_back({p[k]});
            }
        } else {
            auto am = logits.argmax(-1).contiguous();
            const int64_t *p = am.data_ptr<int64_t>();
            for (int64_t k = 0; k < batch.size; ++k) {
                preds.push_back(p[k]);
                labels.push_back(batch.label_ids[size_t(k)]);
            }
            if (outputs || examples) {
                auto prob = torch::softmax(logits, -1).contiguous();
                const float *q = prob.data_ptr<float>();
                if (outputs)
                    for (int64_t k = 0; k < batch.size; ++k)
                        outputs->emplace_back(q + k * numLabels, q + (k + 1) * numLabels);
                if (examples) {
                    auto logp = torch::log_softmax(logits, -1).contiguous();
                    const float *lp = logp.data_ptr<float>();
                    const size_t len = size_t(batch.seq_length);
                    for (int64_t k = 0; k < batch.size; ++k) {
                        const int64_t label = batch.label_ids[size_t(k)];
                        examples->labels.push_back(label);
                        examples->probabilities.emplace_back(q + k * numLabels, q + (k + 1) * numLabels);
                        examples->losses.push_back(label >= 0 && label < numLabels ? -double(lp[k * numLabels + label])
                                                                                   : 0.0);
                        const auto from = size_t(k) * len;
                        examples->input_ids.emplace_back(batch.input_ids.begin() + long(from),
                                                         batch.input_ids.begin() + long(from + len));
                        examples->segment_ids.emplace_back(batch.segment_ids.begin() + long(from),
                                                           batch.segment_ids.begin() + long(from + len));
                    }
                }
            }
        }
    }
    model->train();
    if (strategy && strategy->worldSize() > 1) {
        // Sharded evaluation: combine the shards, then compute the metrics as one worker would.
        std::vector<double> sums{lossSum, double(count)};
        strategy->sumAcrossWorkers(sums);
        lossSum = sums[0];
        count = int64_t(sums[1]);
        strategy->gatherAcrossWorkers(labels);
        strategy->gatherAcrossWorkers(preds);
        strategy->gatherAcrossWorkers(targets);
        strategy->gatherAcrossWorkers(values);
    }
    EvalMetrics m;
    m.eval_loss = count ? lossSum / double(count) : 0.0;
    if (regression)
        computeRegressionMetrics(targets, values, m);
    else
        computeClassificationMetrics(labels, preds, numLabels, m);
    return m;
}

std::string evalLine(const EvalMetrics &m)
{
    std::string s = "Step: [" + std::to_string(m.step) + "] eval_loss = " + formatMetric(m.eval_loss);
    if (m.regression)
        s += ", eval_mse = " + formatMetric(m.eval_mse) + ", eval_pearson = " + formatMetric(m.eval_pearson)
             + ", eval_spearman = " + formatMetric(m.eval_spearman);
    else
        s += ", eval_accuracy = " + formatMetric(m.eval_accuracy);
    if (m.binary)
        s += ", eval_f1 = " + formatMetric(m.eval_f1) + ", eval_mcc = " + formatMetric(m.eval_mcc);
    return s + " (" + std::to_string(m.num_examples) + " examples)";
}

} // namespace wb
