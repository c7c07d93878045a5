// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace wb {

/// Which letters a hex encoder writes for the digits 10–15.
enum class HexCase { Lower, Upper };

/// Returns the bytes of `bytes` as two hex digits each, most significant nibble first
/// ("\x01\xab" → "01ab"; "" → ""). Lower case is what digests, git ids and the Hub's ETags use.
/// Thread-safe.
std::string hexEncode(std::string_view bytes, HexCase letters = HexCase::Lower);

/// Appends the two hex digits of `byte` to `out` ('\xab' → "ab", or "AB" with HexCase::Upper).
void appendHexByte(std::string &out, unsigned char byte, HexCase letters = HexCase::Lower);

/// Returns the value (0–15) of the hex digit `c` of either case, or -1 when `c` is not one.
int hexDigitValue(char c);

/// Returns the bytes that the hex digits `hex` spell (either case: "01aB" → "\x01\xab"), or
/// nothing when `hex` has an odd length or a character that is not a hex digit. Thread-safe.
std::optional<std::string> hexDecode(std::string_view hex);

/// True when every character of `s` is a hex digit of either case (0-9, a-f, A-F); true for "".
bool isHex(std::string_view s);

/// True when every character of `s` is 0-9 or a-f (a digest or git id as this project writes
/// them, and as the Hub names commits); true for "". Callers check the length they expect.
bool isLowerHex(std::string_view s);

} // namespace wb
