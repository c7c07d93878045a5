// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"

#include <CLI/CLI.hpp>

#include <optional>

namespace wb::cli {

/// Adds one flag per entry of optionTable() (run_classifier's names, their aliases such as
/// --ds/--md/--ng and old spellings such as --intra_op_threads) to `app`, bound to `options`.
/// Both `--flag=value` and `--flag value` work; a value of the wrong type is a CLI11
/// ValidationError naming the flag. `--distribution_strategy` and `--model_dir` have no default.
void addRunFlags(CLI::App &app, TrainingOptions &options);

/// One flag as a command's CLI11 app declares it: what the man page lists.
struct FlagDoc
{
    std::vector<std::string> names; ///< long names without "--": the flag, aliases, negations
    std::string type;               ///< CLI11's type name ("INT", "TEXT:{tsv,jsonl}"); "" for a switch
    std::string description;        ///< the `--help` summary
    std::string default_text;       ///< the default `--help` shows ("" when none)
    std::string group;              ///< the `--help` group ("Options" unless set)
    bool required = false;
};

/// The flags of the CLI11 app a command parses `args` with: runs `command(args + {"--help"})`
/// while parseFlags only records its app's flags (nothing is printed or run). Empty for a
/// command that parses its flags without parseFlags (sweep, or `models` without a
/// subcommand). Thread-safe: the recording is per thread.
std::vector<FlagDoc> collectCommandFlags(int (*command)(const std::vector<std::string> &, std::ostream &, std::ostream &),
                                         std::vector<std::string> args);

/// Parses `args` with `app`. On --help prints help to `out` and returns 0 via `exitCode`;
/// on a flag error prints "error: <flag>: <message>" to `err` and sets exitCode 2.
/// Returns true when the command should go on.
bool parseFlags(CLI::App &app, const std::vector<std::string> &args, std::ostream &out, std::ostream &err,
                int &exitCode);

/// parseFlags as a command's body asks it: std::nullopt when the command goes on, else the exit
/// code it returns at once (0 after --help, 2 after a flag error; the help or the error is
/// written to `out` or `err`).
std::optional<int> parseCommandFlags(CLI::App &app, const std::vector<std::string> &args, std::ostream &out,
                                     std::ostream &err);

/// A command's flags declared and read in one step: `addFlags(app, flags)` declares them on
/// `app` (addRunFlags, a command's own table), then parseCommandFlags reads `args` into them.
/// `app` keeps the flags' CLI11 options, so it must outlive any use of them.
template <typename Flags>
std::optional<int> parseCommandFlags(CLI::App &app, Flags &flags, void (*addFlags)(CLI::App &, Flags &),
                                     const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    addFlags(app, flags);
    return parseCommandFlags(app, args, out, err);
}

} // namespace wb::cli
