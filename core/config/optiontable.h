// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/diagnostics.h"
#include "core/config/trainingoptions.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace wb {

/// The TrainingOptions member an option is stored in.
using OptionMember = std::variant<std::string TrainingOptions::*, int TrainingOptions::*, int64_t TrainingOptions::*,
                                  double TrainingOptions::*, std::optional<int64_t> TrainingOptions::*,
                                  bool TrainingOptions::*, std::optional<double> TrainingOptions::*>;

/// The value type of an option, as the CLI, the project file and the form see it.
/// A bool member is Text to the front-ends: the choices "false" and "true" (a combo box,
/// `--flag=true|false` as absl writes booleans); the project file stores a JSON boolean.
enum class OptionType
{
    Text,            ///< std::string, or bool as "false"/"true" (isBoolean())
    Integer,         ///< int or int64_t
    Real,            ///< double
    OptionalInteger, ///< std::optional<int64_t>: unset means "not given"
    OptionalReal,    ///< std::optional<double>: unset means "not given" (the default follows other options)
};

/// The value's name in `--help` ("TEXT", "INT", "FLOAT"), as CLI11 names its own types.
/// Defined for every OptionType (a switch without default, so -Wswitch catches a new one).
const char *optionTypeName(OptionType type);

/// Where the window shows an option. None: no widget (the window still keeps the value).
enum class FormGroup
{
    None,
    Strategy,        ///< "1. Where to train"
    Files,           ///< "2. Model and data"
    Hyperparameters, ///< "3. Hyperparameters" (what Reset to defaults resets)
};

/// Whether an option names a file or a directory (project files resolve relative paths
/// against the project's folder; the form adds a Browse button).
enum class PathKind
{
    None,
    File,
    Directory,
};

/// One training option: its names, where it lives in TrainingOptions, and everything a
/// front-end needs to show, parse and save it. The default is the member's initialiser in
/// TrainingOptions (defaultText() reads it), so it is written in exactly one place.
/// A plain value; the table is immutable and thread-safe to read.
struct OptionSpec
{
    const char *flag = "";             ///< canonical name: run_classifier's flag where it has one
    std::vector<std::string> aliases;  ///< other accepted names (short CLI aliases, old spellings)
    OptionMember member{};
    const char *unit = "";             ///< "s", "examples", … ("" when it has none)
    const char *summary = "";          ///< one line for `--help`
    const char *label = "";            ///< the form's label
    const char *help = "";             ///< plain-language explanation (tooltip and "?")
    FormGroup group = FormGroup::None;
    PathKind path = PathKind::None;
    const char *file_types = "";       ///< file dialog filter for PathKind::File ("JSON (*.json)")
    std::vector<std::string> choices;  ///< allowed values of a Text option (a combo box)
    bool strict_choices = false;       ///< the CLI rejects values outside `choices`
    double minimum = 0;                ///< form range of numbers
    double maximum = 0;
    const char *zero_means = "";       ///< what 0 stands for ("all", "automatic"); "" when 0 is just 0
    double step = 0;                   ///< Real: >0 shows a spin box with this step, else a text field
    int decimals = 0;                  ///< Real spin box decimals
    /// The option defines the run: it is recorded under "defining" in run_config.json, and a
    /// model_dir whose run differs in it cannot be resumed with these options
    /// (core/formats/runidentity.h).
    bool defines_run = false;

    OptionType type() const;
    bool isPath() const { return path != PathKind::None; }
    /// Whether the member is a bool (type() Text, choices {"false", "true"}).
    bool isBoolean() const { return std::holds_alternative<bool TrainingOptions::*>(member); }
    /// Whether `name` is the flag or one of the aliases.
    bool hasName(std::string_view name) const;
    /// Whether the table gives the option a range (minimum < maximum).
    bool hasRange() const { return maximum > minimum; }
    /// The value as a number: Integer and Real options, a set OptionalInteger or OptionalReal;
    /// nullopt for text, booleans and an unset optional.
    std::optional<double> numericValue(const TrainingOptions &o) const;

    /// Returns the value as command-line text: numbers in their shortest round-trip form
    /// (5e-4 → "5e-04"), "" for an unset OptionalInteger or OptionalReal.
    std::string text(const TrainingOptions &o) const;
    /// Returns text() of a default-constructed TrainingOptions.
    std::string defaultText() const;
    /// Whether the value in `o` differs from the default (an optional: whether it is set).
    bool isChanged(const TrainingOptions &o) const;
    /// Whether `a` and `b` hold the same value.
    bool equal(const TrainingOptions &a, const TrainingOptions &b) const;
    /// Copies this option's value from `from` to `to`.
    void copy(const TrainingOptions &from, TrainingOptions &to) const;

    /// Parses `value` into `o`. Returns "" on success, else what was wrong ("expected an
    /// integer, found 'abc'"); `o` is then unchanged. Integers reject fractions and
    /// trailing text; an int member rejects values outside int's range; a bool member takes
    /// true/false (also 1/0, as absl's boolean flags).
    std::string setText(TrainingOptions &o, const std::string &value) const;

    /// Returns the value as JSON (string, integer, number or boolean; null for an unset optional).
    nlohmann::json toJson(const TrainingOptions &o) const;
    /// Sets the value from JSON of the right type (a bool member also takes "true"/"false").
    /// Returns "" on success, else
    /// "expected an integer, found \"big\"".
    std::string setJson(TrainingOptions &o, const nlohmann::json &value) const;
};

/// `v` in the shortest text that reads back to the same double (5e-4 → "5e-04"), as the
/// option table writes numbers. Pure.
std::string shortestNumberText(double v);

/// Returns every training option, in the order of `bert-workbench-cli train --help` and of
/// the form. Adding an option is one entry here (docs/architecture.md, "Adding an option").
const std::vector<OptionSpec> &optionTable();

/// Returns the option whose flag or alias is `name` (without "--"), or nullptr.
const OptionSpec *findOption(std::string_view name);

/// The one range check of the options, for every front-end (the pre-flight check calls it):
/// each numeric option with a range whose value is not finite or lies outside
/// [minimum, maximum] is an error on its flag ("train_batch_size is 0; it must be between 1
/// and 65536"), unless an error on that flag was reported before or the flag is in `skip`.
/// Pure; thread-safe.
void checkOptionRanges(const TrainingOptions &o, Diagnostics &diag, const std::vector<std::string> &skip = {});

/// A numeric option of a command whose options are not TrainingOptions (prepare, classify):
/// its flag, its value and its range, a row of that command's own table.
struct NumericOption
{
    const char *flag = "";
    double value = 0;
    double minimum = 0, maximum = 0;
    const char *default_text = "";
    const char *zero_means = ""; ///< what 0 stands for, "" when 0 is just 0
};

/// checkOptionRanges for such a table, in the same words: each value that is not finite or
/// lies outside [minimum, maximum] is an error on its flag (unless one was reported before).
/// Pure; thread-safe.
void checkNumericRanges(const std::vector<NumericOption> &options, Diagnostics &diag);

/// classify --explain's numeric options (token attributions, docs/explain.md), one row
/// each: --ig_steps (Integrated Gradients steps m) in [kIgStepsMinimum, kIgStepsMaximum],
/// default 32. Try it's steps box takes its range from the same constants.
constexpr int kIgStepsMinimum = 1;
constexpr int kIgStepsMaximum = 1024;
std::vector<NumericOption> explainOptionRows(double igSteps);

} // namespace wb
