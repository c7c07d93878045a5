// SPDX-License-Identifier: Apache-2.0
#include "core/engine/batching.h"

#include "core/distribute/strategy.h"

#include <algorithm>

namespace wb {

BatchTensors rowsOf(const BatchTensors &t, int64_t from, int64_t count)
{
    const auto cut = [&](const torch::Tensor &x) { return x.defined() ? x.narrow(0, from, count) : x; };
    return {cut(t.ids),     cut(t.mask),    cut(t.segments), cut(t.labels),  cut(t.values),
            cut(t.weights), cut(t.targets), cut(t.indices),  cut(t.teacher), cut(t.has_label)};
}

BatchTensors workerSlice(const BatchTensors &t, const Strategy &s)
{
    if (s.worldSize() == 1)
        return t;
    const int64_t b = t.ids.size(0) / s.worldSize();
    return rowsOf(t, b * s.rank(), b);
}

int64_t longestMarkedRow(const torch::Tensor &mask)
{
    const torch::Tensor m = mask.contiguous();
    const int64_t rows = m.size(0), width = m.size(1);
    const int64_t *p = m.data_ptr<int64_t>();
    int64_t longest = 1;
    for (int64_t r = 0; r < rows && longest < width; ++r)
        for (int64_t c = width - 1; c >= longest; --c)
            if (p[r * width + c] != 0) {
                longest = c + 1;
                break;
            }
    return longest;
}

BatchTensors trimmedToLongest(const BatchTensors &t)
{
    if (!t.mask.defined() || t.mask.dim() != 2 || t.mask.size(1) <= 1)
        return t;
    const int64_t longest = longestMarkedRow(t.mask);
    if (longest == t.mask.size(1))
        return t;
    BatchTensors cut = t;
    for (torch::Tensor *x : {&cut.ids, &cut.mask, &cut.segments})
        *x = x->narrow(1, 0, longest).contiguous();
    return cut;
}

BatchTensors toTensors(ClassifierBatch &b, const std::string &padding)
{
    BatchTensors t = toTensors(b);
    return padding == "longest" ? trimmedToLongest(t) : t;
}

BatchTensors onDevice(BatchTensors t, const c10::Device &device)
{
    if (device.is_cpu())
        return t;
    for (torch::Tensor *x : {&t.ids, &t.mask, &t.segments, &t.labels, &t.values, &t.weights, &t.targets, &t.teacher,
                            &t.has_label})
        if (x->defined())
            *x = x->to(device);
    return t;
}

BatchTensors toTensors(ClassifierBatch &b)
{
    BatchTensors t;
    const auto i64 = torch::TensorOptions().dtype(torch::kLong);
    const auto f32 = torch::TensorOptions().dtype(torch::kFloat);
    t.ids = torch::from_blob(b.input_ids.data(), {b.size, b.seq_length}, i64);
    t.mask = torch::from_blob(b.input_mask.data(), {b.size, b.seq_length}, i64);
    t.segments = torch::from_blob(b.segment_ids.data(), {b.size, b.seq_length}, i64);
    if (!b.label_ids.empty())
        t.labels = torch::from_blob(b.label_ids.data(), {b.size}, i64);
    if (!b.label_values.empty())
        t.values = torch::from_blob(b.label_values.data(), {b.size}, f32);
    if (!b.weights.empty())
        t.weights = torch::from_blob(b.weights.data(), {b.size}, f32);
    if (int64_t(b.record_indices.size()) == b.size)
        t.indices = torch::from_blob(b.record_indices.data(), {b.size}, i64);
    if (!b.teacher_logits.empty() && b.size > 0) {
        t.teacher = torch::from_blob(b.teacher_logits.data(), {b.size, int64_t(b.teacher_logits.size()) / b.size}, f32);
        t.has_label = torch::from_blob(b.has_label.data(), {b.size}, f32);
    }
    if (!b.label_sets.empty() && b.size > 0)
        t.targets = torch::from_blob(b.label_sets.data(), {b.size, int64_t(b.label_sets.size()) / b.size}, f32);
    return t;
}

torch::Tensor lossFor(const torch::Tensor &logits, const BatchTensors &t, ProblemType problem,
                      const torch::Tensor &posWeight)
{
    namespace F = torch::nn::functional;
    if (problem == ProblemType::MultiLabel) {
        auto options = F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(torch::kNone);
        if (posWeight.defined())
            options.pos_weight(posWeight);
        auto perLabel = F::binary_cross_entropy_with_logits(logits.to(torch::kFloat), t.targets, options);
        if (t.weights.defined())
            perLabel = perLabel * t.weights.unsqueeze(1);
        return perLabel.mean();
    }
    if (problem == ProblemType::SingleLabel)
        return F::cross_entropy(logits, t.labels);
    const torch::Tensor target = t.values.defined() ? t.values : t.labels.to(torch::kFloat);
    auto se = (logits.squeeze(-1) - target).pow(2);
    if (t.weights.defined())
        se = se * t.weights;
    return se.mean();
}

torch::Tensor distillationLossFor(const torch::Tensor &logits, const BatchTensors &t, ProblemType problem,
                                  double temperature, double alpha, const torch::Tensor &posWeight)
{
    namespace F = torch::nn::functional;
    const torch::Tensor z = logits.to(torch::kFloat);
    const double T = temperature;
    torch::Tensor soft; // per row, float32 [batch]
    if (problem == ProblemType::SingleLabel) {
        const torch::Tensor logP = torch::log_softmax(t.teacher / T, -1);
        soft = (logP.exp() * (logP - torch::log_softmax(z / T, -1))).sum(-1) * (T * T);
    } else if (problem == ProblemType::MultiLabel) {
        soft = F::binary_cross_entropy_with_logits(
                   z / T, torch::sigmoid(t.teacher / T),
                   F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(torch::kNone))
                   .mean(-1)
            * (T * T);
    } else {
        soft = (z.squeeze(-1) - t.teacher.squeeze(-1)).pow(2);
    }
    const torch::Tensor rowWeight = t.weights.defined() ? t.weights : torch::ones_like(soft);
    torch::Tensor loss = alpha * (soft * rowWeight).mean();
    if (alpha < 1.0) {
        // The hard term: lossFor's loss per row, over the labelled rows (weights applied by it).
        torch::Tensor perRow;
        if (problem == ProblemType::SingleLabel)
            perRow = F::cross_entropy(z, t.labels, F::CrossEntropyFuncOptions().reduction(torch::kNone));
        else if (problem == ProblemType::MultiLabel) {
            auto options = F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(torch::kNone);
            if (posWeight.defined())
                options.pos_weight(posWeight);
            perRow = F::binary_cross_entropy_with_logits(z, t.targets, options).mean(-1);
        } else {
            const torch::Tensor target = t.values.defined() ? t.values : t.labels.to(torch::kFloat);
            perRow = (z.squeeze(-1) - target).pow(2);
        }
        const torch::Tensor labelled = t.has_label * rowWeight;
        const torch::Tensor count = t.has_label.sum().clamp_min(1.0);
        loss = loss + (1.0 - alpha) * (perRow * labelled).sum() / count;
    }
    return loss;
}

torch::Tensor balancedPosWeight(DatasetOptions o, std::optional<int64_t> take)
{
    o.training = false;
    o.take = take;
    o.num_shards = 1;
    o.shard_index = 0;
    ClassifierDataset data(o);
    std::vector<double> positives(size_t(o.num_labels), 0.0);
    double rows = 0;
    ClassifierBatch b;
    while (data.next(b)) {
        for (size_t i = 0; i < b.label_sets.size(); ++i)
            positives[i % positives.size()] += b.label_sets[i];
        rows += double(b.size);
    }
    std::vector<float> w;
    for (double p : positives)
        w.push_back(p > 0 ? float(std::clamp((rows - p) / p, 1.0, 100.0)) : 1.0f);
    return torch::tensor(w, torch::kFloat);
}

DatasetOptions datasetOptions(const TrainingOptions &spec, const BertConfig &cfg, const InputMetaData &meta,
                              const std::string &pattern, bool training)
{
    DatasetOptions o;
    o.pattern = pattern;
    o.max_seq_length = meta.max_seq_length;
    o.num_labels = meta.num_labels;
    o.float_labels = meta.label_type == "float";
    o.multi_label = meta.isMultiLabel();
    o.has_sample_weights = meta.has_sample_weights;
    o.teacher_outputs = meta.teacherOutputs();
    o.vocab_size = cfg.vocab_size;
    o.type_vocab_size = cfg.type_vocab_size;
    o.batch_size = training ? spec.train_batch_size : spec.eval_batch_size;
    o.training = training;
    o.seed = uint64_t(spec.seed);
    if (training)
        o.take = spec.train_data_size;
    return o;
}

} // namespace wb
