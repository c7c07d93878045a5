// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

namespace wb {

/// Returns the SHA-256 of `data` as 64 lower-case hex digits (FIPS 180-4). Thread-safe.
std::string sha256Hex(std::string_view data);

} // namespace wb
