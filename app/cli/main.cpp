// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"

#include <iostream>

int main(int argc, char **argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    return wb::cli::runCli(args, std::cout, std::cerr);
}
