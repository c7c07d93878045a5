// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

namespace wb {

/// The six ASCII whitespace characters (std::isspace in the "C" locale): space, \t, \n, \v, \f, \r.
inline constexpr std::string_view kAsciiWhitespace = " \t\n\v\f\r";

/// Returns `s` without its leading and trailing characters of `whitespace` ("" when every
/// character is one). Bytes outside ASCII are never stripped. Thread-safe.
std::string trimmed(std::string_view s, std::string_view whitespace = kAsciiWhitespace);

/// Returns `s` lowered byte by byte with std::tolower: under the "C" or a UTF-8 locale only
/// A-Z change (UTF-8 bytes are kept). Thread-safe.
std::string lowerAscii(std::string s);

/// True when `s` begins with `prefix`, byte for byte (case-sensitive; "" begins every string).
/// Pure.
inline bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

/// True when `s` ends with `suffix`, byte for byte (case-sensitive; "" ends every string). Pure.
inline bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

} // namespace wb
