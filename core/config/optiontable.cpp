// SPDX-License-Identifier: Apache-2.0
#include "core/config/optiontable.h"

#include "core/config/jsonfields.h"
#include "core/config/optionrows.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <cmath>
#include <type_traits>

namespace wb {

namespace {

std::string shortest(double v)
{
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v); // shortest round-trip text
    return std::string(buf, r.ptr);
}

template<typename T>
std::string parseInteger(const std::string &text, T &out)
{
    int64_t v = 0;
    const char *end = text.data() + text.size();
    const auto r = std::from_chars(text.data(), end, v);
    if (text.empty() || r.ec == std::errc::invalid_argument || r.ptr != end)
        return "expected an integer, found '" + text + "'";
    if (r.ec == std::errc::result_out_of_range || v < int64_t(std::numeric_limits<T>::min())
        || v > int64_t(std::numeric_limits<T>::max()))
        return "'" + text + "' is out of range";
    out = T(v);
    return {};
}

std::string parseBool(const std::string &text, bool &out)
{
    if (text == "true" || text == "1") {
        out = true;
        return {};
    }
    if (text == "false" || text == "0") {
        out = false;
        return {};
    }
    return "expected true or false, found '" + text + "'";
}

std::string parseReal(const std::string &text, double &out)
{
    double v = 0;
    const char *end = text.data() + text.size();
    const char *begin = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
    const auto r = std::from_chars(begin, end, v);
    if (text.empty() || r.ec != std::errc() || r.ptr != end)
        return "expected a number, found '" + text + "'";
    out = v;
    return {};
}

/// parseBool, parseReal or parseInteger, by the type of `out`.
template <typename T>
std::string parseAs(const std::string &text, T &out)
{
    if constexpr (std::is_same_v<T, bool>)
        return parseBool(text, out);
    else if constexpr (std::is_same_v<T, double>)
        return parseReal(text, out);
    else
        return parseInteger(text, out);
}

/// f(o.*m) for the member `member` points to, whatever its type: `f` is a generic lambda over
/// the value (const in a const `o`) with one return type for every type.
template <class Options, class F>
decltype(auto) withValue(const OptionMember &member, Options &o, F f)
{
    return std::visit([&](auto m) -> decltype(auto) { return f(o.*m); }, member);
}

} // namespace

OptionType OptionSpec::type() const
{
    // By the member's type, not its index in OptionMember: a new alternative must be named here or
    // the build fails (the lambda has no fallback).
    return std::visit(
        [](auto m) -> OptionType {
            using T = std::remove_reference_t<decltype(std::declval<TrainingOptions>().*m)>;
            if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>)
                return OptionType::Text; // bool: the choices "false" and "true"
            else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, int64_t>)
                return OptionType::Integer;
            else if constexpr (std::is_same_v<T, double>)
                return OptionType::Real;
            else if constexpr (std::is_same_v<T, std::optional<int64_t>>)
                return OptionType::OptionalInteger;
            else if constexpr (std::is_same_v<T, std::optional<double>>)
                return OptionType::OptionalReal;
            else
                static_assert(sizeof(T) == 0, "OptionSpec::type: an OptionMember alternative without an OptionType");
        },
        member);
}

const char *optionTypeName(OptionType type)
{
    switch (type) { // no default: -Wswitch names a new OptionType that has no name here
    case OptionType::Text: return "TEXT";
    case OptionType::Integer:
    case OptionType::OptionalInteger: return "INT";
    case OptionType::Real:
    case OptionType::OptionalReal: return "FLOAT";
    }
    return "TEXT"; // not reached: every enumerator is handled above
}

bool OptionSpec::hasName(std::string_view name) const
{
    if (name == flag)
        return true;
    for (const std::string &a : aliases)
        if (name == a)
            return true;
    return false;
}

std::string OptionSpec::text(const TrainingOptions &o) const
{
    return withValue(member, o, [](const auto &v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>)
            return v;
        else if constexpr (std::is_same_v<T, bool>)
            return v ? "true" : "false";
        else if constexpr (std::is_same_v<T, double>)
            return shortest(v);
        else if constexpr (std::is_same_v<T, std::optional<int64_t>>)
            return v ? std::to_string(*v) : std::string();
        else if constexpr (std::is_same_v<T, std::optional<double>>)
            return v ? shortest(*v) : std::string();
        else
            return std::to_string(v);
    });
}

std::string OptionSpec::defaultText() const { return text(TrainingOptions{}); }

bool OptionSpec::equal(const TrainingOptions &a, const TrainingOptions &b) const
{
    return std::visit([&](auto m) { return a.*m == b.*m; }, member);
}

bool OptionSpec::isChanged(const TrainingOptions &o) const { return !equal(o, TrainingOptions{}); }

void OptionSpec::copy(const TrainingOptions &from, TrainingOptions &to) const
{
    std::visit([&](auto m) { to.*m = from.*m; }, member);
}

std::string OptionSpec::setText(TrainingOptions &o, const std::string &value) const
{
    return withValue(member, o, [&value](auto &v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
            v = value;
            return {};
        } else if constexpr (std::is_same_v<T, std::optional<int64_t>> || std::is_same_v<T, std::optional<double>>) {
            typename T::value_type x = 0;
            std::string error = parseAs(value, x);
            if (error.empty())
                v = x;
            return error;
        } else {
            return parseAs(value, v);
        }
    });
}

nlohmann::json OptionSpec::toJson(const TrainingOptions &o) const
{
    return withValue(member, o, [](const auto &v) -> nlohmann::json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::optional<int64_t>> || std::is_same_v<T, std::optional<double>>)
            return v ? nlohmann::json(*v) : nlohmann::json();
        else
            return v;
    });
}

std::string OptionSpec::setJson(TrainingOptions &o, const nlohmann::json &value) const
{
    return withValue(member, o, [&value](auto &v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
            if (!value.is_string())
                return "expected a string, found " + value.dump();
            v = value.get<std::string>();
        } else if constexpr (std::is_same_v<T, bool>) {
            if (value.is_boolean())
                v = value.get<bool>();
            else if (!value.is_string() || !parseBool(value.get<std::string>(), v).empty())
                return "expected true or false, found " + value.dump();
        } else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::optional<double>>) {
            if (value.is_null() && std::is_same_v<T, std::optional<double>>) {
                v = T{}; // null: not given
                return {};
            }
            if (!value.is_number())
                return "expected a number, found " + value.dump();
            v = value.get<double>();
        } else {
            if (!value.is_number_integer())
                return "expected an integer, found " + value.dump();
            using I = std::conditional_t<std::is_same_v<T, std::optional<int64_t>>, int64_t, T>;
            const int64_t n = value.get<int64_t>();
            if (n < int64_t(std::numeric_limits<I>::min()) || n > int64_t(std::numeric_limits<I>::max()))
                return value.dump() + " is out of range";
            v = I(n);
        }
        return {};
    });
}

std::string shortestNumberText(double v) { return shortest(v); }

const std::vector<OptionSpec> &optionTable()
{
    static const std::vector<OptionSpec> table = buildOptionTable();
    return table;
}

std::optional<double> OptionSpec::numericValue(const TrainingOptions &o) const
{
    return withValue(member, o, [](const auto &v) -> std::optional<double> {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::optional<int64_t>> || std::is_same_v<T, std::optional<double>>)
            return v ? std::optional<double>(double(*v)) : std::nullopt;
        else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, int64_t> || std::is_same_v<T, double>)
            return double(v);
        else
            return std::nullopt;
    });
}

namespace {

bool reportedBefore(const Diagnostics &diag, const char *flag)
{
    const auto &items = diag.items();
    return std::any_of(items.begin(), items.end(),
                       [flag](const Diagnostic &d) { return d.severity == Severity::Error && d.field == flag; });
}

} // namespace

void checkNumericRanges(const std::vector<NumericOption> &options, Diagnostics &diag)
{
    const auto num = [](double x) { // whole numbers as integers (1000000, not 1e+06)
        return std::isfinite(x) && x == std::floor(x) && std::abs(x) < 1e15 ? std::to_string(int64_t(x))
                                                                            : detail::formatNumber(x);
    };
    for (const NumericOption &o : options) {
        if ((std::isfinite(o.value) && o.value >= o.minimum && o.value <= o.maximum) || reportedBefore(diag, o.flag))
            continue;
        diag.error(o.flag, std::string(o.flag) + " is " + num(o.value) + "; it must be between " + num(o.minimum)
                               + " and " + num(o.maximum),
                   std::string("the default is ") + o.default_text
                       + (*o.zero_means ? std::string("; 0 means ") + o.zero_means : std::string()));
    }
}

std::vector<NumericOption> explainOptionRows(double igSteps)
{
    return {{"ig_steps", igSteps, double(kIgStepsMinimum), double(kIgStepsMaximum), "32"}};
}

void checkOptionRanges(const TrainingOptions &o, Diagnostics &diag, const std::vector<std::string> &skip)
{
    for (const OptionSpec &s : optionTable()) {
        if (!s.hasRange() || std::find(skip.begin(), skip.end(), s.flag) != skip.end())
            continue;
        const std::optional<double> v = s.numericValue(o);
        if (!v || (std::isfinite(*v) && *v >= s.minimum && *v <= s.maximum))
            continue;
        if (reportedBefore(diag, s.flag))
            continue; // a specific check said it already, in its own words
        const auto num = [](double x) { return detail::formatNumber(x); };
        diag.error(s.flag,
                   std::string(s.flag) + " is " + s.text(o) + "; it must be between " + num(s.minimum) + " and "
                       + num(s.maximum) + (*s.unit ? std::string(" (") + s.unit + ")" : std::string()),
                   std::string("the default is ") + (s.defaultText().empty() ? "unset" : s.defaultText())
                       + (*s.zero_means ? std::string("; 0 means ") + s.zero_means : std::string()));
    }
}

const OptionSpec *findOption(std::string_view name)
{
    for (const OptionSpec &s : optionTable())
        if (s.hasName(name))
            return &s;
    return nullptr;
}

} // namespace wb
