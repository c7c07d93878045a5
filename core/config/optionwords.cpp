// SPDX-License-Identifier: Apache-2.0
#include "core/config/optionwords.h"

#include "core/config/commandoptions.h"
#include "core/config/optiontable.h"

#include <atomic>
#include <cctype>
#include <utility>

namespace wb {

namespace {

std::atomic<OptionWording> g_wording{OptionWording::CommandLine};

/// A value that stands for the user's own ("NAME", "PATH", "<dir>"), not one to type as is.
bool isPlaceholder(std::string_view value)
{
    if (value.size() >= 2 && value.front() == '<' && value.back() == '>')
        return true;
    bool letter = false;
    for (char c : value) {
        if (std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)))
            return false;
        letter = letter || std::isupper(static_cast<unsigned char>(c));
    }
    return letter;
}

std::string quoted(const std::string &label) { return "\u201c" + label + "\u201d"; }

/// Fields of the window whose flags are in no option table: the Sweep dialog's (the sweep
/// command's flags) and Try it's. Their labels as the window shows them.
constexpr std::pair<std::string_view, const char *> kWindowOnlyFields[] = {
    {"param", "Sweep \u2192 values of an option"},
    {"method", "Sweep \u2192 Method"},
    {"num_runs", "Sweep \u2192 Runs (random)"},
    {"sample_seed", "Sweep \u2192 Sample seed (random)"},
    {"sweep_dir", "Sweep \u2192 Sweep folder"},
    {"max_concurrent_runs", "Sweep \u2192 Runs at once"},
    {"ig_steps", "Which words decided \u2192 m"},
    {"explain_class", "Which words decided \u2192 class"},
};

/// A flag the window has no field for, named in the window: its name without the command
/// line's dashes, quoted ("“masked_lm_prob”").
std::string bareName(std::string_view flag) { return quoted(std::string(flag)); }

/// Whether the window shows `flag` as a check box: a bool training option, or a switch (or a
/// false/true choice) of a command table.
bool isCheckBox(std::string_view flag)
{
    if (const OptionSpec *spec = findOption(flag))
        return spec->isBoolean();
    for (const std::vector<FlagRow> *table :
         {&prepareFlagTable(), &preparePretrainingFlagTable(), &classifyFlagTable(), &exampleFlagTable()}) {
        if (const FlagRow *row = findFlagRow(*table, flag))
            return row->kind == FlagKind::Switch || row->choices == std::vector<std::string>{"false", "true"};
    }
    return false;
}

} // namespace

void setOptionWording(OptionWording wording) { g_wording.store(wording); }

OptionWording optionWording() { return g_wording.load(); }

std::string optionLabel(std::string_view flag)
{
    // The option table's label, also of options outside the form: the range test's, the export
    // dialog's fields and the run's recorded settings are read by these words too.
    if (const OptionSpec *spec = findOption(flag); spec && *spec->label)
        return spec->label;
    for (const std::vector<FlagRow> *table :
         {&prepareFlagTable(), &preparePretrainingFlagTable(), &classifyFlagTable(), &exampleFlagTable()}) {
        if (const FlagRow *row = findFlagRow(*table, flag); row && *row->label)
            return row->label;
    }
    for (const auto &[windowFlag, label] : kWindowOnlyFields)
        if (flag == windowFlag)
            return label;
    return {};
}

std::string optionName(std::string_view flag)
{
    if (optionWording() == OptionWording::Window) {
        const std::string label = optionLabel(flag);
        return label.empty() ? bareName(flag) : quoted(label);
    }
    return "--" + std::string(flag);
}

std::string passOption(std::string_view flag, std::string_view value)
{
    if (optionWording() == OptionWording::Window) {
        if (const std::string label = optionLabel(flag); !label.empty()) {
            if (isCheckBox(flag) && (value.empty() || value == "true"))
                return "tick " + quoted(label);
            if (isCheckBox(flag) && value == "false")
                return "untick " + quoted(label);
            if (value.empty() || isPlaceholder(value))
                return "fill in " + quoted(label);
            return "set " + quoted(label) + " to " + std::string(value);
        }
        return value.empty() ? "set " + bareName(flag) : "set " + bareName(flag) + " to " + std::string(value);
    }
    return value.empty() ? "pass --" + std::string(flag) : "pass --" + std::string(flag) + "=" + std::string(value);
}

std::string PassOption(std::string_view flag, std::string_view value)
{
    std::string s = passOption(flag, value);
    s[0] = char(std::toupper(static_cast<unsigned char>(s[0])));
    return s;
}

std::string optionSetting(std::string_view flag, std::string_view value)
{
    if (optionWording() == OptionWording::Window) {
        if (const std::string label = optionLabel(flag); !label.empty()) {
            if (isCheckBox(flag) && (value == "true" || value == "false"))
                return quoted(label) + (value == "true" ? " ticked" : " unticked");
            return quoted(label) + " = " + std::string(value);
        }
        return bareName(flag) + " = " + std::string(value);
    }
    return "--" + std::string(flag) + "=" + std::string(value);
}

std::string commandName(std::string_view command)
{
    if (optionWording() == OptionWording::Window) {
        // The window's entries that run the same core function as the command.
        if (command == "prepare")
            return "File \u2192 Prepare Data\u2026";
    }
    return "'bert-workbench-cli " + std::string(command) + "'";
}

} // namespace wb
