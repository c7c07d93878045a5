// SPDX-License-Identifier: Apache-2.0
#include "core/data/tfrecordwriter.h"

#include "core/config/jsonfile.h"
#include "core/util/crc32c.h"
#include "core/util/error.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

namespace wb {

namespace {

void encode64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        p[i] = static_cast<unsigned char>(v >> (8 * i));
}

void encode32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        p[i] = static_cast<unsigned char>(v >> (8 * i));
}

} // namespace

struct TFRecordWriter::Deflater
{
    z_stream zs{};
    std::vector<unsigned char> out = std::vector<unsigned char>(256 << 10);
    ~Deflater() { deflateEnd(&zs); }
};

TFRecordWriter::TFRecordWriter(std::string path, RecordCompression compression) : m_path(std::move(path))
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path target(m_path);
    if (target.has_parent_path())
        fs::create_directories(target.parent_path(), ec);
    std::random_device rd;
    m_tempPath = m_path + ".tmp-" + std::to_string(rd() % 1000000);
    m_file = std::fopen(m_tempPath.c_str(), "wb");
    if (!m_file)
        throw Error(m_path, std::string("cannot create TFRecord file: ") + std::strerror(errno),
                    "Check that the output directory exists and is writable.");
    if (compression != RecordCompression::None) {
        m_deflater = std::make_unique<Deflater>();
        const int bits = compression == RecordCompression::Gzip ? 15 + 16 : 15;
        if (deflateInit2(&m_deflater->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, bits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            throw Error(m_path, "cannot initialise zlib");
    }
}

TFRecordWriter::~TFRecordWriter()
{
    if (m_file) {
        std::fclose(m_file);
        m_file = nullptr;
    }
    if (!m_committed)
        std::remove(m_tempPath.c_str());
}

void TFRecordWriter::flushDeflate(int mode)
{
    z_stream &zs = m_deflater->zs;
    int rc;
    do {
        zs.next_out = m_deflater->out.data();
        zs.avail_out = static_cast<uInt>(m_deflater->out.size());
        rc = deflate(&zs, mode);
        const size_t n = m_deflater->out.size() - zs.avail_out;
        if (n && std::fwrite(m_deflater->out.data(), 1, n, m_file) != n)
            throw Error(m_path, std::string("write failed: ") + std::strerror(errno));
    } while (zs.avail_out == 0 || (mode == Z_FINISH && rc != Z_STREAM_END));
}

void TFRecordWriter::writeRaw(const void *data, size_t size)
{
    if (!m_file)
        throw Error(m_path, "write after commit");
    if (m_deflater) {
        m_deflater->zs.next_in = static_cast<Bytef *>(const_cast<void *>(data));
        m_deflater->zs.avail_in = static_cast<uInt>(size);
        flushDeflate(Z_NO_FLUSH);
        return;
    }
    if (std::fwrite(data, 1, size, m_file) != size)
        throw Error(m_path, std::string("write failed: ") + std::strerror(errno), "Check the free disk space.");
}

std::string TFRecordWriter::frame(std::string_view payload)
{
    std::string out(16 + payload.size(), '\0');
    auto *p = reinterpret_cast<unsigned char *>(out.data());
    encode64(p, payload.size());
    encode32(p + 8, maskCrc(crc32c(p, 8)));
    std::memcpy(p + 12, payload.data(), payload.size());
    encode32(p + 12 + payload.size(), maskCrc(crc32c(payload.data(), payload.size())));
    return out;
}

void TFRecordWriter::write(std::string_view payload)
{
    unsigned char head[12];
    encode64(head, payload.size());
    encode32(head + 8, maskCrc(crc32c(head, 8)));
    unsigned char foot[4];
    encode32(foot, maskCrc(crc32c(payload.data(), payload.size())));
    writeRaw(head, sizeof head);
    writeRaw(payload.data(), payload.size());
    writeRaw(foot, sizeof foot);
    ++m_count;
}

void TFRecordWriter::commit()
{
    if (!m_file)
        throw Error(m_path, "commit called twice");
    if (m_deflater)
        flushDeflate(Z_FINISH);
    const bool ok = std::fflush(m_file) == 0;
    std::fclose(m_file);
    m_file = nullptr;
    if (!ok)
        throw Error(m_path, std::string("write failed: ") + std::strerror(errno), "Check the free disk space.");
    commitFileAtomic(m_tempPath, m_path); // fsync, rename, fsync the directory
    m_committed = true;
}

} // namespace wb
