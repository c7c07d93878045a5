// SPDX-License-Identifier: Apache-2.0
#pragma once

// A shuffle of more records than memory holds: the records go into bucket files on disk as
// they are made (each to a random bucket), then each bucket is read back, shuffled in memory
// and dealt round-robin to the output files (prepare_pretraining, docs/pretraining.md "Scale").

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace wb {

class TFRecordWriter;

/// `count` temporary bucket files of framed TFRecord records in their own folder, which the
/// destructor removes with everything in it (the buckets are never kept: no fsync, no rename).
/// Not thread-safe: one thread adds and deals.
class RecordBuckets
{
public:
    /// Creates `folder` (removing an earlier one of the same name) and the bucket files in it.
    /// Throws wb::Error naming `folder` or a bucket when they cannot be created; `hint` is the
    /// fix the error gives (the command's own flag, e.g. "Pass an --output_dir you may write to.").
    RecordBuckets(const std::filesystem::path &folder, uint64_t count, const std::string &hint);
    ~RecordBuckets();
    RecordBuckets(const RecordBuckets &) = delete;
    RecordBuckets &operator=(const RecordBuckets &) = delete;

    uint64_t count() const { return uint64_t(m_files.size()); }

    /// Appends `payload` (one serialized record) to a bucket drawn uniformly with `rng`.
    /// Throws wb::Error naming the bucket file when the write fails (a full disk).
    void add(std::mt19937_64 &rng, const std::string &payload);

    /// Reads the buckets back one by one, shuffles at most `maxBytes` of records at a time with
    /// `rng` (Fisher–Yates), writes them to outputs[k % outputs.size()] for k = 0, 1, … and
    /// removes each bucket when done; calls `afterBucket(b)` after bucket b (progress, stop: it
    /// may throw). Returns the records dealt. Call once.
    int64_t deal(std::vector<std::unique_ptr<TFRecordWriter>> &outputs, std::mt19937_64 &rng, uint64_t maxBytes,
                 const std::function<void(uint64_t)> &afterBucket);

private:
    class File;
    std::filesystem::path m_folder;
    std::vector<std::unique_ptr<File>> m_files;
};

} // namespace wb
