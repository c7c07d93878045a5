// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"

#include <csignal>
#include <cstdio>
#include <iostream>

int main(int argc, char **argv)
{
    // A peer that went away must surface as an error from the collective ("connection
    // closed by peer"), not as a silent death by SIGPIPE in the middle of a socket write.
    std::signal(SIGPIPE, SIG_IGN);
    try {
        std::vector<std::string> args(argv + 1, argv + argc);
        return wb::cli::runCli(args, std::cout, std::cerr); // reports what it catches itself
    } catch (...) { // only when even the report failed (e.g. out of memory)
        std::fputs("error: bert-workbench-cli: could not report an error\n", stderr);
        return wb::cli::kExitRuntime;
    }
}
