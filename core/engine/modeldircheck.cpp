// SPDX-License-Identifier: Apache-2.0
// The model_dir pre-flight check of core/formats/runidentity.h (reads checkpoints: libtorch).
// run_config.json itself is read and compared in runidentity.cpp, which stays torch-free
// so that fuzz/fuzz_runconfig.cpp can build it without libtorch.
#include "core/formats/runidentity.h"

#include "core/engine/checkpointio.h"
#include "core/config/optionwords.h"
#include "core/formats/checkpointstate.h"
#include "core/util/error.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace wb {

namespace {

/// The checkpoint-vs-config comparison (architecture and num_labels) for `ckpt`.
void compareCheckpoint(const std::string &ckpt, const BertConfig &config, const InputMetaData &meta,
                       const std::string &flag, const std::string &howOut, Diagnostics &diag)
{
    CheckpointHeader h;
    try {
        h = readCheckpointHeader(ckpt);
    } catch (const Error &e) {
        diag.error(e.field(), e.what(), e.hint());
        return;
    }
    std::vector<std::string> diffs;
    jsonDifferences("bert_config.", nlohmann::ordered_json(h.bert_config.toJson()), nlohmann::ordered_json(config.toJson()),
                diffs);
    if (h.num_labels != meta.num_labels)
        diffs.push_back("num_labels: " + std::to_string(h.num_labels) + " → " + std::to_string(meta.num_labels));
    if (h.bert_config.sameArchitecture(config) && h.num_labels == meta.num_labels)
        return; // dropout rates and the like may change between runs from a checkpoint
    diag.error(flag, ckpt + " was trained with another model (checkpoint → this configuration):", howOut);
    for (const auto &d : diffs) {
        const auto colon = d.find(':');
        diag.error(d.substr(0, colon), d.substr(colon + 2));
    }
}

} // namespace

bool isTrainingCheckpointPath(const std::string &path)
{
    return checkpointStep(path) >= 0;
}

void checkModelDir(const TrainingOptions &o, const BertConfig &config, const InputMetaData &meta,
                   const Schedule *schedule, Diagnostics &diag)
{
    try {
        // An --init_checkpoint (a ckpt-N or a model_dir included) is compared by its tensors'
        // shapes in checkInitCheckpoint (core/model/initcheckpoint.h): one error naming the
        // config fields that differ; another num_labels is a new head, as for any init checkpoint.
        if (o.model_dir.empty())
            return;
        if (o.mode != "train_and_eval") {
            if (!o.predict_checkpoint_path.empty() && isTrainingCheckpointPath(o.predict_checkpoint_path))
                compareCheckpoint(o.predict_checkpoint_path, config, meta, "predict_checkpoint_path",
                                  "use the bert_config.json and input_meta_data.json it was trained with", diag);
            else if (o.predict_checkpoint_path.empty()) {
                const std::string latest = latestCheckpoint(o.model_dir);
                if (!latest.empty())
                    compareCheckpoint(latest, config, meta, "model_dir",
                                      "use the bert_config.json and input_meta_data.json it was trained with", diag);
            }
            return;
        }
        const std::string latest = latestCheckpoint(o.model_dir);
        if (latest.empty())
            return; // nothing to resume: a stale run_config.json is replaced at the first checkpoint
        const std::string waysOut = "train in a new " + optionName("model_dir")
                                    + ", or start a new run from this run's weights: a new " + optionName("model_dir")
                                    + " with " + optionSetting("init_checkpoint", latest);
        const std::optional<RunIdentity> saved = readRunConfig(o.model_dir, diag);
        if (!saved || !schedule) {
            compareCheckpoint(latest, config, meta, "model_dir", waysOut, diag);
            return;
        }
        const RunIdentity current = RunIdentity::of(o, config, meta, *schedule);
        auto diffs = runIdentityDifferences(*saved, current);
        const auto tokenizer = runTokenizerDifferences(*saved, current);
        diffs.insert(diffs.end(), tokenizer.begin(), tokenizer.end());
        if (diffs.empty())
            return;
        diag.error("model_dir",
                   "'" + o.model_dir + "' holds a run (" + fs::path(latest).filename().string()
                       + ") whose model, schedule or tokenizer differs from these options; resuming it would mix "
                         "the two. Differences (run_config.json → now):",
                   waysOut);
        for (const auto &d : diffs) {
            const auto colon = d.find(':');
            diag.error(d.substr(0, colon), d.substr(colon + 2));
        }
    } catch (const std::exception &e) { // never throw from a pre-flight check
        diag.error("model_dir", std::string("cannot check the run in model_dir: ") + e.what());
    }
}

} // namespace wb
