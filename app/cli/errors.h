// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/diagnostics.h"
#include "core/config/fieldproblem.h"
#include "core/util/errortext.h"

#include <iosfwd>
#include <string>

namespace wb::cli {

/// Writes `error` as the CLI reports every failure:
///   error: <file or field>: <reason>
///     hint: <how to fix it>            (when there is a hint)
/// and returns `exitCode` (kExitRuntime unless the input was invalid).
int reportError(std::ostream &err, const ErrorText &error, int exitCode = 1);

/// The CLI's words for the fix of a FieldProblem (core/config/fieldproblem.h):
///   "Pass --text_a_column=NAME (and --text_b_column=NAME for sentence pairs). Recognised
///   without a flag: sentence, text, …."  or, with a reason,
///   "The file looks tab-separated: use --classification_task_name=tsv."  or, with advice,
///   "Fix the label, or pass --skip_bad_rows to skip the row."
std::string cliFieldHint(const FieldProblem &problem);

/// reportError for the exception in flight: call it in a catch (...). `fallbackField`
/// names the command or flag when the exception carries no field; a FieldError's fix (and
/// each distinct fix of a BadRowsError's rows) is worded by cliFieldHint.
int reportCurrentException(std::ostream &err, const std::string &fallbackField, int exitCode = 1);

/// reportCurrentException with the exit code a command's failure calls for: kExitInvalid (2)
/// for a wb::Error (the input, the flags or the files are wrong), kExitRuntime (1) for any
/// other exception. Call it in a catch (...).
int reportCommandException(std::ostream &err, const std::string &fallbackField);

/// Prints the errors of a failed pre-flight check (warnings left out) and the
/// "N problem(s) found; nothing was run." line. Returns kExitInvalid (2).
int reportInvalidConfiguration(std::ostream &err, const Diagnostics &diagnostics);

} // namespace wb::cli
