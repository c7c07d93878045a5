// SPDX-License-Identifier: Apache-2.0
#pragma once

// Which pretrained models are already on this disk, and how large they are there: one answer for
// `bert-workbench-cli models list` and the window's "Start from" list (docs/pretrained-models.md).

#include "core/hub/hubsettings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// A model found complete in the Hugging Face cache (or a usable local folder). A plain value.
struct CachedModelFiles
{
    std::string folder;        ///< the snapshot folder (<cache>/models--…/snapshots/<commit>) or the local folder
    /// The bytes of the files a run reads, as they lie on disk: config.json, vocab.txt,
    /// tokenizer_config.json, the weights (every shard and the index); each blob counted once.
    int64_t bytes_on_disk = 0;
};

/// Looks `idOrFolder` (a Hub id, a catalogue name or a local folder) up in settings.cache_dir
/// with findCachedPretrainedModel: never the network. Returns nothing when it is not there,
/// is not complete, its cached copy is damaged, or the text names no model. Never throws.
/// Thread-safe; reads the disk (stat calls): off a GUI thread for a whole list.
std::optional<CachedModelFiles> cachedModelFiles(const std::string &idOrFolder, const HubSettings &settings);

/// cachedModelFiles for every entry of pretrainedCatalogue() (core/hub/catalogue.h), in its
/// order. Never throws; thread-safe; reads the disk.
std::vector<std::optional<CachedModelFiles>> cachedCatalogueModels(const HubSettings &settings);

} // namespace wb
