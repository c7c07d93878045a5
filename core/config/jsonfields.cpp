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

} // namespace

bool readInt(const nlohmann::json &j, const char *key, int64_t &out, const std::string &source, Diagnostics &diag)
{
    const auto it = j.find(key);
    if (it == j.end())
        return false;
    if (it->is_null()) {
        diag.error(fieldName(source, key), "the value is null",
                   "give a value, or remove the key to use its default");
        return false;
    }
    if (it->is_number_integer()) {
        out = it->get<int64_t>();
        return true;
    }
    if (it->is_number_float()) {
        const double v = it->get<double>();
        if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15) {
            out = int64_t(v);
            return true;
        }
    }
    diag.error(fieldName(source, key), "expected an integer, got " + describe(*it),
               "write a whole number without quotes or a decimal point");
    return false;
}

bool readNumber(const nlohmann::json &j, const char *key, double &out, const std::string &source, Diagnostics &diag)
{
    const auto it = j.find(key);
    if (it == j.end())
        return false;
    if (it->is_null()) {
        diag.error(fieldName(source, key), "the value is null",
                   "give a value, or remove the key to use its default");
        return false;
    }
    if (it->is_number()) {
        out = it->get<double>();
        return true;
    }
    diag.error(fieldName(source, key), "expected a number, got " + describe(*it),
               "write a number without quotes");
    return false;
}

bool readString(const nlohmann::json &j, const char *key, std::string &out, const std::string &source,
                Diagnostics &diag)
{
    const auto it = j.find(key);
    if (it == j.end())
        return false;
    if (it->is_null()) {
        diag.error(fieldName(source, key), "the value is null",
                   "give a value, or remove the key to use its default");
        return false;
    }
    if (it->is_string()) {
        out = it->get<std::string>();
        return true;
    }
    diag.error(fieldName(source, key), "expected a string, got " + describe(*it),
               std::string("put the value in double quotes"));
    return false;
}

bool readBool(const nlohmann::json &j, const char *key, bool &out, const std::string &source, Diagnostics &diag)
{
    const auto it = j.find(key);
    if (it == j.end())
        return false;
    if (it->is_null()) {
        diag.error(fieldName(source, key), "the value is null",
                   "give a value, or remove the key to use its default");
        return false;
    }
    if (it->is_boolean()) {
        out = it->get<bool>();
        return true;
    }
    diag.error(fieldName(source, key), "expected true or false, got " + describe(*it), "write true or false without quotes");
    return false;
}

std::string formatNumber(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

} // namespace wb::detail
