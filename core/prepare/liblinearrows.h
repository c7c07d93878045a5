// SPDX-License-Identifier: Apache-2.0
// Core-private: liblinear's rows and models for the bag-of-words baselines (bagofwords.cpp,
// bagofwordsmultilabel.cpp). Includes liblinear's <linear.h>; never include from ui/ or app/.
#pragma once

#include "core/prepare/bagofwords.h"

#include <linear.h>

#include <memory>
#include <vector>

namespace wb {

/// liblinear prints its solver's progress to stdout unless told otherwise (one process-wide
/// setting): call before any train(). Thread-safe (once).
void silenceLiblinear();

/// liblinear's rows of `docs` under `tfidf`: 1-based feature indices, the bias feature (index
/// numColumns + 1, value 1) last, each row ended by index -1. `pointers[i]` is row i, as
/// liblinear's problem::x takes it; valid while this object lives (not copyable).
struct LiblinearRows
{
    std::vector<std::vector<feature_node>> rows;
    std::vector<feature_node *> pointers;

    LiblinearRows(const TfidfVectorizer &tfidf, const std::vector<BagOfWordsDocument> &docs);
    LiblinearRows(const LiblinearRows &) = delete;
    LiblinearRows &operator=(const LiblinearRows &) = delete;
};

/// Frees a liblinear model (free_and_destroy_model).
struct LiblinearModelDeleter
{
    void operator()(model *m) const { free_and_destroy_model(&m); }
};
using LiblinearModel = std::unique_ptr<model, LiblinearModelDeleter>;

} // namespace wb
