// SPDX-License-Identifier: Apache-2.0
#include "ui/projectfile.h"

#include "core/config/jsonfile.h"

#include <QDir>
#include <QFileInfo>

#include <set>

namespace wb {

namespace {

constexpr const char *kFormat = "bert-workbench-project"; // "format" value of a project file

template<typename F>
void forEachField(F &&f, TrainingOptions &o)
{
    f("distribution_strategy", o.distribution_strategy, false);
    f("num_gpus", o.num_gpus, false);
    f("num_local_workers", o.num_local_workers, false);
    f("worker_timeout", o.worker_timeout_seconds, false);
    f("bert_config_file", o.bert_config_file, true);
    f("input_meta_data_path", o.input_meta_data_path, true);
    f("train_data_path", o.train_data_path, true);
    f("eval_data_path", o.eval_data_path, true);
    f("init_checkpoint", o.init_checkpoint, true);
    f("model_dir", o.model_dir, true);
    f("mode", o.mode, false);
    f("train_batch_size", o.train_batch_size, false);
    f("eval_batch_size", o.eval_batch_size, false);
    f("learning_rate", o.learning_rate, false);
    f("end_lr", o.end_lr, false);
    f("num_train_epochs", o.num_train_epochs, false);
    f("num_eval_per_epoch", o.num_eval_per_epoch, false);
    f("train_data_size", o.train_data_size, false);
    f("log_steps", o.log_steps, false);
    f("optimizer_type", o.optimizer_type, false);
    f("weight_decay_rate", o.weight_decay_rate, false);
    f("warmup_fraction", o.warmup_fraction, false);
    f("seed", o.seed, false);
    f("keep_checkpoint_max", o.keep_checkpoint_max, false);
    f("intra_op_threads", o.intra_op_threads, false);
}

template<typename T>
bool typeMatches(const nlohmann::json &v)
{
    if constexpr (std::is_same_v<T, std::string>)
        return v.is_string();
    else if constexpr (std::is_floating_point_v<T>)
        return v.is_number();
    else
        return v.is_number_integer();
}

template<typename T>
const char *typeName()
{
    if constexpr (std::is_same_v<T, std::string>)
        return "a string";
    else if constexpr (std::is_floating_point_v<T>)
        return "a number";
    else
        return "an integer";
}

} // namespace

nlohmann::json ProjectFile::toJson(const TrainingOptions &options)
{
    TrainingOptions o = options;
    nlohmann::json opts = nlohmann::json::object();
    forEachField(
        [&](const char *key, auto &value, bool) {
            using T = std::decay_t<decltype(value)>;
            if constexpr (std::is_same_v<T, std::optional<int64_t>>) {
                if (value)
                    opts[key] = *value;
            } else {
                opts[key] = value;
            }
        },
        o);
    return {{"format", kFormat}, {"version", 1}, {"options", opts}};
}

TrainingOptions ProjectFile::fromJson(const nlohmann::json &j, const QString &baseDir, Diagnostics &diag)
{
    TrainingOptions o;
    // Not j.value("format", ...): it throws when "format" is not a string (fuzz_projectfile).
    const auto format = j.find("format");
    if (format == j.end() || !format->is_string() || format->get<std::string>() != kFormat)
        diag.warning("format", "this is not marked as a BERT Workbench project file",
                     "save it again from File → Save Project");
    auto optsIt = j.find("options");
    if (optsIt == j.end() || !optsIt->is_object()) {
        diag.error("options", "missing or not an object", "a project file has an \"options\" object");
        return o;
    }
    const nlohmann::json &opts = *optsIt;
    std::set<std::string> known;
    forEachField(
        [&](const char *key, auto &value, bool isPath) {
            known.insert(key);
            auto it = opts.find(key);
            if (it == opts.end() || it->is_null())
                return;
            using T = std::decay_t<decltype(value)>;
            using V = std::conditional_t<std::is_same_v<T, std::optional<int64_t>>, int64_t, T>;
            if (!typeMatches<V>(*it)) {
                diag.error(std::string("options.") + key, std::string("expected ") + typeName<V>() + ", found " + it->dump(),
                           "fix the value in the project file or set it again in the window");
                return;
            }
            value = it->template get<V>();
            if constexpr (std::is_same_v<T, std::string>) {
                if (isPath && !value.empty() && !baseDir.isEmpty() && QDir::isRelativePath(QString::fromStdString(value)))
                    value = QDir(baseDir).filePath(QString::fromStdString(value)).toStdString();
            }
        },
        o);
    for (auto it = opts.begin(); it != opts.end(); ++it)
        if (!known.count(it.key()))
            diag.warning("options." + it.key(), "unknown setting, ignored");
    return o;
}

void ProjectFile::save(const QString &path, const TrainingOptions &options)
{
    writeFileAtomic(path.toStdString(), toJson(options).dump(2) + "\n");
}

TrainingOptions ProjectFile::load(const QString &path, Diagnostics &diag)
{
    auto j = readJsonObjectFile(path.toStdString(), diag);
    if (!j)
        return {};
    return fromJson(*j, QFileInfo(path).absolutePath(), diag);
}

} // namespace wb
