// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commandregistry.h"
#include "app/cli/commands.h"
#include "app/cli/errors.h"

#include "core/config/optionwords.h"

#include <ostream>

#ifndef WB_VERSION
#define WB_VERSION "0.1.0"
#endif

namespace wb::cli {

namespace {

int dispatch(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    if (args.empty()) {
        err << usageText();
        return kExitInvalid;
    }
    const std::string &command = args.front();
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (command == "--help" || command == "-h" || command == "help") {
        out << usageText();
        return kExitOk;
    }
    if (command == "--version" || command == "version") {
        out << "bert-workbench-cli " << WB_VERSION << "\n";
        return kExitOk;
    }
    if (const CommandSpec *spec = findCommand(command))
        return spec->run(rest, out, err);
    err << unknownCommandText(command);
    return kExitInvalid;
}

} // namespace

int runCli(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    // The command line's words (flags), also when a process that shows the window runs a
    // command in-process; the wording in force before comes back afterwards.
    struct CommandLineWording
    {
        OptionWording before = optionWording();
        CommandLineWording() { setOptionWording(OptionWording::CommandLine); }
        ~CommandLineWording() { setOptionWording(before); }
    } wording;
    // The one place nothing escapes: whatever a command did not handle (std, filesystem,
    // c10 or unknown exceptions) becomes an "error:" line and exit code 1.
    try {
        return dispatch(args, out, err);
    } catch (...) {
        return reportCurrentException(err, args.empty() ? std::string("bert-workbench-cli") : args.front());
    }
}

} // namespace wb::cli
