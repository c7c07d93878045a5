// SPDX-License-Identifier: Apache-2.0
#pragma once

// The window's one conversion of the core's UTF-8 std::string into QString (the core speaks
// std::string; QT_NO_CAST_FROM_ASCII keeps every conversion explicit).

#include <QString>

#include <string>

namespace wb {

/// Returns `s` (UTF-8) as a QString. Thread-safe.
inline QString q(const std::string &s) { return QString::fromStdString(s); }

} // namespace wb
