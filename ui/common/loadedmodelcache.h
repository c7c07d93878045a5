// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <mutex>
#include <string>

namespace wb {

/// A model that a panel's background jobs load and keep for the next job (Try it's
/// TextClassifier, fill-in-the-blank's FillMaskPredictor). Thread rules: a job holds `mutex`
/// for as long as it uses the cache, on any thread; one job at a time.
template <class Model>
struct LoadedModelCache
{
    std::mutex mutex;
    std::unique_ptr<Model> model;
    std::string key; ///< what `model` was loaded from: the source, resolved weights and reload epoch

    /// Returns the model kept when it was loaded for `newKey`, else loads Model(source) and keeps
    /// it. Throws what Model's constructor throws; the cache is then empty. Caller holds `mutex`.
    template <class Source>
    const Model &load(const std::string &newKey, const Source &source)
    {
        if (!model || key != newKey) {
            model.reset();
            key.clear();
            model = std::make_unique<Model>(source);
            key = newKey;
        }
        return *model;
    }
};

} // namespace wb
