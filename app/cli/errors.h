// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/diagnostics.h"
#include "core/util/errortext.h"

#include <iosfwd>

namespace wb::cli {

/// Writes `error` as the CLI reports every failure:
///   error: <file or field>: <reason>
///     hint: <how to fix it>            (when there is a hint)
/// and returns `exitCode` (kExitRuntime unless the input was invalid).
int reportError(std::ostream &err, const ErrorText &error, int exitCode = 1);

/// reportError for the exception in flight: call it in a catch (...). `fallbackField`
/// names the command or flag when the exception carries no field.
int reportCurrentException(std::ostream &err, const std::string &fallbackField, int exitCode = 1);

/// Prints the errors of a failed pre-flight check (warnings left out) and the
/// "N problem(s) found; nothing was run." line. Returns kExitInvalid (2).
int reportInvalidConfiguration(std::ostream &err, const Diagnostics &diagnostics);

} // namespace wb::cli
