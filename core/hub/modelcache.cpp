// SPDX-License-Identifier: Apache-2.0
#include "core/hub/modelcache.h"

#include "core/hub/catalogue.h"
#include "core/hub/pretrainedmodel.h"

#include <filesystem>
#include <set>

namespace fs = std::filesystem;

namespace wb {

std::optional<CachedModelFiles> cachedModelFiles(const std::string &idOrFolder, const HubSettings &settings)
{
    try {
        const std::optional<PretrainedModel> m = findCachedPretrainedModel(idOrFolder, settings);
        if (!m)
            return std::nullopt;
        std::vector<std::string> files = {m->config_file, m->vocab_file, m->tokenizer_config_file, m->weights_index_file};
        files.insert(files.end(), m->weights_files.begin(), m->weights_files.end());
        CachedModelFiles found;
        found.folder = m->folder;
        std::set<fs::path> counted; // snapshot links to one blob count once
        for (const std::string &file : files) {
            if (file.empty())
                continue;
            std::error_code ec;
            const fs::path target = fs::canonical(file, ec);
            if (ec || !counted.insert(target).second)
                continue;
            const auto size = fs::file_size(target, ec);
            if (!ec)
                found.bytes_on_disk += int64_t(size);
        }
        return found;
    } catch (...) {
        return std::nullopt; // not usable from the cache: the list says "not cached"
    }
}

std::vector<std::optional<CachedModelFiles>> cachedCatalogueModels(const HubSettings &settings)
{
    std::vector<std::optional<CachedModelFiles>> states;
    for (const CatalogueEntry &e : pretrainedCatalogue())
        states.push_back(cachedModelFiles(e.hub_id, settings));
    return states;
}

} // namespace wb
