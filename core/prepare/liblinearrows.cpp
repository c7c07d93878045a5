// SPDX-License-Identifier: Apache-2.0
// liblinear's rows for the bag-of-words baselines (liblinearrows.h).
#include "core/prepare/liblinearrows.h"

#include <mutex>

namespace wb {

namespace {
void quietLiblinear(const char *) {}
} // namespace

void silenceLiblinear()
{
    static std::once_flag once;
    std::call_once(once, [] { set_print_string_function(&quietLiblinear); });
}

LiblinearRows::LiblinearRows(const TfidfVectorizer &tfidf, const std::vector<BagOfWordsDocument> &docs)
{
    const int biasIndex = tfidf.numColumns() + 1;
    rows.reserve(docs.size());
    for (const BagOfWordsDocument &d : docs) {
        const SparseRow sparse = tfidf.transform(d);
        std::vector<feature_node> row;
        row.reserve(sparse.size() + 2);
        for (const auto &[column, value] : sparse)
            row.push_back({column + 1, value});
        row.push_back({biasIndex, 1.0});
        row.push_back({-1, 0.0});
        rows.push_back(std::move(row));
    }
    pointers.reserve(rows.size());
    for (auto &r : rows)
        pointers.push_back(r.data());
}

} // namespace wb
