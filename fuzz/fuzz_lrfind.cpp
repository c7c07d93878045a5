// SPDX-License-Identifier: Apache-2.0
// Fuzzes lr_find.json reading as the window shows a saved range test again
// (LrFindDialog::showSaved): parseLrFindJson, the reader beside the writer in
// core/advice/lrfindanalysis.cpp, either returns a curve or throws wb::Error naming
// "lr_find.json" (any other exception is a crash). On a curve: analyzeLrFind, whose
// indices must point into it, then the writer's text read back must give the same result.
#include "core/advice/lrfindanalysis.h"
#include "core/util/error.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

bool same(const std::vector<double> &a, const std::vector<double> &b)
{
    if (a.size() != b.size())
        return false;
    for (size_t k = 0; k < a.size(); ++k) {
        // Non-finite values are written as null and read as NaN.
        const bool fa = std::isfinite(a[k]), fb = std::isfinite(b[k]);
        if (fa != fb || (fa && a[k] != b[k]))
            return false;
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wb::LrFindResult r;
    try {
        r = wb::parseLrFindJson(std::string(reinterpret_cast<const char *>(data), size), "lr_find.json");
    } catch (const wb::Error &e) {
        if (e.field().rfind("lr_find.json", 0) != 0)
            std::abort(); // every error names the file
        return 0;
    }
    const int64_t n = int64_t(r.steps.size());
    if (n == 0 || r.learning_rates.size() != r.steps.size() || r.losses.size() != r.steps.size())
        std::abort();
    wb::analyzeLrFind(r);
    if (int64_t(r.smoothed.size()) != n || r.min_index < 0 || r.min_index >= n)
        std::abort();
    if (r.verdict != "ok") { // a curve that says nothing suggests nothing
        if (r.suggestion_index != -1 || r.suggestion != 0 || r.min_over_10 != 0)
            std::abort();
    } else if (r.suggestion_index < 0 || r.suggestion_index > r.min_index
               || !(r.suggestion == r.learning_rates[size_t(r.suggestion_index)] || std::isnan(r.suggestion)))
        std::abort();
    const wb::LrFindResult back = wb::parseLrFindJson(wb::lrFindJson(r), "lr_find.json");
    if (back.steps != r.steps || !same(back.learning_rates, r.learning_rates) || !same(back.losses, r.losses)
        || !same(back.smoothed, r.smoothed) || back.diverged != r.diverged)
        std::abort();
    return 0;
}
