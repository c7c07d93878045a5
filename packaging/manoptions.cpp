// SPDX-License-Identifier: Apache-2.0
// Build tool (not installed): writes the man page with its TRAINING FLAGS section generated
// from the option table (core/config/optiontable.h), so the page lists every flag the CLI
// takes, with the same summary, unit and default as `--help`.
//
//   bert-workbench-manoptions <page.1 with a {{TRAINING_OPTIONS}} comment line> <output page>

#include "core/config/optiontable.h"

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

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
    std::ostringstream page;
    std::string line;
    bool replaced = false;
    while (std::getline(in, line)) {
        if (line == ".\\\" {{TRAINING_OPTIONS}}") {
            page << optionsSection();
            replaced = true;
        } else {
            page << line << "\n";
        }
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
