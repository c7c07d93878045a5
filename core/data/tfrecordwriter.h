// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/data/tfrecordreader.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

namespace wb {

/// Writes a TFRecord file (tensorflow/core/lib/io/record_writer.cc; docs/file-formats.md), optionally GZIP/ZLIB compressed.
///
/// The records go to a temporary file beside `path`; commit() flushes it and renames it
/// over `path`, so readers never see a half-written file. Destroying the writer without
/// commit() removes the temporary file. Throws wb::Error naming the path on I/O failure.
/// Not thread-safe.
class TFRecordWriter
{
public:
    /// Creates the parent directories and the temporary file.
    explicit TFRecordWriter(std::string path, RecordCompression compression = RecordCompression::None);
    ~TFRecordWriter();
    TFRecordWriter(const TFRecordWriter &) = delete;
    TFRecordWriter &operator=(const TFRecordWriter &) = delete;

    /// Appends one record (length, masked length CRC, payload, masked payload CRC).
    void write(std::string_view payload);
    /// Flushes, closes and renames the temporary file to the final path.
    void commit();
    /// Returns the number of records written so far.
    int64_t count() const { return m_count; }

    /// Returns the framed bytes of one uncompressed record (for tests and tools).
    static std::string frame(std::string_view payload);

private:
    void writeRaw(const void *data, size_t size);
    void flushDeflate(int mode);

    struct Deflater;
    std::string m_path;
    std::string m_tempPath;
    FILE *m_file = nullptr;
    std::unique_ptr<Deflater> m_deflater;
    int64_t m_count = 0;
    bool m_committed = false;
};

} // namespace wb
