// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <exception>

namespace wb {

/// A problem as the window shows it: what happened (with the file, flag or record it is
/// about in front) and how to fix it. A plain value.
struct ErrorReport
{
    QString message; ///< "train.tf_record: record 17: Loss became NaN" (field: message)
    QString hint;    ///< how to fix it (may be empty)

    /// Returns message and hint as one log line ("message (hint)").
    QString logLine() const;
};

/// Describes `error`: wb::Error gives field, message and hint; std::filesystem errors their
/// what(); any other std::exception its what(). Thread-safe.
ErrorReport describeError(const std::exception &error);

/// Describes the exception being handled; call it only inside a catch block (catch (...)
/// included: an exception of unknown type becomes "unknown error"). Thread-safe.
ErrorReport describeCurrentException();

/// Same as describeCurrentException() for `error` (a captured std::exception_ptr).
ErrorReport describeException(std::exception_ptr error);

} // namespace wb
