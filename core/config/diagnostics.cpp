// SPDX-License-Identifier: Apache-2.0
#include "core/config/diagnostics.h"

#include <algorithm>

namespace wb {

void Diagnostics::error(std::string field, std::string message, std::string hint)
{
    m_items.push_back({Severity::Error, std::move(field), std::move(message), std::move(hint)});
}

void Diagnostics::warning(std::string field, std::string message, std::string hint)
{
    m_items.push_back({Severity::Warning, std::move(field), std::move(message), std::move(hint)});
}

void Diagnostics::info(std::string field, std::string message, std::string hint)
{
    m_items.push_back({Severity::Info, std::move(field), std::move(message), std::move(hint)});
}

void Diagnostics::append(const Diagnostics &other)
{
    m_items.insert(m_items.end(), other.m_items.begin(), other.m_items.end());
}

bool Diagnostics::hasErrors() const
{
    return errorCount() > 0;
}

int Diagnostics::errorCount() const
{
    return int(std::count_if(m_items.begin(), m_items.end(),
                             [](const Diagnostic &d) { return d.severity == Severity::Error; }));
}

std::string Diagnostics::format(bool withHints) const
{
    std::string out;
    for (const Diagnostic &d : m_items) {
        out += severityName(d.severity);
        out += ": ";
        if (!d.field.empty()) {
            out += d.field;
            out += ": ";
        }
        out += d.message;
        out += '\n';
        if (withHints && !d.hint.empty()) {
            out += "  hint: ";
            out += d.hint;
            out += '\n';
        }
    }
    return out;
}

const char *severityName(Severity s)
{
    switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "info";
    }
    return "error";
}

} // namespace wb
