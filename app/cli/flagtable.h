// SPDX-License-Identifier: Apache-2.0
#pragma once
// Binds a row of a command table (core/config/commandoptions.h) to a variable of the
// command: the names, the `--help` summary, the choices and required-ness come from the row,
// so a command declares no flag text of its own.

#include "core/config/commandoptions.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace wb::cli {

/// "--flag,--alias1,…" (and ",!--negation" for a switch) of `row`, as CLI11 takes names.
inline std::string cliNames(const FlagRow &row)
{
    std::string names = std::string("--") + row.flag;
    for (const std::string &a : row.aliases)
        names += ",--" + a;
    if (row.kind == FlagKind::Switch && *row.negation)
        names += std::string(",!--") + row.negation;
    return names;
}

/// How a binding shows its default in `--help` (CLI11's "TYPE=default").
enum class ShowDefault
{
    Value, ///< the variable's initial value (0 with a zero_means: what 0 stands for); empty text: nothing
    None,  ///< nothing
};

/// Adds `row` to `app`, bound to `target`. A FlagKind::Switch row binds a bool (or an
/// optional<bool>: unset when not given) with add_flag; any other row add_option. `note`, when
/// not empty, is shown as a value's default instead of the value ("the meta data's").
template<typename T>
CLI::Option *addRowFlag(CLI::App &app, const FlagRow &row, T &target, const char *note = "",
                        ShowDefault show = ShowDefault::Value)
{
    CLI::Option *opt = nullptr;
    if constexpr (std::is_same_v<T, bool>) {
        opt = row.kind == FlagKind::Switch ? app.add_flag(cliNames(row), target, row.summary)
                                           : app.add_option(cliNames(row), target, row.summary);
    } else if constexpr (std::is_same_v<T, std::optional<bool>>) {
        opt = row.kind == FlagKind::Switch
                  ? app.add_flag_function(cliNames(row), [&target](int64_t n) { target = n > 0; }, row.summary)
                  : app.add_option(cliNames(row), target, row.summary);
    } else {
        opt = app.add_option(cliNames(row), target, row.summary);
    }
    if (row.strict_choices)
        opt->check(CLI::IsMember(row.choices));
    if (row.required)
        opt->required();
    if (*note && row.kind != FlagKind::Switch) {
        opt->default_str(note);
    } else if (show == ShowDefault::Value && row.kind != FlagKind::Switch) {
        if constexpr (std::is_arithmetic_v<T>) {
            if (target == T(0) && *row.zero_means)
                opt->default_str(row.zero_means); // what 0 stands for, not "0"
            else
                opt->capture_default_str();
        } else if constexpr (std::is_same_v<T, std::string>) {
            if (!target.empty())
                opt->capture_default_str();
        }
    }
    return opt;
}

/// addRowFlag for `table`'s row `flag`. Throws std::out_of_range when the table has no such
/// row (a programming error).
template<typename T>
CLI::Option *addTableFlag(CLI::App &app, const std::vector<FlagRow> &table, const char *flag, T &target,
                          const char *note = "", ShowDefault show = ShowDefault::Value)
{
    return addRowFlag(app, flagRow(table, flag), target, note, show);
}

} // namespace wb::cli
