// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/diagnostics.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace wb {

/// Reads and parses a JSON file for a loader.
///
/// Every failure becomes one error in `diag` with `path` as the field: missing file, a
/// directory instead of a file, an empty file, a syntax error (with line and column), a
/// number beyond the range of double, arrays/objects nested more than 512 levels deep, or a
/// top level that is not an object. A UTF-8 byte order mark is skipped with a warning.
/// Returns the parsed object, or nothing when an error was added. Thread-safe.
std::optional<nlohmann::json> readJsonObjectFile(const std::string &path, Diagnostics &diag);

/// A loader's load(): T::fromJson(object, path, diag) of the object readJsonObjectFile reads
/// from `path`; nothing when the file gave no object (the error is in `diag`).
template <class T>
std::optional<T> loadJsonObjectFile(const std::string &path, Diagnostics &diag)
{
    auto j = readJsonObjectFile(path, diag);
    if (!j)
        return std::nullopt;
    return T::fromJson(*j, path, diag);
}

/// Parses JSON text (see readJsonObjectFile); `source` names it in diagnostics.
std::optional<nlohmann::json> parseJsonObject(const std::string &text, const std::string &source,
                                              Diagnostics &diag);

/// Writes `text` to `path` atomically: a temporary file in the same directory is written,
/// flushed and renamed over `path`, so readers see the old or the new file, never half of
/// one. Creates missing parent directories. Throws wb::Error naming the path on failure.
void writeFileAtomic(const std::string &path, const std::string &text);

/// Finishes an atomic write whose temporary file `tmp` was written by someone else (libtorch's
/// archive, the TFRecord writer): fsyncs `tmp`, renames it over `path` and fsyncs the
/// directory, so after a crash or power loss `path` is the old file or the complete new one.
/// Removes `tmp` and throws wb::Error naming `path` when any step fails.
void commitFileAtomic(const std::string &tmp, const std::string &path);

} // namespace wb
