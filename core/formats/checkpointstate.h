// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// The `model_dir/checkpoint` index file in TF's CheckpointState text format:
///   model_checkpoint_path: "ckpt-342"
///   all_model_checkpoint_paths: "ckpt-114"
///   all_model_checkpoint_paths: "ckpt-342"
/// Paths are relative to model_dir. A plain value; thread-safe functions.
struct CheckpointState
{
    std::string model_checkpoint_path;                ///< latest, e.g. "ckpt-342"
    std::vector<std::string> all_model_checkpoint_paths; ///< oldest first, includes the latest

    /// Returns the text form (one line per field, as TF writes it).
    std::string toText() const;
    /// Parses the text form; nothing when `model_checkpoint_path` is absent.
    static std::optional<CheckpointState> parse(const std::string &text);
    /// Reads `<modelDir>/checkpoint`; nothing when absent or unparsable.
    static std::optional<CheckpointState> read(const std::string &modelDir);
    /// Writes `<modelDir>/checkpoint` atomically. Throws wb::Error on I/O failure.
    void write(const std::string &modelDir) const;
};

/// Returns N for a name "ckpt-N" (with or without directories), or -1.
int64_t checkpointStep(const std::string &name);

/// Returns the full path of the latest checkpoint of `modelDir`: the one the index names
/// when it exists, else the existing `ckpt-N` file with the largest N, else "".
std::string latestCheckpoint(const std::string &modelDir);

/// Records `name` ("ckpt-N") as the latest checkpoint in the index of `modelDir`, then,
/// when keepMax > 0, deletes the oldest checkpoint files beyond keepMax (TF
/// CheckpointManager max_to_keep). Returns the deleted paths.
std::vector<std::string> recordCheckpoint(const std::string &modelDir, const std::string &name, int keepMax);

} // namespace wb
