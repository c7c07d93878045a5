// SPDX-License-Identifier: Apache-2.0
// Build tool (not installed): writes the man page with its TRAINING FLAGS section generated
// from the option table (core/config/optiontable.h), so the page lists every flag the CLI
// takes, with the same summary, unit and default as `--help`, and its COMMANDS section from
// the CLI's command registry (app/cli/commandregistry.h), so it lists every command the CLI
// dispatches, in the order of `bert-workbench-cli --help`, and its COMMAND FLAGS section from
// each command's own CLI11 app (app/cli/runflags.h, collectCommandFlags), so every flag of every
// command is on the page.
//
//   bert-workbench-manoptions <page.1.in> <output page>
//
// The input page holds a {{TRAINING_OPTIONS}} comment line, a {{COMMAND_FLAGS}} comment line,
// and a COMMANDS region: a
// {{COMMANDS}} comment line, then per command a {{COMMAND name}} comment line followed by its
// paragraph (roff), then an {{END_COMMANDS}} comment line.

#include "app/cli/commandregistry.h"
#include "app/cli/runflags.h"
#include "core/config/optiontable.h"

#include <cctype>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

/// Escapes text for roff: backslashes, leading dots and apostrophes, hyphens in flags.
std::string roff(const std::string &text)
{
    std::string out;
    for (char c : text) {
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
    }
    if (!out.empty() && (out[0] == '.' || out[0] == '\''))
        out.insert(0, "\\&");
    return out;
}

std::string valueName(const wb::OptionSpec &s)
{
    if (s.isBoolean())
        return "true|false";
    if (!s.choices.empty() && s.strict_choices) {
        std::string v;
        for (const std::string &c : s.choices)
            v += (v.empty() ? "" : "|") + c;
        return v;
    }
    if (s.isPath())
        return s.path == wb::PathKind::Directory ? "dir" : "path";
    switch (s.type()) {
    case wb::OptionType::Integer:
    case wb::OptionType::OptionalInteger: return "n";
    case wb::OptionType::Real:
    case wb::OptionType::OptionalReal: return "x";
    case wb::OptionType::Text: break;
    }
    return "value";
}

std::string optionsSection()
{
    std::ostringstream out;
    for (const wb::OptionSpec &s : wb::optionTable()) {
        out << ".TP\n.BI \\-\\-" << roff(s.flag) << "= " << roff(valueName(s)) << "\n";
        const std::string summary = s.summary;
        out << roff(summary);
        // The summary often says the unit, the default or what 0 means already: say each once.
        const auto says = [&summary](const std::string &text) { return summary.find(text) != std::string::npos; };
        if (*s.unit && !says(s.unit))
            out << " (" << roff(s.unit) << ")";
        out << ".";
        const std::string def = s.defaultText();
        if (!def.empty() && !says("default"))
            out << " Default: \\fB" << roff(def) << "\\fR.";
        if (*s.zero_means && !says("0 =") && !says("0 means") && !says("; 0"))
            out << " 0 means " << roff(s.zero_means) << ".";
        if (!s.aliases.empty()) {
            out << " Also spelled";
            for (size_t i = 0; i < s.aliases.size(); ++i)
                out << (i ? ", " : " ") << "\\fB\\-\\-" << roff(s.aliases[i]) << "\\fR";
            out << ".";
        }
        out << "\n";
    }
    return out.str();
}

/// The paragraphs of the page's COMMANDS region (roff, each line ending in '\n'), by command name.
using CommandParagraphs = std::map<std::string, std::string>;

/// The COMMANDS section: one .TP paragraph per registered command, in registry order, headed
/// by its name; its text is the page's paragraph for it, else the registry's summary. A
/// paragraph for a name the registry lacks is an error (a removed or misspelt command).
std::string commandsSection(const CommandParagraphs &paragraphs, const std::string &page, std::string &error)
{
    for (const auto &entry : paragraphs) {
        const std::string &name = entry.first;
        if (!wb::cli::findCommand(name)) {
            error = page + ": {{COMMAND " + name +
                    "}}: no such command in app/cli/commandregistry.cpp; rename or remove the paragraph";
            return {};
        }
    }
    std::ostringstream out;
    for (const wb::cli::CommandSpec &c : wb::cli::commandRegistry()) {
        out << ".TP\n.B " << roff(c.name) << "\n";
        const auto it = paragraphs.find(c.name);
        if (it != paragraphs.end() && !it->second.empty()) {
            out << it->second;
        } else {
            std::string summary = c.summary;
            if (!summary.empty())
                summary[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(summary[0])));
            out << roff(summary) << ".\n";
        }
    }
    return out.str();
}

/// Whether `flags` holds every option of the training table: the command takes the COMMON FLAGS.
bool takesCommonFlags(const std::vector<wb::cli::FlagDoc> &flags)
{
    for (const wb::OptionSpec &s : wb::optionTable()) {
        bool found = false;
        for (const wb::cli::FlagDoc &d : flags)
            found = found || (!d.names.empty() && d.names.front() == s.flag);
        if (!found)
            return false;
    }
    return true;
}

/// One .TP paragraph per flag: its names, value type, summary, default and other spellings.
void writeFlags(std::ostringstream &out, const std::vector<wb::cli::FlagDoc> &flags, bool skipCommon)
{
    for (const wb::cli::FlagDoc &d : flags) {
        if (d.names.empty() || (skipCommon && wb::findOption(d.names.front())))
            continue;
        const std::string &name = d.names.front();
        out << ".TP\n";
        if (d.type.empty())
            out << ".B \\-\\-" << roff(name) << "\n";
        else
            out << ".BI \\-\\-" << roff(name) << "= " << roff(d.type) << "\n";
        std::string text = d.description;
        for (char &c : text)
            if (c == '\n')
                c = ' ';
        out << roff(text) << (text.empty() || text.back() == '.' ? "" : ".");
        if (d.required)
            out << " Required.";
        if (!d.default_text.empty())
            out << " Default: \\fB" << roff(d.default_text) << "\\fR.";
        std::vector<std::string> also, negations;
        for (size_t i = 1; i < d.names.size(); ++i)
            (d.names[i] == "no" + name ? negations : also).push_back(d.names[i]);
        for (const std::string &n : negations)
            out << " \\fB\\-\\-" << roff(n) << "\\fR turns it off.";
        if (!also.empty()) {
            out << " Also spelled";
            for (size_t i = 0; i < also.size(); ++i)
                out << (i ? ", " : " ") << "\\fB\\-\\-" << roff(also[i]) << "\\fR";
            out << ".";
        }
        out << "\n";
    }
}

/// The COMMAND FLAGS section: per registered command (and subcommand), the flags of its CLI11
/// app (collectCommandFlags) that are not COMMON FLAGS, so every flag any command takes is on
/// the page. A command without a CLI11 app (sweep) is described in its COMMANDS paragraph.
std::string commandFlagsSection()
{
    std::ostringstream out;
    for (const wb::cli::CommandSpec &c : wb::cli::commandRegistry()) {
        std::vector<std::pair<std::string, std::vector<std::string>>> parts; // heading, args
        if (c.subcommands.empty())
            parts.push_back({c.name, {}});
        for (const char *sub : c.subcommands)
            parts.push_back({std::string(c.name) + " " + sub, {sub}});
        for (const auto &part : parts) {
            const std::vector<wb::cli::FlagDoc> flags = wb::cli::collectCommandFlags(c.run, part.second);
            if (flags.empty())
                continue;
            const bool common = takesCommonFlags(flags);
            std::ostringstream body;
            writeFlags(body, flags, common);
            out << ".SS " << roff(part.first) << "\n";
            if (common)
                out << "The COMMON FLAGS" << (body.str().empty() ? ".\n" : ", and:\n");
            out << body.str();
        }
    }
    return out.str();
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::cerr << "usage: bert-workbench-manoptions <page.in> <page>\n";
        return 2;
    }
    std::ifstream in(argv[1]);
    if (!in) {
        std::cerr << "error: " << argv[1] << ": cannot be read\n";
        return 1;
    }
    const std::string commandPrefix = ".\\\" {{COMMAND ";
    std::ostringstream page;
    std::string line;
    bool replaced = false;
    bool commandFlags = false;
    enum { Before, InCommands, After } commands = Before;
    CommandParagraphs paragraphs;
    std::string *paragraph = nullptr; // the paragraph being read, inside the COMMANDS region
    while (std::getline(in, line)) {
        if (commands == InCommands) {
            if (line == ".\\\" {{END_COMMANDS}}") {
                std::string error;
                page << commandsSection(paragraphs, argv[1], error);
                if (!error.empty()) {
                    std::cerr << "error: " << error << "\n";
                    return 1;
                }
                commands = After;
            } else if (line.rfind(commandPrefix, 0) == 0 && line.size() > commandPrefix.size() + 2 &&
                       line.compare(line.size() - 2, 2, "}}") == 0) {
                const std::string name = line.substr(commandPrefix.size(), line.size() - commandPrefix.size() - 2);
                if (paragraphs.count(name)) {
                    std::cerr << "error: " << argv[1] << ": {{COMMAND " << name << "}} appears twice; keep one\n";
                    return 1;
                }
                paragraph = &paragraphs[name];
            } else if (paragraph) {
                *paragraph += line + "\n";
            } // else: a comment before the first {{COMMAND}} line, left out of the page
        } else if (line == ".\\\" {{COMMAND_FLAGS}}") {
            page << commandFlagsSection();
            commandFlags = true;
        } else if (line == ".\\\" {{TRAINING_OPTIONS}}") {
            page << optionsSection();
            replaced = true;
        } else if (line == ".\\\" {{COMMANDS}}" && commands == Before) {
            commands = InCommands;
        } else {
            page << line << "\n";
        }
    }
    if (commands != After) {
        std::cerr << "error: " << argv[1] << ": no {{COMMANDS}} ... {{END_COMMANDS}} region to replace\n";
        return 1;
    }
    if (!commandFlags) {
        std::cerr << "error: " << argv[1] << ": no {{COMMAND_FLAGS}} line to replace\n";
        return 1;
    }
    if (!replaced) {
        std::cerr << "error: " << argv[1] << ": no {{TRAINING_OPTIONS}} line to replace\n";
        return 1;
    }
    const std::string tmp = std::string(argv[2]) + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << page.str();
        if (!out.flush()) {
            std::cerr << "error: " << tmp << ": cannot be written\n";
            return 1;
        }
    }
    if (std::rename(tmp.c_str(), argv[2]) != 0) {
        std::cerr << "error: " << argv[2] << ": cannot be written\n";
        return 1;
    }
    return 0;
}
