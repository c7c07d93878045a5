// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one conversion of exceptions into what a user reads. Front-ends and the trainer turn
// any exception into an ErrorText here, then into their own form: a CLI "error:" line
// (app/cli/errors.h), a Diagnostic (diag.error(t.field, t.message, t.hint)), a RunFinished
// (wb::failedRun in core/events/trainingobserver.h), or a dialog text (toText()).

#include <exception>
#include <string>

namespace wb {

/// What went wrong, about what, and how to fix it. A plain value.
struct ErrorText
{
    std::string field;   ///< the file, flag, key or record (never empty after describeException)
    std::string message; ///< one line, without the field
    std::string hint;    ///< how to fix it (may be empty)

    /// Returns "field: message" (just the message when the field is empty).
    std::string line() const;
    /// Returns line(), then the hint on a line of its own when there is one.
    std::string toText() const;
};

/// Describes the exception `e` (wb::Error: its field, message and hint;
/// std::filesystem::filesystem_error: the path it names and the system's reason;
/// c10::Error and other std::exception: the first line of what(), without the backtrace;
/// anything else: "unknown error"). `fallbackField` names what was being done when the
/// exception carries no field of its own (e.g. "example", "train"). Never throws.
ErrorText describeException(const std::exception_ptr &e, const std::string &fallbackField);

/// describeException(std::current_exception(), fallbackField): call it in a catch (...).
ErrorText describeCurrentException(const std::string &fallbackField);

} // namespace wb
