// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include "core/formats/trainingdynamics.h"

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

class Strategy;

/// Records a single-label fine-tuning run's training dynamics (docs/data-map.md) from the
/// training forward pass itself: per training row, the softmax probability of its gold label and
/// the argmax, kept on the device until the next checkpoint (no device sync per step), then
/// gathered from every worker and written by the chief to model_dir/training_dynamics.jsonl just
/// before the checkpoint, so that a resume from any checkpoint finds exactly the observations of
/// the steps before it. Thread rules: the training loop's thread only.
class DynamicsRecorder
{
public:
    /// `path`: model_dir/training_dynamics.jsonl. The chief reloads what the file holds and keeps
    /// the observations of steps ≤ `start` (the checkpoint a resumed run starts from; 0 for a new
    /// run, which keeps nothing). Throws wb::Error naming the file when it cannot be read.
    DynamicsRecorder(std::string path, int64_t start, bool chief);

    /// Keeps the observations of one micro-batch trained at global step `step` (1-based):
    /// `logits` [rows, num_labels] (any float dtype, any device; not part of the autograd graph
    /// afterwards), `labels` int64 [rows] the gold labels, `indices` int64 [rows] the record
    /// indices (CPU).
    void keep(int64_t step, const torch::Tensor &logits, const torch::Tensor &labels, const torch::Tensor &indices);

    /// A collective on multi-worker runs (every worker calls it at the same point): gathers
    /// the kept observations of every worker, then the chief records them and rewrites the file
    /// atomically; nothing (no gather, no write) when nothing was kept since the last flush.
    /// Throws wb::Error naming the file when it cannot be written.
    void flush(Strategy &strategy);

    /// What the chief holds (the evaluation's data-map counts, tests).
    const TrainingDynamics &dynamics() const { return m_dynamics; }

private:
    struct Pending
    {
        int64_t step;
        torch::Tensor labels, indices, gold, predicted;
    };
    std::string m_path;
    bool m_chief;
    TrainingDynamics m_dynamics;
    std::vector<Pending> m_pending;
};

} // namespace wb
