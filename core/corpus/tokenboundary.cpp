// SPDX-License-Identifier: Apache-2.0
// Where a long line may be cut so that BERT's tokenizer sees the same tokens (tokenBoundaryCut),
// and where a byte run stops being UTF-8 (firstInvalidUtf8): the character-level half of the
// pretraining reader (core/corpus/pretrainingtext.h).
#include "core/corpus/pretrainingtext.h"

#include "core/tokenize/basictokenizer.h"

#include <algorithm>

namespace wb {

namespace {

bool isContinuationByte(char c)
{
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The code point of the UTF-8 sequence at s[i], and its length in `len`; len 0 when the bytes
// there are no complete sequence (a continuation byte, a bad lead byte, or cut off by the end).
char32_t decodeAt(std::string_view s, size_t i, size_t &len)
{
    len = 0;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
        len = 1;
        return c;
    }
    size_t n;
    char32_t cp;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, cp = c & 0x1Fu;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, cp = c & 0x0Fu;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, cp = c & 0x07u;
    else
        return 0;
    if (i + n > s.size())
        return 0;
    for (size_t k = 1; k < n; ++k) {
        if (!isContinuationByte(s[i + k]))
            return 0;
        cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
    }
    len = n;
    return cp;
}

// Whitespace and CJK ideographs separate BasicTokenizer's tokens wherever they stand
// (core/tokenize/basictokenizer.h). \f and \v are control characters there, dropped but not
// separating, so they are not separators here.
bool separatesTokens(char32_t c) { return isBertWhitespace(c) || isBertCjkIdeograph(c); }

// A boundary beside a punctuation character also separates tokens (each punctuation character
// is a token of its own), unless lower-casing reads across it: str.lower() turns U+03A3 into ς
// or σ by the cased letters around it, skipping case-ignorable characters (".", "'", ":" …).
// With neither neighbour case-ignorable nor a sigma, no sigma's context crosses the cut.
bool punctuationBoundary(char32_t before, char32_t after)
{
    if (!isBertPunctuation(before) && !isBertPunctuation(after))
        return false;
    return !isCaseIgnorable(before) && !isCaseIgnorable(after) && before != 0x03A3 && after != 0x03A3;
}

} // namespace

size_t tokenBoundaryCut(std::string_view s, size_t limit, bool &insideWord)
{
    insideWord = false;
    if (s.size() <= limit)
        return s.size();
    if (limit == 0)
        return std::min<size_t>(1, s.size());
    // The last character boundary at or before `limit`.
    size_t p = limit;
    while (p > 0 && isContinuationByte(s[p]))
        --p;
    const size_t characterCut = p;
    size_t len = 0;
    char32_t at = decodeAt(s, p, len); // the character that would begin part 2
    bool atValid = len > 0;
    while (p > 0) {
        size_t q = p - 1; // the character before p
        while (q > 0 && p - q < 4 && isContinuationByte(s[q]))
            --q;
        const char32_t before = decodeAt(s, q, len);
        const bool beforeValid = len == p - q;
        if ((atValid && separatesTokens(at)) || (beforeValid && separatesTokens(before))
            || (atValid && beforeValid && punctuationBoundary(before, at)))
            return p;
        at = before;
        atValid = beforeValid;
        p = q;
    }
    insideWord = true;
    return characterCut > 0 ? characterCut : limit; // 0 only for bytes that are not UTF-8 (an error later)
}

size_t firstInvalidUtf8(std::string_view s)
{
    size_t i = 0;
    const size_t n = s.size();
    while (i < n) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        size_t len;
        uint32_t cp, min;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2, cp = c & 0x1Fu, min = 0x80;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3, cp = c & 0x0Fu, min = 0x800;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4, cp = c & 0x07u, min = 0x10000;
        } else {
            return i;
        }
        if (i + len > n)
            return i;
        for (size_t k = 1; k < len; ++k) {
            const auto d = static_cast<unsigned char>(s[i + k]);
            if ((d & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (d & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += len;
    }
    return std::string_view::npos;
}

} // namespace wb
