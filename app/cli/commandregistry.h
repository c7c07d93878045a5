// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace wb::cli {

/// A command's entry point: parses its own flags from `args` (without the program and command
/// names), writes results to `out` and diagnostics to `err`, returns an exit code (commands.h).
using CommandFunction = int (*)(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

/// One subcommand of bert-workbench-cli.
struct CommandSpec
{
    const char *name;    ///< as typed: "train", "prepare_pretraining"
    const char *summary; ///< one line (ASCII) for the usage text's "Commands:" list
    CommandFunction run;
    /// The subcommands a command dispatches to ("models list"), each with flags of its own
    /// (the man page lists them); empty for a command without subcommands.
    std::vector<const char *> subcommands{};
};

/// Every subcommand, in the order the usage text lists them. The one list: the usage text,
/// the dispatch of runCli, the unknown-command hint and the man page's COMMANDS section
/// (packaging/manoptions.cpp) are all made from it. Immutable; safe from any thread.
const std::vector<CommandSpec> &commandRegistry();

/// The entry of `name` (exact, case-sensitive), or nullptr when no command has that name.
const CommandSpec *findCommand(std::string_view name);

/// The top-level usage text (`bert-workbench-cli --help`): version line, synopsis, the
/// registry's commands with their summaries, the --help pointer and the exit codes.
std::string usageText();

/// Optimal-string-alignment distance between `a` and `b` (bytes): insertions, deletions,
/// substitutions and swaps of two neighbouring bytes cost 1 each, as git's levenshtein.c
/// scores a mistyped command (git help.c, help_unknown_cmd).
std::size_t editDistance(std::string_view a, std::string_view b);

/// The commands nearest to a mistyped `name`, at most 2 edits away (editDistance), nearest
/// first and in registry order among equals; empty when none is that close.
std::vector<std::string> similarCommands(std::string_view name);

/// The report of an unknown command, each line ending in '\n':
///   error: command: unknown command 'trian'
///     hint: did you mean 'train'?            (when a command is at most 2 edits away)
///     hint: use one of train, pretrain, …    (every registered command, in registry order)
std::string unknownCommandText(std::string_view name);

} // namespace wb::cli
