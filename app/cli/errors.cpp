// SPDX-License-Identifier: Apache-2.0
#include "app/cli/errors.h"

#include "app/cli/commands.h"

#include <ostream>

namespace wb::cli {

int reportError(std::ostream &err, const ErrorText &error, int exitCode)
{
    err << "error: " << error.line() << "\n";
    if (!error.hint.empty())
        err << "  hint: " << error.hint << "\n";
    err.flush();
    return exitCode;
}

int reportCurrentException(std::ostream &err, const std::string &fallbackField, int exitCode)
{
    return reportError(err, describeCurrentException(fallbackField), exitCode);
}

int reportInvalidConfiguration(std::ostream &err, const Diagnostics &diagnostics)
{
    Diagnostics errors;
    for (const auto &d : diagnostics.items())
        if (d.severity == Severity::Error)
            errors.add(d);
    err << errors.format();
    err << errors.errorCount() << " problem(s) found; nothing was run.\n";
    return kExitInvalid;
}

} // namespace wb::cli
