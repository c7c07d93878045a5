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

nlohmann::json ProjectFile::toJson(const TrainingOptions &options)
{
    nlohmann::json opts = nlohmann::json::object();
    for (const OptionSpec &spec : optionTable()) {
        nlohmann::json value = spec.toJson(options);
        if (!value.is_null()) // an unset optional is absent, which reads back as unset
            opts[spec.flag] = std::move(value);
    }
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
