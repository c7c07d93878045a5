// SPDX-License-Identifier: Apache-2.0
#include "core/config/jsonrecord.h"

#include "core/config/jsonfile.h"
#include "core/util/error.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace fs = std::filesystem;

namespace wb {

namespace {

std::string shortDump(const nlohmann::json &v)
{
    std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (s.size() > 40)
        s = s.substr(0, 37) + "...";
    return std::string(v.type_name()) + " " + s;
}

std::optional<int64_t> asInteger(const nlohmann::json &v)
{
    if (v.is_number_integer())
        return v.get<int64_t>(); // an unsigned above INT64_MAX wraps: rejected below by the caller's range
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15)
            return int64_t(d);
    }
    return std::nullopt;
}

} // namespace

JsonRecord::JsonRecord(nlohmann::json j, std::string source, std::string hint)
    : m_json(std::move(j)), m_source(std::move(source)), m_hint(std::move(hint))
{
}

JsonRecord JsonRecord::parse(const std::string &text, std::string file, std::string hint)
{
    Diagnostics diag;
    auto j = parseJsonObject(text, file, diag);
    if (!j) {
        for (const Diagnostic &d : diag.items())
            if (d.severity == Severity::Error)
                throw Error(d.field, d.message, hint);
        throw Error(file, "is not a JSON object", hint);
    }
    return JsonRecord(std::move(*j), std::move(file), std::move(hint));
}

std::optional<std::string> JsonRecord::readText(const std::string &path, const std::string &hint)
{
    std::error_code ec;
    if (!fs::exists(path, ec))
        return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    if (!in || fs::is_directory(path, ec))
        throw Error(path, "cannot be read", hint);
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        throw Error(path, "cannot be read", hint);
    return text.str();
}

std::optional<JsonRecord> JsonRecord::readFile(const std::string &path, std::string hint)
{
    const auto text = readText(path, hint);
    if (!text)
        return std::nullopt;
    return parse(*text, path, std::move(hint));
}

const nlohmann::json *JsonRecord::find(const char *key) const
{
    const auto it = m_json.find(key);
    return it == m_json.end() ? nullptr : &*it;
}

void JsonRecord::fail(const std::string &what, const std::string &message) const
{
    throw Error(m_source + ": " + what, message, m_hint);
}

void JsonRecord::wrongType(const std::string &what, const char *expected, const nlohmann::json &v) const
{
    fail(what, std::string("expected ") + expected + ", got " + shortDump(v));
}

std::optional<int64_t> JsonRecord::integer(const char *key) const
{
    const nlohmann::json *v = find(key);
    if (!v)
        return std::nullopt;
    if (const auto i = asInteger(*v); i && !(v->is_number_unsigned() && *i < 0))
        return i;
    wrongType(key, "an integer", *v);
}

std::optional<double> JsonRecord::number(const char *key) const
{
    const nlohmann::json *v = find(key);
    if (!v)
        return std::nullopt;
    if (v->is_null())
        return std::numeric_limits<double>::quiet_NaN();
    if (v->is_number())
        return v->get<double>();
    wrongType(key, "a number (or null)", *v);
}

std::optional<std::string> JsonRecord::string(const char *key) const
{
    const nlohmann::json *v = find(key);
    if (!v)
        return std::nullopt;
    if (v->is_string())
        return v->get<std::string>();
    wrongType(key, "a string", *v);
}

std::optional<bool> JsonRecord::boolean(const char *key) const
{
    const nlohmann::json *v = find(key);
    if (!v)
        return std::nullopt;
    if (v->is_boolean())
        return v->get<bool>();
    wrongType(key, "true or false", *v);
}

std::optional<JsonRecord> JsonRecord::object(const char *key) const
{
    const nlohmann::json *v = find(key);
    if (!v)
        return std::nullopt;
    if (!v->is_object())
        wrongType(key, "an object", *v);
    return JsonRecord(*v, m_source + ": " + key, m_hint);
}

const nlohmann::json *JsonRecord::array(const char *key) const
{
    const nlohmann::json *v = find(key);
    if (v && !v->is_array())
        wrongType(key, "an array", *v);
    return v;
}

double JsonRecord::numberItem(const char *key, size_t index) const
{
    const nlohmann::json &v = m_json.at(key).at(index);
    if (v.is_null())
        return std::numeric_limits<double>::quiet_NaN();
    if (!v.is_number())
        wrongType(std::string(key) + "[" + std::to_string(index) + "]", "a number (or null)", v);
    return v.get<double>();
}

int64_t JsonRecord::integerItem(const char *key, size_t index) const
{
    const nlohmann::json &v = m_json.at(key).at(index);
    if (const auto i = asInteger(v); i && !(v.is_number_unsigned() && *i < 0))
        return *i;
    wrongType(std::string(key) + "[" + std::to_string(index) + "]", "an integer", v);
}

std::string JsonRecord::stringItem(const char *key, size_t index) const
{
    const nlohmann::json &v = m_json.at(key).at(index);
    if (!v.is_string())
        wrongType(std::string(key) + "[" + std::to_string(index) + "]", "a string", v);
    return v.get<std::string>();
}

JsonRecord JsonRecord::objectItem(const char *key, size_t index) const
{
    const nlohmann::json &v = m_json.at(key).at(index);
    const std::string what = std::string(key) + "[" + std::to_string(index) + "]";
    if (!v.is_object())
        wrongType(what, "an object", v);
    return JsonRecord(v, m_source + ": " + what, m_hint);
}

} // namespace wb
