// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace wb {

/// Decodes UTF-8 like Python's bytes.decode("utf-8", errors="ignore"): every maximal
/// invalid subsequence (bad lead byte, truncated or overlong sequence, surrogate, code
/// point > U+10FFFF) is dropped. `droppedBytes`, when given, receives how many input bytes
/// were dropped. Thread-safe.
std::u32string decodeUtf8Lenient(std::string_view bytes, size_t *droppedBytes = nullptr);

/// Appends the UTF-8 encoding of code point `cp` to `out`.
void appendUtf8(std::string &out, char32_t cp);

/// Returns the UTF-8 encoding of `text`.
std::string encodeUtf8(std::u32string_view text);

/// Returns true when `bytes` is valid UTF-8 (no byte would be dropped by decodeUtf8Lenient).
bool isValidUtf8(std::string_view bytes);

} // namespace wb
