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

/// Adds the error "expected <expected>, got <v>" for `key` to `diag`; returns false.
bool wrongType(const nlohmann::json &v, const char *key, const char *expected, const char *hint,
               const std::string &source, Diagnostics &diag)
{
    diag.error(fieldName(source, key), std::string("expected ") + expected + ", got " + describe(v), hint);
    return false;
}

} // namespace

bool readInt(const nlohmann::json &j, const char *key, int64_t &out, const std::string &source, Diagnostics &diag)
{
    const nlohmann::json *v = valueOf(j, key, source, diag);
    if (!v)
        return false;
    if (v->is_number_integer()) {
        out = v->get<int64_t>();
        return true;
    }
    if (v->is_number_float()) {
        const double d = v->get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) {
            out = int64_t(d);
            return true;
        }
    }
    return wrongType(*v, key, "an integer", "write a whole number without quotes or a decimal point", source, diag);
}

bool readNumber(const nlohmann::json &j, const char *key, double &out, const std::string &source, Diagnostics &diag)
{
    const nlohmann::json *v = valueOf(j, key, source, diag);
    if (!v)
        return false;
    if (v->is_number()) {
        out = v->get<double>();
        return true;
    }
    return wrongType(*v, key, "a number", "write a number without quotes", source, diag);
}

bool readString(const nlohmann::json &j, const char *key, std::string &out, const std::string &source,
                Diagnostics &diag)
{
    const nlohmann::json *v = valueOf(j, key, source, diag);
    if (!v)
        return false;
    if (v->is_string()) {
        out = v->get<std::string>();
        return true;
    }
    return wrongType(*v, key, "a string", "put the value in double quotes", source, diag);
}

bool readBool(const nlohmann::json &j, const char *key, bool &out, const std::string &source, Diagnostics &diag)
{
    const nlohmann::json *v = valueOf(j, key, source, diag);
    if (!v)
        return false;
    if (v->is_boolean()) {
        out = v->get<bool>();
        return true;
    }
    return wrongType(*v, key, "true or false", "write true or false without quotes", source, diag);
}

std::string formatNumber(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

} // namespace wb::detail
