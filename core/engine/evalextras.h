// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h> (through evalpass.h). Never include from ui/ or app/.
#pragma once

#include "core/config/bertconfig.h"
#include "core/config/inputmetadata.h"
#include "core/config/trainingoptions.h"
#include "core/tokenize/vocab.h"
#include "core/formats/bestmodel.h"
#include "core/formats/evalexamples.h"
#include "core/engine/evalpass.h"
#include "core/formats/trainingsummary.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// What the training loop does at each evaluation besides the metrics (issue 14):
/// model_dir/eval_examples.jsonl (classification, single- and multi-label; written by the chief,
/// with every worker's examples in a multi-worker run), the eval examples' pooled [CLS] vectors
/// (model_dir/embeddings/step-N.safetensors, eval sets up to kMaxEmbeddingExamples), and the
/// best checkpoint (model_dir/best/ckpt-N + best.json) with early stopping when
/// --best_checkpoint_metric or --early_stopping_patience is set. One thread.
class EvalExtras
{
public:
    /// Throws wb::Error("best_checkpoint_metric", …) when the metric does not exist for this
    /// task (eval_f1/eval_mcc need 2 labels; regression has only eval_loss). `startStep` > 0:
    /// a resumed run restores the best so far from best.json.
    EvalExtras(const TrainingOptions &spec, const BertConfig &cfg, const InputMetaData &meta, bool chief,
               bool singleWorker, int64_t startStep, TrainingObserver &obs);

    /// Where evaluate() puts its per-example outputs, or null when none are written.
    EvalExampleOutputs *sink()
    {
        m_outputs.keep_pooled = m_embeddings;
        return m_collect ? &m_outputs : nullptr;
    }

    /// The embedding view's vectors are saved (model_dir/embeddings/step-N.safetensors; a
    /// multi-label run's rows hold −1 as label_ids and predictions) for
    /// classification eval sets of at most this many examples (larger ones save none: the
    /// files would grow by N × hidden × 4 bytes per evaluation and the view would not stay fluid).
    static constexpr int64_t kMaxEmbeddingExamples = 10000;
    bool savesEmbeddings() const { return m_embeddings; }

    /// Writes eval_examples.jsonl from sink() for the evaluation at `step`, then clears it.
    void writeExamples(int64_t step);

    /// After the checkpoint of the evaluation `m` (at `checkpointPath`) is written: updates
    /// the best (copies the checkpoint into model_dir/best/, writes best.json). Returns true
    /// when the run must stop early.
    bool afterCheckpoint(const EvalMetrics &m, const std::string &checkpointPath);

    /// Adds best_* and stopped_early_at_step to training_summary.json's `summary` and `r`.
    void describe(TrainingSummary &summary, RunFinished &r, int64_t stoppedEarlyAt) const;

    bool tracking() const { return m_tracking; }
    const BestModelTracker &tracker() const { return m_tracker; }

private:
    /// labels.txt's name of `id`, else "label N".
    std::string labelName(int64_t id) const;
    /// Line `i` of eval_examples.jsonl from m_outputs (single- or multi-label).
    EvalExample exampleRow(size_t i, int64_t step) const;

    const TrainingOptions &m_spec;
    TrainingObserver &m_obs;
    bool m_chief;
    bool m_collect = false;
    bool m_multiLabel = false;
    bool m_embeddings = false;
    bool m_tracking = false;
    std::vector<std::string> m_labels;
    std::optional<Vocab> m_vocab;
    EvalExampleOutputs m_outputs;
    BestModelTracker m_tracker;
    std::string m_bestCheckpoint;
};

} // namespace wb
