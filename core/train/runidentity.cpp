// SPDX-License-Identifier: Apache-2.0
#include "core/train/runidentity.h"

#include "core/config/jsonfile.h"
#include "core/data/sha256.h"
#include "core/train/checkpointio.h"
#include "core/train/checkpointstate.h"
#include "core/util/error.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace wb {

namespace {

constexpr const char *kFormat = "bert-workbench run_config 1";

std::string valueText(const nlohmann::ordered_json &v)
{
    return v.is_null() ? std::string("(absent)") : v.dump();
}

void differences(const std::string &prefix, const nlohmann::ordered_json &a, const nlohmann::ordered_json &b,
                 std::vector<std::string> &out)
{
    for (const auto &[key, old] : a.items()) {
        const auto it = b.find(key);
        const nlohmann::ordered_json now = it == b.end() ? nlohmann::ordered_json() : *it;
        if (old.is_object() && now.is_object())
            differences(prefix + key + ".", old, now, out);
        else if (old != now)
            out.push_back(prefix + key + ": " + valueText(old) + " → " + valueText(now));
    }
    for (const auto &[key, now] : b.items())
        if (!a.contains(key))
            out.push_back(prefix + key + ": (absent) → " + valueText(now));
}

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
    differences("bert_config.", nlohmann::ordered_json(h.bert_config.toJson()), nlohmann::ordered_json(config.toJson()),
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

RunIdentity RunIdentity::of(const TrainingOptions &o, const BertConfig &config, const InputMetaData &meta,
                            const Schedule &schedule)
{
    RunIdentity id;
    auto &j = id.json;
    j["format"] = kFormat;
    const nlohmann::ordered_json cfg = config.toJson();
    auto &d = j["defining"];
    d["bert_config"] = cfg;
    d["num_labels"] = meta.num_labels;
    d["max_seq_length"] = meta.max_seq_length;
    d["label_type"] = meta.label_type;
    d["train_batch_size"] = o.train_batch_size;
    d["num_train_epochs"] = o.num_train_epochs;
    d["num_eval_per_epoch"] = o.num_eval_per_epoch;
    d["train_data_size"] = schedule.train_data_size;
    d["learning_rate"] = o.learning_rate;
    d["end_lr"] = o.end_lr;
    d["warmup_fraction"] = o.warmup_fraction;
    d["optimizer_type"] = o.optimizer_type;
    d["weight_decay_rate"] = o.weight_decay_rate;
    d["seed"] = o.seed;
    d["steps_per_epoch"] = schedule.steps_per_epoch;
    d["total_steps"] = schedule.total_steps;
    d["warmup_steps"] = schedule.warmup_steps;
    j["fingerprints"]["bert_config_sha256"] = sha256Hex(cfg.dump());
    auto &info = j["informational"];
    info["bert_config_file"] = o.bert_config_file;
    info["input_meta_data_path"] = o.input_meta_data_path;
    info["train_data_path"] = o.train_data_path;
    info["eval_data_path"] = o.eval_data_path;
    // Not defining: checkpoints are float32 whatever the number format, and accumulation
    // with the same train_batch_size keeps the schedule and the mathematics of each step.
    info["dtype"] = o.dtype;
    info["gradient_accumulation_steps"] = o.gradient_accumulation_steps;
    info["version"] = WB_VERSION;
    return id;
}

std::string runConfigPath(const std::string &modelDir)
{
    return (fs::path(modelDir) / "run_config.json").string();
}

void writeRunConfig(const std::string &modelDir, const RunIdentity &identity)
{
    writeFileAtomic(runConfigPath(modelDir), identity.json.dump(2) + "\n");
}

std::optional<RunIdentity> readRunConfig(const std::string &modelDir, Diagnostics &diag)
{
    const std::string path = runConfigPath(modelDir);
    std::error_code ec;
    if (!fs::exists(path, ec))
        return std::nullopt;
    auto j = readJsonObjectFile(path, diag);
    if (!j)
        return std::nullopt;
    if (!j->contains("defining") || !(*j)["defining"].is_object()) {
        diag.error(path, "has no \"defining\" object", "delete run_config.json (it is written again with the next checkpoint)");
        return std::nullopt;
    }
    RunIdentity id;
    id.json = nlohmann::ordered_json::parse(j->dump());
    return id;
}

std::vector<std::string> runIdentityDifferences(const RunIdentity &saved, const RunIdentity &current)
{
    std::vector<std::string> out;
    differences("", saved.json.value("defining", nlohmann::ordered_json::object()),
                current.json.value("defining", nlohmann::ordered_json::object()), out);
    return out;
}

bool isTrainingCheckpointPath(const std::string &path)
{
    return checkpointStep(path) >= 0;
}

void checkModelDir(const TrainingOptions &o, const BertConfig &config, const InputMetaData &meta,
                   const Schedule *schedule, Diagnostics &diag)
{
    try {
        if (!o.init_checkpoint.empty() && isTrainingCheckpointPath(o.init_checkpoint) && o.mode == "train_and_eval")
            compareCheckpoint(o.init_checkpoint, config, meta, "init_checkpoint",
                              "use the bert_config.json and input_meta_data.json that checkpoint was trained with",
                              diag);
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
        const std::string waysOut = "train in a new --model_dir, or start a new run from this run's weights: a new "
                                    "--model_dir with --init_checkpoint=" + latest;
        const std::optional<RunIdentity> saved = readRunConfig(o.model_dir, diag);
        if (!saved || !schedule) {
            compareCheckpoint(latest, config, meta, "model_dir", waysOut, diag);
            return;
        }
        const auto diffs = runIdentityDifferences(*saved, RunIdentity::of(o, config, meta, *schedule));
        if (diffs.empty())
            return;
        diag.error("model_dir",
                   "'" + o.model_dir + "' holds a run (" + fs::path(latest).filename().string()
                       + ") whose model or schedule differs from these options; resuming it would mix the two. "
                         "Differences (run_config.json → now):",
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
