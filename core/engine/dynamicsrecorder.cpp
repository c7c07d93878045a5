// SPDX-License-Identifier: Apache-2.0
#include "core/engine/dynamicsrecorder.h"

#include "core/distribute/strategy.h"

#include <algorithm>
#include <array>
#include <utility>

namespace wb {

namespace {

constexpr size_t kFields = 5; // index, step, label, gold probability, predicted label

} // namespace

DynamicsRecorder::DynamicsRecorder(std::string path, int64_t start, bool chief) : m_path(std::move(path)), m_chief(chief)
{
    if (!m_chief)
        return;
    m_dynamics.restore(readTrainingDynamics(m_path));
    m_dynamics.truncate(start);
}

void DynamicsRecorder::keep(int64_t step, const torch::Tensor &logits, const torch::Tensor &labels,
                            const torch::Tensor &indices)
{
    torch::NoGradGuard noGrad;
    const torch::Tensor scores = logits.detach().to(torch::kFloat);
    Pending p;
    p.step = step;
    // Views of the batch's buffers on the CPU, which the next batch overwrites: copied.
    p.labels = labels.clone();
    p.indices = indices.clone();
    p.gold = torch::softmax(scores, -1).gather(1, labels.unsqueeze(1)).squeeze(1);
    p.predicted = scores.argmax(1);
    m_pending.push_back(std::move(p));
}

void DynamicsRecorder::flush(Strategy &strategy)
{
    // Nothing kept since the last flush (the checkpoint right after an evaluation's flush): the
    // file already holds everything. Every worker trains the same steps, so all skip alike.
    if (m_pending.empty())
        return;
    std::vector<double> items;
    for (const Pending &p : m_pending) {
        const torch::Tensor labels = p.labels.cpu().contiguous(), indices = p.indices.cpu().contiguous();
        const torch::Tensor gold = p.gold.cpu().to(torch::kDouble).contiguous(), predicted = p.predicted.cpu().contiguous();
        for (int64_t r = 0; r < labels.size(0); ++r)
            items.insert(items.end(), {double(indices.data_ptr<int64_t>()[r]), double(p.step),
                                       double(labels.data_ptr<int64_t>()[r]), gold.data_ptr<double>()[r],
                                       double(predicted.data_ptr<int64_t>()[r])});
    }
    m_pending.clear();
    strategy.gatherAcrossWorkers(items); // every worker's rows, in rank order
    if (!m_chief)
        return;
    std::vector<std::array<double, kFields>> rows(items.size() / kFields);
    for (size_t k = 0; k < rows.size(); ++k)
        std::copy_n(items.begin() + std::ptrdiff_t(k * kFields), kFields, rows[k].begin());
    // Workers' rows come rank by rank; each example's observations must be recorded step by step.
    std::stable_sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) { return a[1] < b[1]; });
    for (const auto &r : rows)
        m_dynamics.record(int64_t(r[1]), int64_t(r[0]), int64_t(r[2]), r[3], int64_t(r[4]));
    writeTrainingDynamics(m_path, m_dynamics);
}

} // namespace wb
