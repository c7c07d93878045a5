// SPDX-License-Identifier: Apache-2.0
#include "ui/errorreport.h"

#include "core/util/error.h"

namespace wb {

QString ErrorReport::logLine() const
{
    return hint.isEmpty() ? message : QStringLiteral("%1 (%2)").arg(message, hint);
}

ErrorReport describeError(const std::exception &error)
{
    ErrorReport r;
    r.message = QString::fromUtf8(error.what());
    if (const auto *e = dynamic_cast<const Error *>(&error)) {
        if (!e->field().empty())
            r.message = QStringLiteral("%1: %2").arg(QString::fromStdString(e->field()), r.message);
        r.hint = QString::fromStdString(e->hint());
    }
    return r;
}

ErrorReport describeException(std::exception_ptr error)
{
    try {
        std::rethrow_exception(error);
    } catch (const std::exception &e) {
        return describeError(e);
    } catch (...) {
        return {QStringLiteral("unknown error"), QString()};
    }
}

ErrorReport describeCurrentException() { return describeException(std::current_exception()); }

} // namespace wb
