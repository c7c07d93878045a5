// SPDX-License-Identifier: Apache-2.0
// Try it's background request (internal to ui/tryit): the shared model cache, one request and
// what it produced, and the job that (re)loads the model and classifies (tryitrequest.cpp).
#pragma once

#include "core/infer/attribution.h"
#include "core/infer/textclassifier.h"
#include "ui/common/backgroundjob.h"
#include "ui/common/loadedmodelcache.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// The loaded model, shared by the panel's jobs; one job uses it at a time (the mutex).
struct TryItModelCache : LoadedModelCache<TextClassifier>
{
};

/// What one request produced, copied out of the classifier for the GUI thread.
struct TryItOutcome
{
    enum class Kind { Cancelled, NoModel, NoCheckpoint, Loaded, Classified };
    Kind kind = Kind::Cancelled;
    std::string model_dir;
    std::string weights_path;
    std::string weights_label; ///< "best, step 42 (eval_accuracy 0.6667)" or "latest, step 60" (a run's checkpoint)
    std::vector<std::string> labels;
    std::vector<std::string> warnings;
    std::vector<std::string> notes; ///< where the files came from (TextClassifier::notes): the model line's detail
    int64_t max_seq_length = 0;
    bool regression = false;
    bool multi_label = false; ///< the model is multi-label (TextClassifier::isMultiLabel)
    Classification result;
    std::optional<Explanation> explanation; ///< when asked for and computed
    std::string explain_error;              ///< why it could not be computed (e.g. a class the model lacks)
    std::string short_text_note;            ///< shortTextNote() of the text: "" unless much shorter than the training texts
};

/// One request of the panel: the model to use and the texts.
struct TryItRequest
{
    ClassifierSource source;
    /// The project's meta data when `source` is a model the user chose (labels compared), else "".
    std::string project_meta_data;
    uint64_t epoch = 0;
    std::string text, text_b;
    bool explain = false;
    ExplainOptions explain_options;
};

/// The cache key of a model source and reload epoch: the source's paths, do_lower_case,
/// max_seq_length and `epoch`, one per line (the same key: the loaded model is reused). Pure.
std::string tryItCacheKey(const ClassifierSource &s, uint64_t epoch);

/// Runs on a pool thread: (re)loads the model into `cache` when its source changed, then
/// classifies (and explains when asked). Thread rules: takes cache->mutex for the whole job.
TryItOutcome runTryItRequest(const std::shared_ptr<TryItModelCache> &cache, TryItRequest req, const JobControl &control);

} // namespace wb
