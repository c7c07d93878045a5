// SPDX-License-Identifier: Apache-2.0
#include "ui/form/projectfile.h"

#include "core/config/jsonfile.h"
#include "core/config/optiontable.h"

#include <QDir>
#include <QFileInfo>

#include <vector>


namespace wb {

namespace {

constexpr const char *kFormat = "bert-workbench-project"; // "format" value of a project file

} // namespace

nlohmann::json ProjectFile::toJson(const TrainingOptions &options, FormTask task)
{
    nlohmann::json opts = nlohmann::json::object();
    for (const OptionSpec &spec : optionTable()) {
        nlohmann::json value = spec.toJson(options);
        if (!value.is_null()) // an unset optional is absent, which reads back as unset
            opts[spec.flag] = std::move(value);
    }
    return {{"format", kFormat}, {"version", 1}, {"task", formTaskName(task)}, {"options", opts}};
}

FormTask ProjectFile::taskFromJson(const nlohmann::json &j, Diagnostics &diag)
{
    const auto it = j.is_object() ? j.find("task") : j.end();
    if (!j.is_object() || it == j.end() || it->is_null())
        return FormTask::Classify;
    const std::optional<FormTask> task = it->is_string() ? parseFormTask(it->get<std::string>()) : std::nullopt;
    if (!task) {
        diag.error("task", "is " + it->dump() + "; expected \"classify\" or \"pretrain\"",
                   "fix the value in the project file or choose the task again in the window");
        return FormTask::Classify;
    }
    return *task;
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
    std::vector<std::string> unknown;
    for (auto it = optsIt->begin(); it != optsIt->end(); ++it) {
        // Older projects used other spellings (intra_op_threads); the table lists them as aliases.
        const OptionSpec *spec = findOption(it.key());
        if (!spec) {
            unknown.push_back(it.key());
            continue;
        }
        if (it->is_null())
            continue;
        const std::string error = spec->setJson(o, *it);
        if (!error.empty()) {
            diag.error("options." + it.key(), error, "fix the value in the project file or set it again in the window");
            continue;
        }
        if (spec->isPath()) {
            const QString value = QString::fromStdString(spec->text(o));
            if (!value.isEmpty() && !baseDir.isEmpty() && QDir::isRelativePath(value))
                spec->setText(o, QDir(baseDir).filePath(value).toStdString());
        }
    }
    for (const std::string &key : unknown)
        diag.warning("options." + key, "unknown setting, ignored",
                     "remove it from the project file, or save the project again from the window");
    return o;
}

void ProjectFile::save(const QString &path, const TrainingOptions &options, FormTask task)
{
    writeFileAtomic(path.toStdString(), toJson(options, task).dump(2) + "\n");
}

TrainingOptions ProjectFile::load(const QString &path, Diagnostics &diag, FormTask *task)
{
    auto j = readJsonObjectFile(path.toStdString(), diag);
    if (!j)
        return {};
    if (task)
        *task = taskFromJson(*j, diag);
    return fromJson(*j, QFileInfo(path).absolutePath(), diag);
}

} // namespace wb
