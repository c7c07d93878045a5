// SPDX-License-Identifier: Apache-2.0
// Try it's background request: load the model (a run's best or latest checkpoint, an export
// folder, a chosen file) once per source, then classify the texts off the GUI thread.
#include "ui/tryit/tryitrequest.h"

#include "ui/common/qtext.h"
#include "ui/tryit/attributionchips.h"
#include "core/config/inputmetadata.h"
#include "core/config/labelnames.h"
#include "core/config/optiontable.h"
#include "core/formats/bestmodel.h"
#include "core/formats/checkpointstate.h"
#include "core/util/error.h"
#include "ui/form/fieldhelp.h"
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLayout>
#include <QMenu>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSpinBox>
#include <QTextDocumentFragment>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <mutex>

namespace wb {

namespace {

/// A chosen model whose label names are not the project's (`projectMeta`'s labels.txt, or its
/// label names): the sentence that says so, else "". Never throws.
std::string labelMismatch(const std::string &projectMeta, const std::vector<std::string> &modelLabels)
{
    if (projectMeta.empty() || modelLabels.empty())
        return {};
    try {
        Diagnostics diag;
        const auto meta = InputMetaData::load(projectMeta, diag);
        if (!meta || diag.hasErrors() || meta->isRegression())
            return {};
        const std::vector<std::string> project = readLabelNames(projectMeta, meta->num_labels, {}).names;
        if (project == modelLabels)
            return {};
        const auto join = [](const std::vector<std::string> &v) {
            std::string s;
            for (const auto &x : v)
                s += (s.empty() ? "" : ", ") + x;
            return s;
        };
        return "the chosen model's labels (" + join(modelLabels) + ") are not this project's (" + join(project)
               + "): its answers are in its own labels; choose another model, or Choose… → “The Model directory's checkpoint”";
    } catch (...) {
        return {};
    }
}

} // namespace

std::string tryItCacheKey(const ClassifierSource &s, uint64_t epoch)
{
    const std::string lower = s.do_lower_case ? (*s.do_lower_case ? "1" : "0") : "-";
    return s.model_export_path + '\n' + s.model_dir + '\n' + s.checkpoint_path + '\n' + s.bert_config_file + '\n'
           + s.input_meta_data_path + '\n' + s.vocab_file + '\n' + lower + '\n' + std::to_string(s.max_seq_length)
           + '\n' + std::to_string(epoch);
}

/// Runs on a pool thread: (re)loads the model when its source changed, then classifies.
TryItOutcome runTryItRequest(const std::shared_ptr<TryItModelCache> &cache, TryItRequest req, const JobControl &control)
{
    std::lock_guard<std::mutex> lock(cache->mutex);
    TryItOutcome out;
    if (control.isCancelled())
        return out;
    ClassifierSource s = std::move(req.source);
    out.model_dir = s.model_dir;
    if (s.model_export_path.empty()) {
        if (s.model_dir.empty()) {
            out.kind = TryItOutcome::Kind::NoModel;
            return out;
        }
        if (s.checkpoint_path.empty()) {
            // The run's checkpoint (its best when it kept one, else the latest), pinned now, so
            // that a new one saved by training is a new key.
            const RunCheckpointChoice choice = chooseRunCheckpoint(s.model_dir);
            s.checkpoint_path = choice.path;
            out.weights_label = choice.label();
            if (s.checkpoint_path.empty()) {
                out.kind = TryItOutcome::Kind::NoCheckpoint;
                return out;
            }
        }
    }
    const std::string key = tryItCacheKey(s, req.epoch);
    const TextClassifier &c = cache->load(key, s);
    out.weights_path = c.weightsPath();
    out.labels = c.labelNames();
    out.warnings = c.warnings();
    out.notes = c.notes();
    if (const std::string w = labelMismatch(req.project_meta_data, out.labels); !w.empty())
        out.warnings.push_back(w);
    out.max_seq_length = c.maxSeqLength();
    out.regression = c.isRegression();
    out.multi_label = c.isMultiLabel();
    out.kind = TryItOutcome::Kind::Loaded;
    if (!req.text.empty() && !control.isCancelled()) {
        if (req.explain) {
            try {
                out.explanation = c.explain(req.text, req.text_b, req.explain_options, &out.result);
            } catch (const Error &e) {
                out.explain_error = e.field() + ": " + e.what() + (e.hint().empty() ? "" : " (" + e.hint() + ")");
                out.result = c.classify(req.text, req.text_b);
            }
        } else {
            out.result = c.classify(req.text, req.text_b);
        }
        if (!out.regression && req.text_b.empty() && !control.isCancelled()) {
            try { // what the model says about no text, against which a short text is read
                out.short_text_note = shortTextNote(out.result, c.classify(std::string()), c.trainingMeanTokens());
            } catch (const Error &) {
            }
        }
        out.kind = TryItOutcome::Kind::Classified;
    }
    return out;
}

} // namespace wb
