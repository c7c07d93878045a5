// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"

#include <CLI/CLI.hpp>

namespace wb::cli {

/// Adds one flag per entry of optionTable() (run_classifier's names, their aliases such as
/// --ds/--md/--ng and old spellings such as --intra_op_threads) to `app`, bound to `options`.
/// Both `--flag=value` and `--flag value` work; a value of the wrong type is a CLI11
/// ValidationError naming the flag. `--distribution_strategy` and `--model_dir` have no default.
void addRunFlags(CLI::App &app, TrainingOptions &options);

/// Parses `args` with `app`. On --help prints help to `out` and returns 0 via `exitCode`;
/// on a flag error prints "error: <flag>: <message>" to `err` and sets exitCode 2.
/// Returns true when the command should go on.
bool parseFlags(CLI::App &app, const std::vector<std::string> &args, std::ostream &out, std::ostream &err,
                int &exitCode);

} // namespace wb::cli
