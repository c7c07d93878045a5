// SPDX-License-Identifier: Apache-2.0
#pragma once
// Internal to optiontable.cpp: the rows behind optionTable().
#include "core/config/optiontable.h"

#include <vector>

namespace wb {

/// Builds every option row, in the form's order (groups: where to train, model and data,
/// hyperparameters, teaching, the data's tokenizer). Called once by optionTable(); any thread.
std::vector<OptionSpec> buildOptionTable();

} // namespace wb
