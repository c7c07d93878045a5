// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdlib>
#include <string>

namespace wb {

/// The value of the environment variable `name`, or "" when it is unset (an empty value and an
/// unset one read the same). Thread-safe as long as nobody changes the environment meanwhile
/// (std::getenv).
inline std::string environmentValue(const char *name)
{
    const char *v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

} // namespace wb
