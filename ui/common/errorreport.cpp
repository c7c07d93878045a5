// SPDX-License-Identifier: Apache-2.0
#include "ui/common/errorreport.h"

#include "core/config/optionwords.h"
#include "core/util/errortext.h"

#include <QCoreApplication>

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
    const std::string label = optionLabel(field);
    return label.empty() ? QString::fromStdString(field) : QStringLiteral("\u201c%1\u201d").arg(QString::fromStdString(label));
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
