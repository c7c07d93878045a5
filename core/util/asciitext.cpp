// SPDX-License-Identifier: Apache-2.0
#include "core/util/asciitext.h"

#include <cctype>

namespace wb {

std::string trimmed(std::string_view s, std::string_view whitespace)
{
    const size_t b = s.find_first_not_of(whitespace);
    if (b == std::string_view::npos)
        return {};
    return std::string(s.substr(b, s.find_last_not_of(whitespace) - b + 1));
}

std::string lowerAscii(std::string s)
{
    for (char &c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

} // namespace wb
