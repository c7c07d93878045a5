// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/diagnostics.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>

namespace wb::detail {

/// `v` as an integer: an integer (an unsigned above int64's range wraps), or a float with an
/// integral value below 9e15 in magnitude; nothing for anything else. Pure.
std::optional<int64_t> jsonInteger(const nlohmann::json &v);

/// `v` as T when it holds one, else nothing: int64_t as jsonInteger, double any number,
/// bool true or false, std::string a string. The one type rule of readInt, readNumber,
/// readBool, readString and of JsonRecord's readers (core/config/jsonrecord.h). Pure.
template <class T>
std::optional<T> jsonValueAs(const nlohmann::json &v)
{
    if constexpr (std::is_same_v<T, int64_t>)
        return jsonInteger(v);
    else if constexpr (std::is_same_v<T, double>)
        return v.is_number() ? std::optional<T>(v.get<double>()) : std::nullopt;
    else if constexpr (std::is_same_v<T, bool>)
        return v.is_boolean() ? std::optional<T>(v.get<bool>()) : std::nullopt;
    else
        return v.is_string() ? std::optional<T>(v.get<std::string>()) : std::nullopt;
}

/// Reads an integer key into `out` (kept when absent). A float with an integral value is
/// accepted; other types are an error naming "<source>: <key>". Returns true when present
/// and valid.
bool readInt(const nlohmann::json &j, const char *key, int64_t &out, const std::string &source, Diagnostics &diag);
/// Reads a number key (integer or float).
bool readNumber(const nlohmann::json &j, const char *key, double &out, const std::string &source, Diagnostics &diag);
/// Reads a string key.
bool readString(const nlohmann::json &j, const char *key, std::string &out, const std::string &source,
                Diagnostics &diag);
/// Reads a boolean key.
bool readBool(const nlohmann::json &j, const char *key, bool &out, const std::string &source, Diagnostics &diag);

/// Returns `v` in the shortest "%g" form (1e+30, 0.1, 1.5), for messages.
std::string formatNumber(double v);

/// Returns "<source>: <key>".
std::string fieldName(const std::string &source, const std::string &key);

} // namespace wb::detail
