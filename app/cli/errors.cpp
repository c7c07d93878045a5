// SPDX-License-Identifier: Apache-2.0
#include "app/cli/errors.h"

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

} // namespace wb::cli
