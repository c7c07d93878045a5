// SPDX-License-Identifier: Apache-2.0
#include "core/config/fieldproblem.h"

namespace wb {

std::string FieldProblem::plainHint() const
{
    if (!advice.empty()) { // "Fix the label, or set skip_bad_rows on to skip such rows."
        std::string s = advice;
        for (size_t k = 0; k < fixes.size(); ++k) {
            const OptionFix &f = fixes[k];
            s += std::string(k + 1 == fixes.size() ? ", or set " : ", set ") + f.option
                 + (f.value.empty() ? std::string(" on") : " to " + f.value) + (f.purpose.empty() ? "" : " " + f.purpose);
        }
        return s + ".";
    }
    std::string s;
    for (size_t k = 0; k < fixes.size(); ++k) {
        const OptionFix &f = fixes[k];
        std::string fix = f.option + (f.value.empty() ? std::string(" on") : " to " + f.value)
                          + (f.purpose.empty() ? std::string() : " " + f.purpose);
        s += k == 0 ? "set " + fix : (k == 1 ? " (and " : ", and ") + fix;
    }
    if (fixes.size() > 1)
        s += ")";
    if (!reason.empty())
        s = reason + (s.empty() ? std::string() : ": " + s);
    if (!s.empty())
        s += ".";
    if (!recognised.empty())
        s += (s.empty() ? "" : " ") + std::string("Recognised without it: ") + recognised + ".";
    if (!s.empty() && s[0] >= 'a' && s[0] <= 'z')
        s[0] = char(s[0] - 'a' + 'A');
    return s;
}

} // namespace wb
