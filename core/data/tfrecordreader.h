// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace wb {

/// Whole-file compression of a TFRecord file (TF's TFRecordOptions compression_type).
enum class RecordCompression { None, Gzip, Zlib };

/// Returns "none", "GZIP" or "ZLIB".
const char *compressionName(RecordCompression c);

/// Reads the records of one TFRecord file (tensorflow/core/lib/io/record_reader.cc; docs/file-formats.md): uint64 LE length, masked CRC32C
/// of the length, payload, masked CRC32C of the payload. Both CRCs are verified.
///
/// GZIP and ZLIB compressed files are detected from their first bytes and read through
/// zlib. Every problem throws wb::Error whose field is "<file>: record <i> at byte <offset>"
/// (offsets count bytes of the uncompressed record stream) and whose message says what
/// was wrong: not a TFRecord file, bad length CRC, bad data CRC, truncated record.
/// Memory: a record's buffer grows only as its bytes actually arrive, so a hostile length
/// field cannot trigger a huge allocation. Not thread-safe; one reader per thread.
class TFRecordReader
{
public:
    /// Largest record accepted (bytes); a longer length field is reported as corrupt.
    static constexpr uint64_t kMaxRecordLength = uint64_t(1) << 31;

    /// Opens `path` and detects its compression. Throws wb::Error when it cannot be opened.
    explicit TFRecordReader(const std::string &path);
    ~TFRecordReader();
    TFRecordReader(const TFRecordReader &) = delete;
    TFRecordReader &operator=(const TFRecordReader &) = delete;

    /// Reads the next record into `payload`. Returns false at a clean end of file.
    /// Throws wb::Error on corruption (see the class comment).
    bool read(std::string &payload);

    /// Skips the next record, still verifying both CRCs when `verifyData` is true.
    /// Returns false at a clean end of file.
    bool skip(bool verifyData = true);

    /// Returns the index (0-based) of the record last returned by read()/skip().
    int64_t recordIndex() const { return m_index; }
    /// Returns the byte offset of the record last returned (uncompressed stream).
    uint64_t recordOffset() const { return m_recordOffset; }
    /// Returns the number of payload + framing bytes read so far (uncompressed).
    uint64_t bytesRead() const { return m_offset; }
    /// Returns the detected compression.
    RecordCompression compression() const { return m_compression; }
    /// Returns the file name given to the constructor.
    const std::string &path() const { return m_path; }
    /// Returns "<file>: record <index> at byte <offset>" for the record last returned.
    std::string location() const;

private:
    struct Source;
    size_t readBytes(char *buffer, size_t size);
    bool readHeader(uint64_t &length);
    [[noreturn]] void fail(const std::string &message, const std::string &hint = {}) const;

    std::string m_path;
    RecordCompression m_compression = RecordCompression::None;
    std::unique_ptr<Source> m_source;
    uint64_t m_offset = 0;        // uncompressed bytes consumed
    uint64_t m_recordOffset = 0;  // start of the current record
    int64_t m_index = -1;
    uint64_t m_fileSize = 0;      // on-disk size, bounds lengths of uncompressed files
    std::string m_scratch;
};

} // namespace wb
