// SPDX-License-Identifier: Apache-2.0
#include "app/cli/errors.h"

#include "app/cli/commands.h"
#include "core/util/error.h"

#include <algorithm>
#include <ostream>
#include <vector>

namespace wb::cli {

int reportError(std::ostream &err, const ErrorText &error, int exitCode)
{
    err << "error: " << error.line() << "\n";
    if (!error.hint.empty())
        err << "  hint: " << error.hint << "\n";
    err.flush();
    return exitCode;
}

std::string cliFieldHint(const FieldProblem &p)
{
    const auto flag = [](const OptionFix &f) {
        return "--" + f.option + (f.value.empty() ? std::string() : "=" + f.value)
               + (f.purpose.empty() ? std::string() : " " + f.purpose);
    };
    if (!p.advice.empty()) { // "Fix the label, pass --label_list …, or pass --skip_bad_rows to skip such rows."
        std::string s = p.advice;
        for (size_t k = 0; k < p.fixes.size(); ++k)
            s += std::string(k + 1 == p.fixes.size() ? ", or pass " : ", pass ") + flag(p.fixes[k]);
        return s + ".";
    }
    std::string s;
    for (size_t k = 0; k < p.fixes.size(); ++k)
        s += k == 0 ? (p.reason.empty() ? "Pass " : p.reason + ": use ") + flag(p.fixes[k])
                    : (k == 1 ? " (and " : ", and ") + flag(p.fixes[k]);
    if (p.fixes.size() > 1)
        s += ")";
    if (!s.empty())
        s += ".";
    if (!p.recognised.empty())
        s += (s.empty() ? "" : " ") + std::string("Recognised without a flag: ") + p.recognised + ".";
    if (!s.empty() && s[0] >= 'a' && s[0] <= 'z')
        s[0] = char(s[0] - 'a' + 'A');
    return s;
}

int reportCurrentException(std::ostream &err, const std::string &fallbackField, int exitCode)
{
    ErrorText text = describeCurrentException(fallbackField);
    try {
        throw;
    } catch (const FieldError &e) {
        text.hint = cliFieldHint(e.problem());
    } catch (const BadRowsError &e) { // each distinct fix once, in the rows' order
        std::vector<std::string> hints;
        for (const RowProblem &r : e.rows())
            if (std::find(hints.begin(), hints.end(), cliFieldHint(r.problem)) == hints.end())
                hints.push_back(cliFieldHint(r.problem));
        text.hint.clear();
        for (const std::string &h : hints)
            text.hint += (text.hint.empty() ? "" : " ") + h;
    } catch (...) {
    }
    return reportError(err, text, exitCode);
}

int reportCommandException(std::ostream &err, const std::string &fallbackField)
{
    try {
        throw;
    } catch (const Error &) {
        return reportCurrentException(err, fallbackField, kExitInvalid);
    } catch (...) {
        return reportCurrentException(err, fallbackField, kExitRuntime);
    }
}

int reportInvalidConfiguration(std::ostream &err, const Diagnostics &diagnostics)
{
    Diagnostics errors;
    for (const auto &d : diagnostics.items())
        if (d.severity == Severity::Error)
            errors.add(d);
    err << errors.format();
    err << errors.errorCount() << " problem(s) found; nothing was run.\n";
    return kExitInvalid;
}

} // namespace wb::cli
