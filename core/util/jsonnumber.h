// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>

namespace wb {

/// `v` as a JSON number, or JSON null when it is NaN or ±infinity (JSON has no literal for
/// them, and nlohmann::json would write null for them without saying so). `Json` is
/// nlohmann::json or nlohmann::ordered_json. The one rule of every report and event file that
/// may hold a missing or undefined value (an accuracy with no eval records, a loss that
/// diverged): readers take null as "none", never as 0. Pure.
template <class Json = nlohmann::json>
Json numberOrNull(double v)
{
    return std::isfinite(v) ? Json(v) : Json(nullptr);
}

} // namespace wb
