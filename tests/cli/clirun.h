// SPDX-License-Identifier: Apache-2.0
// Test helper: runs bert-workbench-cli's commands in-process and captures their output.
#pragma once

#include "app/cli/commands.h"

#include <sstream>
#include <string>
#include <vector>

namespace wbtest {

/// Runs `args` (argv[1..]) through wb::cli::runCli; returns the exit code.
inline int runCli(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    std::ostringstream o, e;
    const int code = wb::cli::runCli(args, o, e);
    out = o.str();
    err = e.str();
    return code;
}

} // namespace wbtest
