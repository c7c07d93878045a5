// SPDX-License-Identifier: Apache-2.0
#include "ui/common/errorreport.h"

#include "core/util/errortext.h"

namespace wb {

namespace {

/// The window's form of the core's one description of an exception (core/util/errortext.h):
/// "field: message" and the hint. The first line only, without a c10 backtrace.
ErrorReport fromErrorText(const ErrorText &t)
{
    return {QString::fromStdString(t.line()), QString::fromStdString(t.hint)};
}

} // namespace

QString ErrorReport::logLine() const
{
    return hint.isEmpty() ? message : QStringLiteral("%1 (%2)").arg(message, hint);
}

ErrorReport errorReportFor(std::exception_ptr error)
{
    return fromErrorText(wb::describeException(error, std::string()));
}

ErrorReport currentErrorReport() { return errorReportFor(std::current_exception()); }

} // namespace wb
