// SPDX-License-Identifier: Apache-2.0
// Temporary: replaced by the data layer's prepare command (issue 3).
#include "app/cli/commands.h"

#include <ostream>

namespace wb::cli {
int cmdPrepare(const std::vector<std::string> &, std::ostream &, std::ostream &err)
{
    err << "error: prepare: not implemented yet\n";
    return kExitRuntime;
}
} // namespace wb::cli
