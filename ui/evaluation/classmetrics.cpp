// SPDX-License-Identifier: Apache-2.0
#include "ui/evaluation/classmetrics.h"

namespace wb {

std::vector<ClassMetrics> classMetrics(const std::vector<std::vector<int64_t>> &confusion)
{
    const std::size_t n = confusion.size();
    auto at = [&](std::size_t t, std::size_t p) -> int64_t {
        return p < confusion[t].size() ? confusion[t][p] : 0;
    };
    std::vector<ClassMetrics> out(n);
    for (std::size_t c = 0; c < n; ++c) {
        int64_t tp = at(c, c), predicted = 0, actual = 0;
        for (std::size_t k = 0; k < n; ++k) {
            predicted += at(k, c);
            actual += at(c, k);
        }
        ClassMetrics &m = out[c];
        m.support = actual;
        m.precision = predicted > 0 ? double(tp) / double(predicted) : 0.0;
        m.recall = actual > 0 ? double(tp) / double(actual) : 0.0;
        m.f1 = (m.precision + m.recall) > 0 ? 2 * m.precision * m.recall / (m.precision + m.recall) : 0.0;
    }
    return out;
}

} // namespace wb
