// SPDX-License-Identifier: Apache-2.0
#pragma once
// How a weights file is recognised before it is parsed (locateCheckpoint, readWeightsTable).
// Internal to core/model; torch-free.

#include <cstddef>
#include <string>

namespace wb {

/// True when `path` ends with `ext` (e.g. ".bin", "safetensors.index.json"); case-sensitive.
bool weightsFileHasExtension(const std::string &path, const char *ext);

/// The first `n` bytes of `path` (fewer for a short file, "" when it cannot be opened).
std::string weightsFileHead(const std::string &path, size_t n);

/// True when `head` starts as a torch.save file: a zip archive ("PK\x03\x04", the format since
/// PyTorch 1.6) or a pickle of protocol 2–5 (the legacy format).
bool startsAsPyTorchFile(const std::string &head);

} // namespace wb
