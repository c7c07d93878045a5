// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace wb {

/// Severity of one validation finding.
enum class Severity { Error, Warning, Info };

/// One validation finding: what is wrong, where, and how to fix it.
struct Diagnostic
{
    Severity severity = Severity::Error;
    std::string field;   ///< flag, JSON key or file the finding is about, e.g. "bert_config.json: hidden_act"
    std::string message; ///< what is wrong, one sentence
    std::string hint;    ///< how to fix it, one sentence (may be empty)
};

/// An ordered list of findings. Validation never stops at the first problem: it collects
/// all of them so a user can fix everything at once. Not thread-safe; a plain value.
class Diagnostics
{
public:
    void error(std::string field, std::string message, std::string hint = {});
    void warning(std::string field, std::string message, std::string hint = {});
    void info(std::string field, std::string message, std::string hint = {});
    void add(Diagnostic d) { m_items.push_back(std::move(d)); }
    void append(const Diagnostics &other);

    /// Returns true when at least one finding has Severity::Error.
    bool hasErrors() const;
    /// Returns the number of findings with Severity::Error.
    int errorCount() const;
    const std::vector<Diagnostic> &items() const { return m_items; }
    bool empty() const { return m_items.empty(); }

    /// Returns "error: <field>: <message>" (plus " (hint)" on a new indented line when
    /// there is a hint) for every finding, one per line: the CLI's stderr format.
    std::string format(bool withHints = true) const;

private:
    std::vector<Diagnostic> m_items;
};

/// Returns "error", "warning" or "info".
const char *severityName(Severity s);

} // namespace wb
