// SPDX-License-Identifier: Apache-2.0
#include "core/config/optionwords.h"

#include "core/config/commandoptions.h"
#include "core/config/optiontable.h"

#include <atomic>
#include <cctype>

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
    if (const OptionSpec *spec = findOption(flag); spec && spec->group != FormGroup::None && *spec->label)
        return spec->label;
    for (const std::vector<FlagRow> *table :
         {&prepareFlagTable(), &preparePretrainingFlagTable(), &classifyFlagTable(), &exampleFlagTable()}) {
        if (const FlagRow *row = findFlagRow(*table, flag); row && *row->label)
            return row->label;
    }
    return {};
}

std::string optionName(std::string_view flag)
{
    if (optionWording() == OptionWording::Window) {
        if (const std::string label = optionLabel(flag); !label.empty())
            return quoted(label);
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
