// SPDX-License-Identifier: Apache-2.0
#include "core/util/hex.h"

namespace wb {

namespace {

constexpr char kLowerDigits[] = "0123456789abcdef";
constexpr char kUpperDigits[] = "0123456789ABCDEF";

} // namespace

int hexDigitValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void appendHexByte(std::string &out, unsigned char byte, HexCase letters)
{
    const char *digits = letters == HexCase::Upper ? kUpperDigits : kLowerDigits;
    out += digits[byte >> 4];
    out += digits[byte & 15];
}

std::string hexEncode(std::string_view bytes, HexCase letters)
{
    std::string out;
    out.reserve(2 * bytes.size());
    for (char c : bytes)
        appendHexByte(out, static_cast<unsigned char>(c), letters);
    return out;
}

std::optional<std::string> hexDecode(std::string_view hex)
{
    if (hex.size() % 2 != 0)
        return std::nullopt;
    std::string out;
    out.reserve(hex.size() / 2);
    for (size_t i = 0; i < hex.size(); i += 2) {
        const int hi = hexDigitValue(hex[i]);
        const int lo = hexDigitValue(hex[i + 1]);
        if (hi < 0 || lo < 0)
            return std::nullopt;
        out += char((hi << 4) | lo);
    }
    return out;
}

bool isHex(std::string_view s)
{
    for (char c : s)
        if (hexDigitValue(c) < 0)
            return false;
    return true;
}

bool isLowerHex(std::string_view s)
{
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    return true;
}

} // namespace wb
