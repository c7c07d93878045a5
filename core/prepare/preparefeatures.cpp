// SPDX-License-Identifier: Apache-2.0
#include "core/prepare/preparefeatures.h"

#include "core/tokenize/fulltokenizer.h"

#include <algorithm>

namespace wb {

void buildExampleFeatures(const FullTokenizer &tok, std::string_view a, std::string_view b, bool pair,
                          int64_t maxLen, int32_t cls, int32_t sep, size_t countCap, ExampleFeatures &f)
{
    const size_t limit = size_t(std::max<int64_t>(0, pair ? maxLen - 3 : maxLen - 2));
    const size_t cap = std::max(countCap, limit + 1);
    std::vector<int32_t> ta = tok.tokenizeToIds(a, cap);
    std::vector<int32_t> tb;
    if (pair)
        tb = tok.tokenizeToIds(b, cap);
    f.empty_a = ta.empty();
    f.empty_b = pair && tb.empty();
    f.capped = ta.size() >= cap || tb.size() >= cap;
    f.tokens_needed = int64_t(ta.size() + tb.size()) + (pair ? 3 : 2);
    f.truncated = ta.size() + tb.size() > limit;
    if (pair) {
        while (ta.size() + tb.size() > limit) {
            if (ta.size() > tb.size())
                ta.pop_back();
            else
                tb.pop_back();
        }
    } else {
        ta.resize(std::min(ta.size(), limit));
    }
    f.input_ids.assign(size_t(maxLen), 0);
    f.input_mask.assign(size_t(maxLen), 0);
    f.segment_ids.assign(size_t(maxLen), 0);
    size_t k = 0;
    auto put = [&](int32_t id, int64_t segment) {
        f.input_ids[k] = id;
        f.input_mask[k] = 1;
        f.segment_ids[k] = segment;
        ++k;
    };
    put(cls, 0);
    for (int32_t id : ta)
        put(id, 0);
    put(sep, 0);
    if (pair) {
        for (int32_t id : tb)
            put(id, 1);
        put(sep, 1);
    }
}

} // namespace wb
