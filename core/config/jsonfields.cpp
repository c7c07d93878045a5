// SPDX-License-Identifier: Apache-2.0
#include "core/config/jsonfields.h"

#include <cmath>
#include <cstdio>

namespace wb::detail {

std::string fieldName(const std::string &source, const std::string &key)
{
    return source.empty() ? key : source + ": " + key;
}

namespace {

std::string describe(const nlohmann::json &v)
{
    std::string s = v.dump();
    if (s.size() > 40)
        s = s.substr(0, 37) + "...";
    return std::string(v.type_name()) + " " + s;
}

/// Returns the value of `key`, or null when `j` lacks the key or its value is null (an error
/// in `diag`: a null is no value).
const nlohmann::json *valueOf(const nlohmann::json &j, const char *key, const std::string &source, Diagnostics &diag)
{
    const auto it = j.find(key);
    if (it == j.end())
        return nullptr;
    if (it->is_null()) {
        diag.error(fieldName(source, key), "the value is null", "give a value, or remove the key to use its default");
        return nullptr;
    }
    return &*it;
}

/// Reads `key` as T (jsonValueAs) into `out`: false when it is absent or null, or of another
/// type, which is the error "expected <expected>, got <v>" for `key` in `diag`.
template <class T>
bool readAs(const nlohmann::json &j, const char *key, T &out, const char *expected, const char *hint,
            const std::string &source, Diagnostics &diag)
{
    const nlohmann::json *v = valueOf(j, key, source, diag);
    if (!v)
        return false;
    if (const std::optional<T> x = jsonValueAs<T>(*v)) {
        out = *x;
        return true;
    }
    diag.error(fieldName(source, key), std::string("expected ") + expected + ", got " + describe(*v), hint);
    return false;
}

} // namespace

std::optional<int64_t> jsonInteger(const nlohmann::json &v)
{
    if (v.is_number_integer())
        return v.get<int64_t>();
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15)
            return int64_t(d);
    }
    return std::nullopt;
}

bool readInt(const nlohmann::json &j, const char *key, int64_t &out, const std::string &source, Diagnostics &diag)
{
    return readAs(j, key, out, "an integer", "write a whole number without quotes or a decimal point", source, diag);
}

bool readNumber(const nlohmann::json &j, const char *key, double &out, const std::string &source, Diagnostics &diag)
{
    return readAs(j, key, out, "a number", "write a number without quotes", source, diag);
}

bool readString(const nlohmann::json &j, const char *key, std::string &out, const std::string &source,
                Diagnostics &diag)
{
    return readAs(j, key, out, "a string", "put the value in double quotes", source, diag);
}

bool readBool(const nlohmann::json &j, const char *key, bool &out, const std::string &source, Diagnostics &diag)
{
    return readAs(j, key, out, "true or false", "write true or false without quotes", source, diag);
}

std::string formatNumber(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

} // namespace wb::detail
