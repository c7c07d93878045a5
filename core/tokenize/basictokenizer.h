// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

/// BERT's BasicTokenizer (google-research/bert tokenization.py):
/// drop U+0000, U+FFFD and control characters (Cc, Cf except \t \n \r), map whitespace
/// (space, \t, \n, \r, Zs) to spaces, space out CJK ideographs, split on whitespace; when
/// do_lower_case, Python str.lower() (incl. İ → i̇ and final sigma) then NFD and removal of
/// Mn marks; finally split off every punctuation character (ASCII 33–47, 58–64, 91–96,
/// 123–126 or category P*). Input bytes are UTF-8, invalid sequences ignored.
/// Immutable; thread-safe.
class BasicTokenizer
{
public:
    explicit BasicTokenizer(bool doLowerCase = true) : m_doLowerCase(doLowerCase) {}

    /// Appends the basic tokens of `text` (UTF-8) to `out`, stopping once `out` has grown
    /// by `maxTokens` tokens. Returns the number of invalid UTF-8 bytes that were dropped.
    size_t tokenize(std::string_view text, std::vector<std::string> &out,
                    size_t maxTokens = std::numeric_limits<size_t>::max()) const;

    /// The same tokens as tokenize(), each passed to `emit` as a view that is valid only during
    /// that call (no copies). Returns the number of invalid UTF-8 bytes dropped. Thread-safe.
    size_t scan(std::string_view text, size_t maxTokens, const std::function<void(std::string_view)> &emit) const;

    bool doLowerCase() const { return m_doLowerCase; }

private:
    bool m_doLowerCase;
};

/// BasicTokenizer's character classes, for code that must cut text only where the tokenizer
/// separates tokens anyway (core/corpus/pretrainingtext.h): whitespace (space, \t, \n, \r, Zs,
/// U+2028/U+2029), punctuation (ASCII 33–47, 58–64, 91–96, 123–126 or category P*), the CJK
/// ideographs that become tokens of their own (tokenization.py _is_chinese_char), and Python's
/// case-ignorable characters (the context of str.lower()'s final sigma: U+03A3 lowers to ς or σ
/// by the cased letters around it, skipping these). Pure; thread-safe.
bool isBertWhitespace(char32_t c);
bool isBertPunctuation(char32_t c);
bool isBertCjkIdeograph(char32_t c);
bool isCaseIgnorable(char32_t c);

} // namespace wb
