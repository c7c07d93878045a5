// SPDX-License-Identifier: Apache-2.0
#include "ui/common/errorreport.h"

#include "core/config/optionwords.h"
#include "core/util/errortext.h"

#include <QCoreApplication>
#include <QDir>

#include <algorithm>

namespace wb {

namespace {

/// The window's form of the core's one description of an exception (core/util/errortext.h):
/// "field: message" and the hint, an option's field by the label of the field that sets it
/// ("“BERT config”: …"). The first line only, without a c10 backtrace.
ErrorReport fromErrorText(const ErrorText &t)
{
    ErrorText worded = t;
    worded.field = fieldInWindowWords(t.field).toStdString();
    return {QString::fromStdString(worded.line()), QString::fromStdString(t.hint)};
}

/// Every process that runs the window's code words the core's messages for the window: fields,
/// not flags (core/config/optionwords.h). Runs when the QCoreApplication is made, before any
/// worker thread.
void useWindowWording() { setOptionWording(OptionWording::Window); }

} // namespace

Q_COREAPP_STARTUP_FUNCTION(useWindowWording)

QString fieldInWindowWords(const std::string &field)
{
    // A field the core names as a command line's flag ("--param") is that option too.
    const bool dashed = field.size() > 2 && field.compare(0, 2, "--") == 0;
    const std::string flag = dashed ? field.substr(2) : field;
    const std::string label = optionLabel(flag);
    if (!label.empty())
        return QStringLiteral("\u201c%1\u201d").arg(QString::fromStdString(label));
    return QString::fromStdString(dashed ? optionName(flag) : field);
}

QString pathInWindowWords(const std::string &path)
{
    // huggingface_hub's layout (core/hub/hubcache.h): models--<org>--<name>/snapshots/<commit>/<file>.
    static const std::string kRepoFolder = "models--";
    const std::string::size_type at = path.rfind("/" + kRepoFolder);
    if (at == std::string::npos)
        return QDir::toNativeSeparators(QString::fromStdString(path));
    const std::string::size_type nameStart = at + 1 + kRepoFolder.size();
    const std::string::size_type nameEnd = std::min(path.find('/', nameStart), path.size());
    QString id = QString::fromStdString(path.substr(nameStart, nameEnd - nameStart));
    id.replace(QStringLiteral("--"), QStringLiteral("/")); // a repo id has no "--" of its own
    std::string file = nameEnd < path.size() ? path.substr(nameEnd + 1) : std::string();
    if (file.rfind("snapshots/", 0) == 0) {
        const std::string::size_type commitEnd = file.find('/', 10);
        file = commitEnd == std::string::npos ? std::string() : file.substr(commitEnd + 1);
    }
    while (!file.empty() && file.back() == '/')
        file.pop_back();
    const QString model = QCoreApplication::translate("wb::ErrorReport", "%1 (cached)").arg(id);
    return file.empty() ? model
                        : QCoreApplication::translate("wb::ErrorReport", "%1 of %2").arg(QString::fromStdString(file), model);
}

QString ErrorReport::logLine() const
{
    return hint.isEmpty() ? message : QStringLiteral("%1 (%2)").arg(message, hint);
}

QString ErrorReport::withHowToFix() const
{
    if (hint.isEmpty())
        return message;
    return message + QStringLiteral("\n") + QCoreApplication::translate("wb::ErrorReport", "How to fix: %1").arg(hint);
}

ErrorReport errorReportFor(std::exception_ptr error)
{
    return fromErrorText(wb::describeException(error, std::string()));
}

ErrorReport currentErrorReport() { return errorReportFor(std::current_exception()); }

} // namespace wb
