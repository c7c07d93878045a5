// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace wb {

/// The typed readers of the files this program writes (model_dir's run_config.json,
/// training_summary.json, lr_find.json; prepare_report.json beside the meta data) share
/// these rules, so that each reads exactly what its writer wrote and names the problem
/// otherwise: the text must be one JSON object (else wb::Error(`file`, reason with line and
/// column)); a key that is absent reads as unset (older versions wrote fewer keys); a key of
/// another type is wb::Error("<file>: <key>", "expected …, got …", `hint`). Numbers that were
/// not finite are written as null and read back as NaN. A plain value; thread-safe.
class JsonRecord
{
public:
    /// Parses `text` as the content of `file`. `hint` says how to get a good file again
    /// (e.g. "run prepare again"); it ends every error of this record and its parts.
    /// Throws wb::Error(file, …) when `text` is not one JSON object.
    static JsonRecord parse(const std::string &text, std::string file, std::string hint);
    /// Reads `path` and parses it; nothing when the file does not exist. Throws as parse(),
    /// and wb::Error(path, …) when it exists but cannot be read.
    static std::optional<JsonRecord> readFile(const std::string &path, std::string hint);
    /// The bytes of `path`; nothing when it does not exist. Throws wb::Error(path, …, hint)
    /// when it exists but cannot be read (a folder, no permission).
    static std::optional<std::string> readText(const std::string &path, const std::string &hint);

    /// A record of the object `j` already parsed (e.g. a part of a larger file).
    JsonRecord(nlohmann::json j, std::string source, std::string hint);

    const nlohmann::json &json() const { return m_json; }
    /// The file (and for a part, "file: key") the errors name.
    const std::string &source() const { return m_source; }

    bool has(const char *key) const { return m_json.contains(key); }
    /// An integer (a float with an integral value is accepted).
    std::optional<int64_t> integer(const char *key) const;
    /// A number; null reads as NaN.
    std::optional<double> number(const char *key) const;
    std::optional<std::string> string(const char *key) const;
    std::optional<bool> boolean(const char *key) const;
    /// The object under `key` as a record of its own ("<file>: <key>"); nothing when absent.
    std::optional<JsonRecord> object(const char *key) const;
    /// The array under `key`; nothing when absent. Its items are read with item*().
    const nlohmann::json *array(const char *key) const;
    /// Item `index` of the array under `key`, of the types above.
    double numberItem(const char *key, size_t index) const;
    int64_t integerItem(const char *key, size_t index) const;
    std::string stringItem(const char *key, size_t index) const;
    /// Item `index` of the array under `key` as a record ("<file>: <key>[<index>]").
    JsonRecord objectItem(const char *key, size_t index) const;

    /// Throws wb::Error("<file>: <what>", message, hint).
    [[noreturn]] void fail(const std::string &what, const std::string &message) const;

private:
    const nlohmann::json *find(const char *key) const;
    /// The value of `key` as T (absent: nothing), else wrongType(key, expected, …).
    template <class T>
    std::optional<T> value(const char *key, const char *expected) const;
    /// Item `index` of the array under `key` as T, else wrongType("<key>[<index>]", expected, …).
    template <class T>
    T item(const char *key, size_t index, const char *expected) const;
    [[noreturn]] void wrongType(const std::string &what, const char *expected, const nlohmann::json &v) const;

    nlohmann::json m_json;
    std::string m_source;
    std::string m_hint;
};

} // namespace wb
