// SPDX-License-Identifier: Apache-2.0
#pragma once
// The SHA-256 of large data files, remembered between runs: run_config.json's `data_files`
// (core/formats/runidentity.h) names each file with its hash, and a run's identity is computed
// on every train, resume and model_dir check; an unchanged 10 GB TFRecord is read once.

#include <cstdint>
#include <string>

namespace wb {

/// sha256FileHex(`path`) (core/data/sha256.h), remembered in the cache file sha256CacheFile()
/// under the file's absolute path, size, modification time (ns), inode and device: a file
/// whose key matches an entry in every part is not read again; any difference (a touched
/// file of the same size, a changed size with the same time, a file replaced by another) reads
/// it. A file modified less than two seconds before it was hashed is not remembered (its next
/// change may keep the same time stamp), nor one that changed while it was read.
/// The cache file is written atomically (a temporary file renamed over it) and holds at most
/// 1000 files (the oldest are dropped); a missing, unreadable or malformed cache is ignored
/// and rewritten, and failing to write it never fails the hash. Returns "" when the file
/// cannot be read (as sha256FileHex). Thread-safe (one lock for the cache file within the
/// process; between processes, the last writer's entries remain). Throws only what
/// sha256FileHex throws (OpenSSL failing).
std::string sha256FileHexCached(const std::string &path);

/// The cache file: $XDG_CACHE_HOME/bert-workbench/sha256-cache.json, else
/// ~/.cache/bert-workbench/sha256-cache.json (read from the environment on every call).
std::string sha256CacheFile();

namespace detail {
/// Test hook: how many files sha256FileHexCached has read in full in this process.
uint64_t sha256CachedReads();
} // namespace detail

} // namespace wb
