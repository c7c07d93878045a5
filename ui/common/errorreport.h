// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <exception>
#include <string>

namespace wb {

/// A problem as the window shows it: what happened (with the file, flag or record it is
/// about in front) and how to fix it. A plain value.
struct ErrorReport
{
    QString message; ///< "train.tf_record: record 17: Loss became NaN" (field: message)
    QString hint;    ///< how to fix it (may be empty)

    /// Returns message and hint as one log line ("message (hint)").
    QString logLine() const;
    /// Returns the message and, on a line below it when there is a hint, "How to fix: hint":
    /// the text of an inline error (Try it's and fill-in-the-blank's message line).
    QString withHowToFix() const;
};

/// A field the core names (a flag, a file, a record) as the window shows it: an option by the
/// label of the field that sets it ("“BERT config”"), anything else as it is. Thread-safe.
QString fieldInWindowWords(const std::string &field);

/// A path as the window shows it in a sentence or a line: a file of the Hugging Face cache
/// ("<cache>/models--org--name/snapshots/<commit>/config.json") by its model,
/// "config.json of org/name (cached)" ("org/name (cached)" for the snapshot folder itself);
/// any other path as it is, with native separators. The caller keeps the full path for a
/// tooltip or detail. Pure; thread-safe.
QString pathInWindowWords(const std::string &path);

/// Describes the exception being handled, through the core's one conversion
/// (wb::describeException, core/util/errortext.h: wb::Error's field, message and hint; the
/// first line of any other what(), never a c10 backtrace); call it only inside a catch block
/// (catch (...) included: an exception of unknown type becomes "unknown error"). Thread-safe.
ErrorReport currentErrorReport();

/// Same as currentErrorReport() for `error` (a captured std::exception_ptr).
ErrorReport errorReportFor(std::exception_ptr error);

} // namespace wb
