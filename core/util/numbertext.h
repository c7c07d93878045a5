// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace wb {

/// `text` read whole as a number, as std::stod reads it (white space before it skipped, also
/// "inf", "nan" and hex floats): std::nullopt when it holds no number or characters follow it.
/// Thread-safe.
std::optional<double> readWholeDouble(const std::string &text);

/// `text` read whole as a decimal integer, as std::stoi reads it (white space and a sign before
/// it): std::nullopt when it holds no integer, characters follow it, or it is out of int's range.
/// Thread-safe.
std::optional<int> readWholeInt(const std::string &text);

/// `n` with a comma between groups of three digits, as messages and the model card write counts:
/// 988480 → "988,480", -1200 → "-1,200". Pure.
std::string groupedDigits(int64_t n);

} // namespace wb
