// SPDX-License-Identifier: Apache-2.0
#include "core/data/tfrecordreader.h"

#include "core/config/optionwords.h"
#include "core/util/crc32c.h"
#include "core/util/error.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <sys/stat.h>
#include <vector>

namespace wb {

namespace {

constexpr size_t kFileBuffer = 1 << 20;     // stdio buffer for uncompressed reads
constexpr size_t kInflateInput = 256 << 10; // compressed bytes per zlib refill
constexpr size_t kChunk = 1 << 20;          // payload growth step for unverified lengths

uint64_t decode64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

uint32_t decode32(const unsigned char *p)
{
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

std::string hex32(uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08X", v);
    return buf;
}

} // namespace

const char *compressionName(RecordCompression c)
{
    switch (c) {
    case RecordCompression::Gzip: return "GZIP";
    case RecordCompression::Zlib: return "ZLIB";
    case RecordCompression::None: break;
    }
    return "none";
}

struct TFRecordReader::Source
{
    FILE *file = nullptr;
    bool inflating = false;
    bool streamEnded = false;
    z_stream zs{};
    std::vector<unsigned char> input;
    std::vector<char> buffer; // uncompressed read-ahead
    size_t pos = 0, len = 0;

    ~Source()
    {
        if (inflating)
            inflateEnd(&zs);
        if (file)
            std::fclose(file);
    }
};

TFRecordReader::TFRecordReader(const std::string &path)
    : m_path(path), m_source(std::make_unique<Source>())
{
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0)
        throw Error(path, std::string("cannot open TFRecord file: ") + std::strerror(errno),
                    "Check the path; globs and comma-separated lists are expanded by the dataset.");
    if (S_ISDIR(st.st_mode))
        throw Error(path, "is a directory, not a TFRecord file",
                    "Name the record file itself, or a glob such as dir/*.tf_record.");
    m_fileSize = uint64_t(st.st_size);
    m_source->file = std::fopen(path.c_str(), "rb");
    if (!m_source->file)
        throw Error(path, std::string("cannot open TFRecord file: ") + std::strerror(errno));
    std::setvbuf(m_source->file, nullptr, _IONBF, 0); // we buffer ourselves
    // No larger than the file: a 1 MiB buffer per small file made fuzz_tfrecord run at 190 exec/s.
    const size_t bufferSize = size_t(std::clamp<uint64_t>(m_fileSize, 64, kFileBuffer));

    unsigned char head[12];
    const size_t got = std::fread(head, 1, sizeof head, m_source->file);
    std::rewind(m_source->file);
    const bool validHeader = got == 12 && maskCrc(crc32c(head, 8)) == decode32(head + 8);
    if (!validHeader && got >= 2) {
        if (head[0] == 0x1f && head[1] == 0x8b)
            m_compression = RecordCompression::Gzip;
        else if ((head[0] & 0x0f) == 8 && ((unsigned(head[0]) << 8) | head[1]) % 31 == 0)
            m_compression = RecordCompression::Zlib;
    }
    if (m_compression == RecordCompression::None) {
        m_source->buffer.resize(bufferSize);
    } else {
        Source &s = *m_source;
        s.input.resize(std::min(bufferSize, kInflateInput)); // inflate() writes straight to the caller's buffer
        if (inflateInit2(&s.zs, 15 + 32) != Z_OK) // 15 + 32: accept zlib and gzip headers
            throw Error(path, "cannot initialise zlib");
        s.inflating = true;
    }
}

TFRecordReader::~TFRecordReader() = default;

std::string TFRecordReader::location() const
{
    std::ostringstream os;
    os << m_path << ": record " << m_index << " at byte " << m_recordOffset;
    return os.str();
}

void TFRecordReader::fail(const std::string &message, const std::string &hint) const
{
    throw Error(location(), message, hint);
}

size_t TFRecordReader::readBytes(char *buffer, size_t size)
{
    Source &s = *m_source;
    if (!s.inflating) {
        size_t done = 0;
        while (done < size) {
            if (s.pos == s.len) {
                if (size - done >= s.buffer.size()) { // large payloads bypass the buffer
                    const size_t n = std::fread(buffer + done, 1, size - done, s.file);
                    done += n;
                    if (n == 0)
                        break;
                    continue;
                }
                s.pos = 0;
                s.len = std::fread(s.buffer.data(), 1, s.buffer.size(), s.file);
                if (s.len == 0)
                    break;
            }
            const size_t n = std::min(size - done, s.len - s.pos);
            std::memcpy(buffer + done, s.buffer.data() + s.pos, n);
            s.pos += n;
            done += n;
        }
        if (done < size && std::ferror(s.file))
            fail(std::string("read error: ") + std::strerror(errno));
        m_offset += done;
        return done;
    }
    size_t produced = 0;
    while (produced < size && !s.streamEnded) {
        if (s.zs.avail_in == 0) {
            const size_t n = std::fread(s.input.data(), 1, s.input.size(), s.file);
            if (n == 0) {
                if (std::ferror(s.file))
                    fail(std::string("read error: ") + std::strerror(errno));
                fail(std::string("truncated ") + compressionName(m_compression)
                         + " stream: the compressed file ends before its end marker",
                     "The file was cut off while it was written or copied; recreate it.");
            }
            s.zs.next_in = s.input.data();
            s.zs.avail_in = static_cast<uInt>(n);
        }
        s.zs.next_out = reinterpret_cast<Bytef *>(buffer + produced);
        s.zs.avail_out = static_cast<uInt>(size - produced);
        const int rc = inflate(&s.zs, Z_NO_FLUSH);
        produced = size - s.zs.avail_out;
        if (rc == Z_STREAM_END) {
            // Concatenated gzip members continue; otherwise the stream is over.
            if (s.zs.avail_in == 0) {
                const size_t n = std::fread(s.input.data(), 1, s.input.size(), s.file);
                s.zs.next_in = s.input.data();
                s.zs.avail_in = static_cast<uInt>(n);
            }
            if (s.zs.avail_in == 0)
                s.streamEnded = true;
            else
                inflateReset(&s.zs);
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            fail(std::string("corrupted ") + compressionName(m_compression) + " data: "
                     + (s.zs.msg ? s.zs.msg : "zlib error " + std::to_string(rc)),
                 "The compressed file is damaged; recreate it.");
        }
    }
    m_offset += produced;
    return produced;
}

bool TFRecordReader::readHeader(uint64_t &length)
{
    unsigned char head[12];
    m_recordOffset = m_offset;
    ++m_index;
    const size_t got = readBytes(reinterpret_cast<char *>(head), sizeof head);
    if (got == 0) {
        --m_index;
        return false;
    }
    if (got < sizeof head)
        fail("truncated record: the file ends inside the 12-byte record header (" + std::to_string(got)
                 + " bytes left)",
             "The file was cut off while it was written or copied; recreate it.");
    const uint32_t stored = decode32(head + 8);
    const uint32_t computed = maskCrc(crc32c(head, 8));
    if (stored != computed) {
        if (m_index == 0)
            fail("not a TFRecord file: the first 12 bytes are not a valid record header (length CRC mismatch)",
                 "Pass a file written by tf.io.TFRecordWriter or " + commandName("prepare")
                     + " (plain, GZIP or ZLIB compressed).");
        fail("bad length CRC: stored " + hex32(stored) + ", computed " + hex32(computed)
                 + " (the record header is corrupted)",
             "The file is damaged; recreate it.");
    }
    length = decode64(head);
    if (length > kMaxRecordLength)
        fail("corrupt length field: " + std::to_string(length) + " bytes is more than the "
             + std::to_string(kMaxRecordLength) + "-byte limit");
    if (m_compression == RecordCompression::None && length + 16 > m_fileSize - m_recordOffset)
        fail("truncated record: the header announces " + std::to_string(length) + " payload bytes but only "
                 + std::to_string(m_fileSize - m_recordOffset - 12) + " bytes follow",
             "The file was cut off while it was written or copied; recreate it.");
    return true;
}

bool TFRecordReader::read(std::string &payload)
{
    uint64_t length = 0;
    if (!readHeader(length))
        return false;
    payload.clear();
    // Uncompressed lengths are bounded by the file size already; compressed ones grow in chunks.
    const uint64_t step = m_compression == RecordCompression::None ? length : kChunk;
    uint64_t have = 0;
    while (have < length) {
        const uint64_t want = std::min<uint64_t>(length - have, step);
        payload.resize(have + want);
        const size_t n = readBytes(payload.data() + have, want);
        have += n;
        if (n < want)
            fail("truncated record: the file ends after " + std::to_string(have) + " of " + std::to_string(length)
                     + " payload bytes",
                 "The file was cut off while it was written or copied; recreate it.");
    }
    unsigned char foot[4];
    if (readBytes(reinterpret_cast<char *>(foot), 4) < 4)
        fail("truncated record: the file ends inside the payload CRC",
             "The file was cut off while it was written or copied; recreate it.");
    const uint32_t stored = decode32(foot);
    const uint32_t computed = maskCrc(crc32c(payload.data(), payload.size()));
    if (stored != computed)
        fail("bad data CRC: stored " + hex32(stored) + ", computed " + hex32(computed)
                 + " (the record payload is corrupted)",
             "The file is damaged; recreate it.");
    return true;
}

bool TFRecordReader::skip(bool verifyData)
{
    if (verifyData)
        return read(m_scratch);
    uint64_t length = 0;
    if (!readHeader(length))
        return false;
    if (m_compression == RecordCompression::None) {
        Source &s = *m_source;
        const uint64_t inBuffer = std::min<uint64_t>(length + 4, s.len - s.pos);
        s.pos += size_t(inBuffer);
        const uint64_t rest = length + 4 - inBuffer;
        if (rest > 0 && std::fseek(s.file, long(rest), SEEK_CUR) != 0)
            fail(std::string("seek failed: ") + std::strerror(errno));
        m_offset += length + 4;
        return true;
    }
    uint64_t left = length + 4;
    m_scratch.resize(kChunk);
    while (left > 0) {
        const size_t want = std::min<uint64_t>(left, kChunk);
        if (readBytes(m_scratch.data(), want) < want)
            fail("truncated record: the file ends inside a " + std::to_string(length) + "-byte payload",
                 "The file was cut off while it was written or copied; recreate it.");
        left -= want;
    }
    return true;
}

} // namespace wb
