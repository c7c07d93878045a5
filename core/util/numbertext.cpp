// SPDX-License-Identifier: Apache-2.0
#include "core/util/numbertext.h"

namespace wb {

namespace {

/// `text` read by `parse` (std::stod, std::stoi with their `pos` argument), or nothing when it
/// throws, reads nothing or leaves characters over.
template <typename T, typename Parse>
std::optional<T> readWhole(const std::string &text, Parse parse)
{
    size_t used = 0;
    T v{};
    try {
        v = parse(text, &used);
    } catch (...) {
        return std::nullopt;
    }
    if (used == 0 || used != text.size())
        return std::nullopt;
    return v;
}

} // namespace

std::optional<double> readWholeDouble(const std::string &text)
{
    return readWhole<double>(text, [](const std::string &t, size_t *used) { return std::stod(t, used); });
}

std::optional<int> readWholeInt(const std::string &text)
{
    return readWhole<int>(text, [](const std::string &t, size_t *used) { return std::stoi(t, used); });
}

std::string groupedDigits(int64_t n)
{
    const std::string digits = n < 0 ? std::to_string(n).substr(1) : std::to_string(n);
    std::string out;
    for (size_t k = 0; k < digits.size(); ++k) {
        if (k && (digits.size() - k) % 3 == 0)
            out += ',';
        out += digits[k];
    }
    return (n < 0 ? "-" : "") + out;
}

} // namespace wb
