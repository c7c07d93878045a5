// SPDX-License-Identifier: Apache-2.0
#include "core/config/jsonrecord.h"

#include "core/config/jsonfields.h"
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

/// `v` as a record's T: detail::jsonValueAs, but a null number reads as NaN (what a writer
/// wrote for a number that was not finite) and an unsigned above int64's range is no integer.
template <class T>
std::optional<T> recordValue(const nlohmann::json &v)
{
    if constexpr (std::is_same_v<T, double>) {
        if (v.is_null())
            return std::numeric_limits<double>::quiet_NaN();
    } else if constexpr (std::is_same_v<T, int64_t>) {
        const std::optional<int64_t> i = detail::jsonInteger(v);
        return i && !(v.is_number_unsigned() && *i < 0) ? i : std::nullopt;
    }
    return detail::jsonValueAs<T>(v);
}

std::string itemName(const char *key, size_t index) { return std::string(key) + "[" + std::to_string(index) + "]"; }

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

template <class T>
std::optional<T> JsonRecord::value(const char *key, const char *expected) const
{
    const nlohmann::json *v = find(key);
    if (!v)
        return std::nullopt;
    if (const std::optional<T> x = recordValue<T>(*v))
        return x;
    wrongType(key, expected, *v);
}

template <class T>
T JsonRecord::item(const char *key, size_t index, const char *expected) const
{
    const nlohmann::json &v = m_json.at(key).at(index);
    if (const std::optional<T> x = recordValue<T>(v))
        return *x;
    wrongType(itemName(key, index), expected, v);
}

std::optional<int64_t> JsonRecord::integer(const char *key) const { return value<int64_t>(key, "an integer"); }

std::optional<double> JsonRecord::number(const char *key) const { return value<double>(key, "a number (or null)"); }

std::optional<std::string> JsonRecord::string(const char *key) const { return value<std::string>(key, "a string"); }

std::optional<bool> JsonRecord::boolean(const char *key) const { return value<bool>(key, "true or false"); }

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
    return item<double>(key, index, "a number (or null)");
}

int64_t JsonRecord::integerItem(const char *key, size_t index) const { return item<int64_t>(key, index, "an integer"); }

std::string JsonRecord::stringItem(const char *key, size_t index) const
{
    return item<std::string>(key, index, "a string");
}

JsonRecord JsonRecord::objectItem(const char *key, size_t index) const
{
    const nlohmann::json &v = m_json.at(key).at(index);
    const std::string what = itemName(key, index);
    if (!v.is_object())
        wrongType(what, "an object", v);
    return JsonRecord(v, m_source + ": " + what, m_hint);
}

} // namespace wb
