// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/diagnostics.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace wb::detail {

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
