// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

namespace wb {

/// Returns the SHA-256 of `data` as 64 lower-case hex digits (FIPS 180-4). Thread-safe.
std::string sha256Hex(std::string_view data);

/// Returns the SHA-256 of the file at `path` as 64 lower-case hex digits, read in 1 MiB pieces
/// (memory does not grow with the file), or "" when the file cannot be opened or read (a
/// folder, a glob such as `train-*.tf_record`, a missing file). Thread-safe.
std::string sha256FileHex(const std::string &path);

} // namespace wb
