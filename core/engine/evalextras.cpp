// SPDX-License-Identifier: Apache-2.0
#include "core/engine/evalextras.h"

#include "core/config/jsonfile.h"
#include "core/config/optionwords.h"
#include "core/config/labelnames.h"
#include "core/prepare/preparereport.h"
#include "core/engine/checkpointio.h"
#include "core/formats/embeddings.h"
#include "core/formats/evalexamples.h"
#include "core/formats/runend.h"

#include <algorithm>
#include "core/util/error.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace wb {

namespace {

/// Throws wb::Error("best_checkpoint_metric", …) when `metric` is not computed for the task of `meta`.
void checkBestMetric(const std::string &metric, const InputMetaData &meta)
{
    const ProblemType problem = meta.problemType();
    const auto &names = bestCheckpointMetrics();
    const bool known = std::find(names.begin(), names.end(), metric) != names.end();
    const bool binaryOnly = metric == "eval_f1" || metric == "eval_mcc";
    const bool multiLabelOnly = metric == "eval_micro_f1" || metric == "eval_samples_f1" || metric == "eval_hamming_loss";
    bool computed = known;
    if (problem == ProblemType::Regression)
        computed = metric == "eval_loss";
    else if (problem == ProblemType::MultiLabel)
        computed = known && !binaryOnly;
    else
        computed = known && !multiLabelOnly && (!binaryOnly || meta.num_labels == 2);
    if (computed)
        return;
    const std::string task = problem == ProblemType::Regression ? std::string("regression")
                             : problem == ProblemType::MultiLabel
                                 ? "multi-label, " + std::to_string(meta.num_labels) + " labels"
                                 : std::to_string(meta.num_labels) + " labels";
    const std::string hint = problem == ProblemType::Regression ? "use eval_loss"
                             : problem == ProblemType::MultiLabel
                                 ? "use eval_micro_f1, eval_macro_f1, eval_samples_f1, eval_hamming_loss, "
                                   "eval_accuracy (subset accuracy) or eval_loss"
                                 : "use eval_accuracy, eval_macro_f1 or eval_loss (eval_f1 and eval_mcc need 2 labels)";
    throw Error("best_checkpoint_metric", "'" + metric + "' is not computed for this task (" + task + ")", hint);
}

} // namespace

EvalExtras::EvalExtras(const TrainingOptions &spec, const BertConfig &cfg, const InputMetaData &meta, bool chief,
                       bool singleWorker, int64_t startStep, TrainingObserver &obs)
    : m_spec(spec), m_obs(obs), m_chief(chief)
{
    const bool regression = meta.isRegression();
    // Every worker collects (the examples are gathered across workers in evaluate(), a
    // collective step); the chief writes them, as a one-worker run does.
    (void)singleWorker;
    m_collect = !regression; // single- and multi-label (docs/file-formats.md, eval_examples.jsonl)
    m_multiLabel = meta.isMultiLabel();
    m_embeddings = m_collect && spec.save_embeddings && meta.eval_data_size.value_or(0) <= kMaxEmbeddingExamples;
    if (m_collect && chief) {
        m_labels = readLabelNames(spec.input_meta_data_path, meta.num_labels, cfg.labelNames()).names;
        try {
            std::string vocab = spec.vocab_file;
            if (vocab.empty())
                vocab = readPreparedTokenizer(spec.input_meta_data_path).vocab_file;
            if (!vocab.empty())
                m_vocab = Vocab::load(vocab);
        } catch (const std::exception &e) {
            const Error *we = dynamic_cast<const Error *>(&e);
            m_obs.logMessage(std::string("warning: eval_examples.jsonl will have no text: ")
                             + (we && !we->field().empty() ? we->field() + ": " : std::string()) + e.what());
        }
    }
    m_tracking = !spec.best_checkpoint_metric.empty() || spec.early_stopping_patience > 0;
    if (!m_tracking)
        return;
    m_tracker.metric = spec.best_checkpoint_metric.empty() ? "eval_loss" : spec.best_checkpoint_metric;
    m_tracker.patience = spec.early_stopping_patience;
    const std::string &metric = m_tracker.metric;
    checkBestMetric(metric, meta);
    if (startStep > 0)
        if (const auto rec = readBestRecord(spec.model_dir); rec && rec->metric == metric && rec->step <= startStep) {
            m_tracker.best = rec->value;
            m_tracker.best_step = rec->step;
            m_tracker.evals_since_best = rec->evaluations_since_best;
            m_bestCheckpoint = (fs::path(spec.model_dir) / rec->checkpoint).string();
        }
}

std::string EvalExtras::labelName(int64_t id) const
{
    return id >= 0 && size_t(id) < m_labels.size() ? m_labels[size_t(id)] : "label " + std::to_string(id);
}

EvalExample EvalExtras::exampleRow(size_t i, int64_t step) const
{
    EvalExample e;
    e.index = int64_t(i);
    e.step = step;
    e.loss = m_outputs.losses[i];
    if (m_multiLabel) {
        // The headline metrics' threshold: p ≥ 0.5, as computeMultiLabelMetrics and labelsAtThresholds.
        e.multi_label = true;
        e.true_label_id = e.predicted_label_id = -1;
        e.true_label_ids = m_outputs.label_sets[i];
        e.probabilities = m_outputs.label_probabilities[i];
        e.label_losses = m_outputs.label_losses[i];
        for (size_t k = 0; k < e.probabilities.size(); ++k)
            if (e.probabilities[k] >= 0.5)
                e.predicted_label_ids.push_back(int64_t(k));
        for (int64_t id : e.true_label_ids)
            e.true_labels.push_back(labelName(id));
        for (int64_t id : e.predicted_label_ids)
            e.predicted_labels.push_back(labelName(id));
    } else {
        e.true_label_id = m_outputs.labels[i];
        const auto &p = m_outputs.probabilities[i];
        e.predicted_label_id = int64_t(std::max_element(p.begin(), p.end()) - p.begin());
        e.true_label = labelName(e.true_label_id);
        e.predicted_label = labelName(e.predicted_label_id);
        e.probabilities.assign(p.begin(), p.end());
    }
    if (m_vocab && i < m_outputs.input_ids.size()) {
        std::vector<std::string> tokens;
        for (int64_t id : m_outputs.input_ids[i])
            tokens.push_back(id >= 0 && id < m_vocab->size() ? m_vocab->token(int32_t(id)) : "[UNK]");
        e.text = detokenizeWordpieces(tokens, &e.text_b);
    }
    return e;
}

void EvalExtras::writeExamples(int64_t step)
{
    if (!m_collect)
        return;
    if (!m_chief) {
        m_outputs = EvalExampleOutputs{};
        return;
    }
    std::vector<EvalExample> rows;
    const size_t n = m_outputs.losses.size();
    rows.reserve(n);
    for (size_t i = 0; i < n; ++i)
        rows.push_back(exampleRow(i, step));
    if (m_embeddings && !m_outputs.pooled.empty() && int64_t(n) <= kMaxEmbeddingExamples
        && m_outputs.pooled.size() == n * size_t(m_outputs.pooled_width)) {
        EmbeddingSnapshot snapshot;
        snapshot.step = step;
        snapshot.hidden = m_outputs.pooled_width;
        snapshot.pooled = std::move(m_outputs.pooled);
        // Multi-label rows have no single label: −1 in both (their sets are in eval_examples.jsonl).
        for (const EvalExample &e : rows) {
            snapshot.example_index.push_back(e.index);
            snapshot.label_ids.push_back(e.true_label_id);
            snapshot.predictions.push_back(e.predicted_label_id);
        }
        writeEmbeddings(embeddingsPath(m_spec.model_dir, step), snapshot);
    }
    m_outputs = EvalExampleOutputs{};
    writeEvalExamples(evalExamplesPath(m_spec.model_dir), rows);
}

bool EvalExtras::afterCheckpoint(const EvalMetrics &m, const std::string &checkpointPath)
{
    if (!m_tracking)
        return false;
    const auto value = metricValue(m, m_tracker.metric);
    if (!value)
        return false;
    if (m_tracker.update(*value, m.step) && m_chief) {
        const fs::path bestDir = fs::path(m_spec.model_dir) / "best";
        std::error_code ec;
        fs::create_directories(bestDir, ec);
        const std::string name = checkpointName(m.step);
        const fs::path target = bestDir / name;
        const fs::path tmp = bestDir / (name + ".tmp");
        fs::remove(tmp, ec);
        // Checkpoints are never changed in place (written beside and renamed), so a hard link
        // is a stable copy even after keep_checkpoint_max deletes the original.
        fs::create_hard_link(checkpointPath, tmp, ec);
        if (ec) {
            ec.clear();
            fs::copy_file(checkpointPath, tmp, fs::copy_options::overwrite_existing, ec);
            if (ec)
                throw Error(target.string(), "cannot copy the best checkpoint: " + ec.message(),
                            "free disk space in " + optionName("model_dir"));
        }
        commitFileAtomic(tmp.string(), target.string());
        for (fs::directory_iterator it(bestDir, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string f = it->path().filename().string();
            if (f.rfind("ckpt-", 0) == 0 && f != name) {
                std::error_code rm;
                fs::remove(it->path(), rm);
            }
        }
        m_bestCheckpoint = target.string();
        // The examples of this evaluation beside the kept checkpoint: Top losses shows the
        // evaluation of the model the model_dir keeps, not the latest one (core/formats/runend.h).
        if (const std::string examples = evalExamplesPath(m_spec.model_dir); m_collect && fs::exists(examples, ec)) {
            const std::string kept = bestEvalExamplesPath(m_spec.model_dir);
            fs::copy_file(examples, kept + ".tmp", fs::copy_options::overwrite_existing, ec);
            if (!ec)
                commitFileAtomic(kept + ".tmp", kept);
            ec.clear();
        }
        m_obs.logMessage("New best " + m_tracker.metric + " = " + formatMetric(*value) + " at step "
                         + std::to_string(m.step) + ": kept " + m_bestCheckpoint);
    }
    if (m_chief && m_tracker.best) {
        BestCheckpointRecord rec;
        rec.metric = m_tracker.metric;
        rec.value = *m_tracker.best;
        rec.step = m_tracker.best_step;
        rec.checkpoint = "best/" + checkpointName(m_tracker.best_step);
        rec.evaluations_since_best = m_tracker.evals_since_best;
        rec.last_evaluated_step = m.step;
        writeBestRecord(m_spec.model_dir, rec);
    }
    return m_tracker.shouldStop();
}

void EvalExtras::describe(TrainingSummary &summary, RunFinished &r, int64_t stoppedEarlyAt) const
{
    if (!m_tracking)
        return;
    summary.best_checkpoint_metric = m_tracker.metric;
    if (m_tracker.best) {
        summary.best_metric_value = *m_tracker.best;
        summary.best_step = m_tracker.best_step;
        summary.best_checkpoint = m_bestCheckpoint;
        r.best_step = m_tracker.best_step;
        r.best_checkpoint = m_bestCheckpoint;
    }
    summary.stopped_early_at_step = stoppedEarlyAt > 0 ? stoppedEarlyAt : 0;
    r.stopped_early_at_step = stoppedEarlyAt;
}

} // namespace wb
