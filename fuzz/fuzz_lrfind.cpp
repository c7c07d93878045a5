// SPDX-License-Identifier: Apache-2.0
// Fuzzes a saved lr_find.json as the window shows it again (LrFindDialog::showSaved, which
// reads it with Qt's QJsonDocument): the input's "learning_rates" and "losses" arrays (of one
// non-empty length, else the file is not shown) become the curve — a learning rate that is
// not a number reads 0 (QJsonValue::toDouble), a loss that is not a number NaN (null: a loss
// that was not finite) — and "diverged" a flag; then analyzeLrFind, whose indices must point
// into the curve, and lrFindJson, the writer, on the result.
#include "core/train/lrfind.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <limits>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const auto j = nlohmann::json::parse(data, data + size, nullptr, false);
    if (!j.is_object())
        return 0;
    const auto lrs = j.find("learning_rates");
    const auto losses = j.find("losses");
    if (lrs == j.end() || losses == j.end() || !lrs->is_array() || !losses->is_array() || lrs->empty()
        || lrs->size() != losses->size())
        return 0;
    wb::LrFindResult r;
    for (size_t k = 0; k < lrs->size(); ++k) {
        const auto &lr = (*lrs)[k];
        const auto &loss = (*losses)[k];
        r.steps.push_back(int64_t(k) + 1);
        r.learning_rates.push_back(lr.is_number() ? lr.get<double>() : 0.0);
        r.losses.push_back(loss.is_number() ? loss.get<double>() : std::numeric_limits<double>::quiet_NaN());
    }
    const auto diverged = j.find("diverged");
    r.diverged = diverged != j.end() && diverged->is_boolean() && diverged->get<bool>();
    wb::analyzeLrFind(r);
    const int64_t n = int64_t(r.steps.size());
    if (int64_t(r.smoothed.size()) != n || r.min_index < 0 || r.min_index >= n || r.suggestion_index < 0
        || r.suggestion_index >= n || r.suggestion != r.learning_rates[size_t(r.suggestion_index)])
        std::abort();
    (void)wb::lrFindJson(r);
    return 0;
}
