// SPDX-License-Identifier: Apache-2.0
// Test helper: byte strings written as hex (test vectors from the formats' references).
#pragma once

#include <string>

namespace wbtest {

/// "0a1b…" → the bytes 0x0a 0x1b …; an odd trailing digit is ignored.
inline std::string fromHex(const std::string &hex)
{
    std::string out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
        out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    return out;
}

} // namespace wbtest
