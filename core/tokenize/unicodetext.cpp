// SPDX-License-Identifier: Apache-2.0
#include "core/tokenize/unicodetext.h"

namespace wb {

namespace {

// Decodes one sequence at `i`; returns bytes consumed and sets cp (or -1 when invalid).
// Mirrors CPython's UTF-8 decoder: an invalid sequence consumes its valid prefix only.
size_t decodeOne(const unsigned char *s, size_t n, size_t i, long &cp)
{
    const unsigned char b0 = s[i];
    if (b0 < 0x80) {
        cp = b0;
        return 1;
    }
    int need;
    unsigned char lo = 0x80, hi = 0xBF;
    long value;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        need = 1;
        value = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        need = 2;
        value = b0 & 0x0F;
        if (b0 == 0xE0)
            lo = 0xA0;
        else if (b0 == 0xED)
            hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        need = 3;
        value = b0 & 0x07;
        if (b0 == 0xF0)
            lo = 0x90;
        else if (b0 == 0xF4)
            hi = 0x8F;
    } else {
        cp = -1;
        return 1;
    }
    size_t j = i + 1;
    for (int k = 0; k < need; ++k, ++j) {
        if (j >= n) {
            cp = -1;
            return j - i;
        }
        const unsigned char b = s[j];
        const unsigned char l = k == 0 ? lo : 0x80, h = k == 0 ? hi : 0xBF;
        if (b < l || b > h) {
            cp = -1;
            return j - i;
        }
        value = (value << 6) | (b & 0x3F);
    }
    cp = value;
    return j - i;
}

} // namespace

std::u32string decodeUtf8Lenient(std::string_view bytes, size_t *droppedBytes)
{
    std::u32string out;
    out.reserve(bytes.size());
    const auto *s = reinterpret_cast<const unsigned char *>(bytes.data());
    const size_t n = bytes.size();
    size_t dropped = 0;
    for (size_t i = 0; i < n;) {
        long cp;
        const size_t used = decodeOne(s, n, i, cp);
        if (cp >= 0)
            out.push_back(static_cast<char32_t>(cp));
        else
            dropped += used;
        i += used;
    }
    if (droppedBytes)
        *droppedBytes = dropped;
    return out;
}

bool isValidUtf8(std::string_view bytes)
{
    const auto *s = reinterpret_cast<const unsigned char *>(bytes.data());
    const size_t n = bytes.size();
    for (size_t i = 0; i < n;) {
        long cp;
        i += decodeOne(s, n, i, cp);
        if (cp < 0)
            return false;
    }
    return true;
}

void appendUtf8(std::string &out, char32_t cp)
{
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

std::string encodeUtf8(std::u32string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (char32_t c : text)
        appendUtf8(out, c);
    return out;
}

} // namespace wb
