// SPDX-License-Identifier: Apache-2.0
#include "core/tokenize/basictokenizer.h"

#include "core/tokenize/unicodetext.h"
#include "core/util/error.h"

#include <utf8proc.h>

#include <algorithm>
#include <functional>

namespace wb {

namespace {

utf8proc_category_t category(char32_t c)
{
    return utf8proc_category(static_cast<utf8proc_int32_t>(c));
}

bool isWhitespace(char32_t c)
{
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        return true;
    if (c < 0x80)
        return false;
    // U+2028/U+2029 (Zl/Zp) survive cleaning but Python's str.split() splits on them.
    return c == 0x2028 || c == 0x2029 || category(c) == UTF8PROC_CATEGORY_ZS;
}

bool isControl(char32_t c)
{
    if (c == '\t' || c == '\n' || c == '\r')
        return false;
    if (c < 0x80)
        return c < 0x20 || c == 0x7F;
    const auto cat = category(c);
    return cat == UTF8PROC_CATEGORY_CC || cat == UTF8PROC_CATEGORY_CF;
}

bool isPunctuation(char32_t c)
{
    if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126))
        return true;
    if (c < 0x80)
        return false;
    const auto cat = category(c);
    return cat >= UTF8PROC_CATEGORY_PC && cat <= UTF8PROC_CATEGORY_PO;
}

bool isCjk(char32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF)
        || (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF)
        || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool isCased(char32_t c)
{
    const auto cat = category(c);
    if (cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LL || cat == UTF8PROC_CATEGORY_LT)
        return true;
    const auto i = static_cast<utf8proc_int32_t>(c);
    return utf8proc_tolower(i) != i || utf8proc_toupper(i) != i;
}

bool caseIgnorable(char32_t c)
{
    switch (c) {
    case 0x27: case 0x2E: case 0x3A: case 0xB7: case 0x387: case 0x5F4: case 0x2018: case 0x2019:
    case 0x2024: case 0x2027: case 0xFE13: case 0xFE52: case 0xFE55: case 0xFF07: case 0xFF0E: case 0xFF1A:
        return true;
    default:
        break;
    }
    const auto cat = category(c);
    return cat == UTF8PROC_CATEGORY_MN || cat == UTF8PROC_CATEGORY_ME || cat == UTF8PROC_CATEGORY_CF
        || cat == UTF8PROC_CATEGORY_LM || cat == UTF8PROC_CATEGORY_SK;
}

// Python's final-sigma rule: Σ preceded by a cased letter and not followed by one.
bool isFinalSigma(const std::u32string &w, size_t i)
{
    size_t j = i;
    bool before = false;
    while (j > 0) {
        --j;
        if (caseIgnorable(w[j]))
            continue;
        before = isCased(w[j]);
        break;
    }
    if (!before)
        return false;
    for (size_t k = i + 1; k < w.size(); ++k) {
        if (caseIgnorable(w[k]))
            continue;
        return !isCased(w[k]);
    }
    return true;
}

// str.lower() then NFD then drop Mn (BasicTokenizer._run_strip_accents).
void lowerAndStripAccents(std::u32string &word, std::u32string &scratch)
{
    bool ascii = true;
    for (char32_t &c : word) {
        if (c < 0x80) {
            if (c >= 'A' && c <= 'Z')
                c += 32;
        } else {
            ascii = false;
        }
    }
    if (ascii)
        return;
    scratch.clear();
    for (size_t i = 0; i < word.size(); ++i) {
        const char32_t c = word[i];
        if (c < 0x80) {
            scratch.push_back(c);
        } else if (c == 0x130) {
            scratch.push_back('i');
            scratch.push_back(0x307);
        } else if (c == 0x3A3) {
            scratch.push_back(isFinalSigma(word, i) ? 0x3C2 : 0x3C3);
        } else {
            scratch.push_back(static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
        }
    }
    // NFD: decompose each code point, then put combining marks in canonical order.
    word.clear();
    utf8proc_int32_t buf[32];
    for (char32_t c : scratch) {
        if (c < 0xC0) {
            word.push_back(c);
            continue;
        }
        int last = 0;
        const utf8proc_ssize_t n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(c), buf, 32,
                                                           UTF8PROC_DECOMPOSE, &last);
        if (n <= 0 || n > 32) {
            word.push_back(c);
            continue;
        }
        for (utf8proc_ssize_t k = 0; k < n; ++k)
            word.push_back(static_cast<char32_t>(buf[k]));
    }
    auto ccc = [](char32_t c) {
        return c < 0x300 ? 0 : utf8proc_get_property(static_cast<utf8proc_int32_t>(c))->combining_class;
    };
    for (size_t i = 0; i < word.size();) {
        if (ccc(word[i]) == 0) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < word.size() && ccc(word[j]) != 0)
            ++j;
        std::stable_sort(word.begin() + long(i), word.begin() + long(j),
                         [&](char32_t a, char32_t b) { return ccc(a) < ccc(b); });
        i = j;
    }
    word.erase(std::remove_if(word.begin(), word.end(),
                              [](char32_t c) { return c >= 0x300 && category(c) == UTF8PROC_CATEGORY_MN; }),
               word.end());
}

// The ASCII bytes' classes: what the code-point tests above say for c < 0x80.
enum AsciiClass : unsigned char { kAsciiWord, kAsciiSkip, kAsciiSpace, kAsciiPunct };

struct AsciiTable
{
    AsciiClass c[128];
    AsciiTable()
    {
        for (char32_t i = 0; i < 128; ++i)
            c[i] = (i == 0 || isControl(i)) ? kAsciiSkip
                : isWhitespace(i)           ? kAsciiSpace
                : isPunctuation(i)          ? kAsciiPunct
                                            : kAsciiWord;
    }
};
const AsciiTable kAscii;

bool chunkIsAscii(std::string_view bytes)
{
    unsigned char any = 0;
    for (const char b : bytes)
        any |= static_cast<unsigned char>(b);
    return any < 0x80;
}

/// The most bytes scan() decodes at a time, so that a limit on the tokens stops the work early.
const size_t kChunk = 4096;

/// Cuts the next chunk of `text` at `pos` (at most kChunk bytes, ending before a UTF-8 lead byte so
/// no sequence straddles two chunks) and moves `pos` past it.
std::string_view nextChunk(std::string_view text, size_t &pos)
{
    size_t end = std::min(text.size(), pos + kChunk);
    while (end < text.size() && end > pos && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
        --end;
    if (end == pos)
        end = std::min(text.size(), pos + kChunk);
    const std::string_view chunk = text.substr(pos, end - pos);
    pos = end;
    return chunk;
}

/// The state of one BasicTokenizer::scan: the word being read (as bytes while it is ASCII only,
/// else as code points), the tokens emitted so far and the limit on them.
class TokenScanner
{
public:
    TokenScanner(bool doLowerCase, size_t maxTokens, const std::function<void(std::string_view)> &emit)
        : m_doLowerCase(doLowerCase), m_maxTokens(maxTokens), m_emit(emit)
    {
    }

    /// Whether `maxTokens` tokens have been emitted.
    bool full() const { return m_count >= m_maxTokens; }

    /// Reads a chunk of ASCII bytes without decoding it, stopping once full().
    void asciiChunk(std::string_view chunk)
    {
        for (const char ch : chunk) {
            const auto b = static_cast<unsigned char>(ch);
            switch (kAscii.c[b]) {
            case kAsciiWord:
            case kAsciiPunct:
                push(b);
                break;
            case kAsciiSpace:
                flush();
                break;
            case kAsciiSkip:
                break;
            }
            if (full())
                break;
        }
    }

    /// Reads decoded code points, stopping once full().
    void codePoints(const std::u32string &cps)
    {
        for (char32_t c : cps) {
            codePoint(c);
            if (full())
                break;
        }
    }

    /// Emits the tokens of the word read so far, if any.
    void flush()
    {
        if (m_wordIsAscii) {
            if (!m_asciiWord.empty())
                flushAscii();
        } else {
            flushGeneral();
        }
    }

private:
    /// Passes one token to `emit` and counts it.
    void put(std::string_view t)
    {
        m_emit(t);
        ++m_count;
    }

    /// Emits the ASCII word (lowered as it was read), cut at punctuation in place.
    void flushAscii()
    {
        const std::string_view w(m_asciiWord);
        size_t begin = 0;
        for (size_t i = 0; i < w.size(); ++i) {
            if (full())
                break;
            if (kAscii.c[static_cast<unsigned char>(w[i])] == kAsciiPunct) {
                if (i > begin) {
                    put(w.substr(begin, i - begin));
                    if (full()) {
                        begin = i;
                        break;
                    }
                }
                put(w.substr(i, 1));
                begin = i + 1;
            }
        }
        if (begin < w.size() && !full()) // the rest after the last punctuation
            put(w.substr(begin));
        m_asciiWord.clear();
    }

    /// Emits the word of code points: lowered with accents dropped when doLowerCase, then split
    /// at punctuation.
    void flushGeneral()
    {
        if (m_doLowerCase)
            lowerAndStripAccents(m_word, m_scratch);
        m_piece.clear();
        for (char32_t c : m_word) {
            if (full())
                break;
            if (isPunctuation(c)) {
                if (!m_piece.empty()) {
                    put(m_piece);
                    m_piece.clear();
                    if (full())
                        break;
                }
                std::string p;
                appendUtf8(p, c);
                put(p);
            } else {
                appendUtf8(m_piece, c);
            }
        }
        if (!m_piece.empty() && !full())
            put(m_piece);
        m_word.clear();
        m_wordIsAscii = true;
    }

    /// Appends a code point of a word: to the ASCII bytes while the word has no other code point.
    void push(char32_t c)
    {
        if (m_wordIsAscii && c < 0x80) {
            m_asciiWord.push_back(static_cast<char>(m_doLowerCase && c >= 'A' && c <= 'Z' ? c + 32 : c));
            return;
        }
        if (m_wordIsAscii) { // the word so far moves to the general path (lowering ASCII twice is lowering once)
            m_word.assign(m_asciiWord.begin(), m_asciiWord.end());
            m_asciiWord.clear();
            m_wordIsAscii = false;
        }
        m_word.push_back(c);
    }

    /// Reads one decoded code point: drops it, ends a word at whitespace, makes a CJK ideograph a
    /// word of its own, else adds it to the word.
    void codePoint(char32_t c)
    {
        if (c == 0 || c == 0xFFFD || isControl(c))
            return;
        if (isWhitespace(c)) {
            flush();
        } else if (isCjk(c)) {
            flush();
            push(c);
            flush();
        } else {
            push(c);
        }
    }

    const bool m_doLowerCase;
    const size_t m_maxTokens;
    const std::function<void(std::string_view)> &m_emit;
    size_t m_count = 0;
    std::string m_asciiWord, m_piece;
    std::u32string m_word, m_scratch;
    bool m_wordIsAscii = true;
};

} // namespace

// One scan for both entry points: `emit` gets each token as a view that is valid only during
// the call. A word of ASCII only (most words of most text) is kept as bytes, lowered as it is
// read and cut at punctuation in place; a word with any other code point takes the general
// path (str.lower(), NFD, accents dropped, then the punctuation split).
size_t BasicTokenizer::scan(std::string_view text, size_t maxTokens, const std::function<void(std::string_view)> &emit) const
{
    TokenScanner scanner(m_doLowerCase, maxTokens, emit);
    // Decode chunk by chunk (like decodeUtf8Lenient) so a limit stops the work early; a chunk of
    // ASCII only is read byte by byte without decoding.
    size_t dropped = 0;
    size_t pos = 0;
    while (pos < text.size() && !scanner.full()) {
        const std::string_view chunk = nextChunk(text, pos);
        if (chunkIsAscii(chunk)) {
            scanner.asciiChunk(chunk);
            continue;
        }
        size_t d = 0;
        const std::u32string cps = decodeUtf8Lenient(chunk, &d);
        dropped += d;
        scanner.codePoints(cps);
    }
    // A word still open at the end (or when stopping early) completes the count.
    if (!scanner.full())
        scanner.flush();
    return dropped;
}

size_t BasicTokenizer::tokenize(std::string_view text, std::vector<std::string> &out, size_t maxTokens) const
{
    return scan(text, maxTokens, [&](std::string_view t) { out.emplace_back(t); });
}

bool isBertWhitespace(char32_t c) { return isWhitespace(c); }
bool isBertPunctuation(char32_t c) { return isPunctuation(c); }
bool isBertCjkIdeograph(char32_t c) { return isCjk(c); }
bool isCaseIgnorable(char32_t c) { return caseIgnorable(c); }

} // namespace wb
