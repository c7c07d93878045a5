// SPDX-License-Identifier: Apache-2.0
// The usual learning rates for each start (core/config/learningrates.h).
#include "core/config/learningrates.h"

#include <cmath>
#include <cstdio>

namespace wb {

const LearningRateRange *learningRateRange(WeightsStart start)
{
    for (const LearningRateRange &r : kLearningRateRanges)
        if (r.start == start)
            return &r;
    return nullptr;
}

std::string usualRangesWords()
{
    std::string t;
    for (const LearningRateRange &r : kLearningRateRanges)
        t += (t.empty() ? "" : "; ") + rateWords(r.low) + " to " + rateWords(r.high) + " for " + r.words;
    return t;
}

std::string rateWords(double rate)
{
    if (std::isnan(rate))
        return "NaN";
    if (std::isinf(rate))
        return rate > 0 ? "inf" : "-inf";
    char buf[64];
    if (rate == 0 || std::abs(rate) >= 0.01) {
        std::snprintf(buf, sizeof buf, "%.3g", rate);
        return buf;
    }
    std::snprintf(buf, sizeof buf, "%.2e", rate); // "5.00e-04"
    std::string s = buf;
    const size_t e = s.find('e');
    std::string mantissa = s.substr(0, e), exponent = s.substr(e + 1);
    while (mantissa.find('.') != std::string::npos && (mantissa.back() == '0' || mantissa.back() == '.'))
        mantissa.pop_back();
    const char sign = exponent[0];
    exponent = exponent.substr(1);
    while (exponent.size() > 1 && exponent[0] == '0')
        exponent.erase(0, 1);
    return mantissa + "e" + (sign == '-' ? "-" : "") + exponent;
}

} // namespace wb
