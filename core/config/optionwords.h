// SPDX-License-Identifier: Apache-2.0
#pragma once
// How the core's messages name the options a user sets. The command line sets flags
// ("pass --learning_rate=2e-05"); the window sets fields ("set “Learning rate” to 2e-05").
// A message the core writes names an option through these functions, so it reads right in the
// front-end that shows it and no front-end rewrites the core's text. The labels are the option
// tables' (optiontable.h, commandoptions.h); a flag without a field in the window keeps its
// flag name in both wordings. docs/architecture.md, "One source of wording".

#include <string>
#include <string_view>

namespace wb {

/// The front-end whose words the core's messages use.
enum class OptionWording
{
    CommandLine, ///< flags: "--learning_rate", "pass --learning_rate=2e-05" (the default)
    Window,      ///< fields: "“Learning rate”", "set “Learning rate” to 2e-05"
};

/// Sets the wording of every message the core writes from now on, process-wide. The window's
/// main() sets OptionWording::Window before any other thread starts; the CLI keeps the
/// default. Thread-safe (an atomic), but meant to be called once at start-up.
void setOptionWording(OptionWording wording);
/// The wording in force. Thread-safe.
OptionWording optionWording();

/// The window's label of `flag` (the field that sets it), from the training option table and
/// then the command tables (prepare, prepare_pretraining, classify, example); "" when the
/// window has no field for it. Pure; thread-safe.
std::string optionLabel(std::string_view flag);

/// The option's name in a sentence: "--flag", or in the window "“Label”" (a flag without a
/// field stays "--flag"). `flag` has no dashes. Thread-safe.
std::string optionName(std::string_view flag);

/// How to give an option a value, as the middle of a sentence: "pass --flag=value" ("pass
/// --flag" when `value` is empty), or in the window "set “Label” to value"; a check box is
/// "tick “Label”" (an empty value or "true") or "untick “Label”" ("false"); a field to fill is
/// "fill in “Label”" (an empty value, or a placeholder such as NAME or <dir>). Thread-safe.
std::string passOption(std::string_view flag, std::string_view value = {});

/// Same as passOption with its first letter in capitals, to start a sentence ("Pass --flag=v",
/// "Set “Label” to v").
std::string PassOption(std::string_view flag, std::string_view value = {});

/// The option and its value as a setting: "--flag=value", or in the window "“Label” = value"
/// ("“Label” ticked" / "“Label” unticked" for a check box). Thread-safe.
std::string optionSetting(std::string_view flag, std::string_view value);

/// A command of the CLI as the user reaches it: "'bert-workbench-cli prepare'", or in the
/// window the menu entry that does the same ("File → Prepare Data…"; a command without one
/// keeps its CLI name). Thread-safe.
std::string commandName(std::string_view command);

} // namespace wb
