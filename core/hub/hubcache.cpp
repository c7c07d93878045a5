// SPDX-License-Identifier: Apache-2.0
#include "core/hub/hubcache.h"

#include "core/hub/huberror.h"
#include "core/hub/hubparse.h"
#include "core/util/asciitext.h"
#include "core/util/digest.h"
#include "core/util/hex.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace wb {

namespace {

std::string readSmallFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {};
    std::string s(4096, '\0');
    in.read(s.data(), std::streamsize(s.size()));
    s.resize(size_t(in.gcount()));
    return s;
}

[[noreturn]] void ioError(const std::string &path, const std::string &what, int err)
{
    const bool full = err == ENOSPC || err == EDQUOT;
    throw HubError(full ? HubErrorKind::DiskFull : HubErrorKind::Io, path,
                   what + ": " + std::strerror(err),
                   full ? "Free disk space there, or point HF_HUB_CACHE (or HF_HOME) at a disk with room."
                        : "Check that the Hugging Face cache folder is writable, or set HF_HUB_CACHE to one that is.");
}

void makeDirs(const fs::path &dir)
{
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        ioError(dir.string(), "cannot create the folder", ec.value());
}

bool isHexOf(const std::string &s, size_t n)
{
    return s.size() == n && isHex(s);
}

} // namespace

BlobNameKind blobNameKind(const std::string &etag)
{
    if (isHexOf(etag, 64))
        return BlobNameKind::Sha256;
    if (isHexOf(etag, 40))
        return BlobNameKind::GitBlobSha1;
    return BlobNameKind::Opaque;
}

std::string fileDigest(const std::string &path, BlobNameKind kind)
{
    if (kind == BlobNameKind::Opaque)
        return {};
    int err = 0;
    std::string hex = kind == BlobNameKind::Sha256 ? fileDigestHex(path, DigestKind::Sha256, &err)
                                                   : gitBlobSha1FileHex(path, &err);
    if (hex.empty())
        ioError(path, "cannot read the cached file", err);
    return hex;
}

HubCache::HubCache(std::string root) : m_root(std::move(root)) {}

std::string HubCache::repoDir(const HubId &id) const
{
    return m_root + "/" + id.cacheFolderName();
}

std::string HubCache::blobPath(const HubId &id, const std::string &etag) const
{
    return repoDir(id) + "/blobs/" + etag;
}

std::string HubCache::snapshotDir(const HubId &id, const std::string &commit) const
{
    return repoDir(id) + "/snapshots/" + commit;
}

std::string HubCache::snapshotFile(const HubId &id, const std::string &commit, const std::string &file) const
{
    return snapshotDir(id, commit) + "/" + file;
}

std::string HubCache::refPath(const HubId &id) const
{
    return repoDir(id) + "/refs/" + id.revision;
}

std::string HubCache::lockPath(const HubId &id, const std::string &etag) const
{
    return m_root + "/.locks/" + id.cacheFolderName() + "/" + etag + ".lock";
}

std::string HubCache::cachedCommit(const HubId &id) const
{
    std::error_code ec;
    if (isCommitHash(id.revision))
        return fs::is_directory(snapshotDir(id, id.revision), ec) ? id.revision : std::string();
    return parseRefFile(readSmallFile(refPath(id)));
}

void HubCache::writeRef(const HubId &id, const std::string &commit) const
{
    if (isCommitHash(id.revision))
        return;
    const fs::path ref = refPath(id);
    makeDirs(ref.parent_path());
    const std::string tmp = ref.string() + ".tmp" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << commit;
        out.flush();
        if (!out) {
            const int err = errno ? errno : EIO;
            std::error_code ec;
            fs::remove(tmp, ec);
            ioError(ref.string(), "cannot write the ref", err);
        }
    }
    if (std::rename(tmp.c_str(), ref.c_str()) != 0) {
        const int err = errno;
        std::error_code ec;
        fs::remove(tmp, ec);
        ioError(ref.string(), "cannot write the ref", err);
    }
}

void HubCache::linkSnapshotFile(const HubId &id, const std::string &commit, const std::string &file,
                                const std::string &etag) const
{
    const fs::path link = snapshotFile(id, commit, file);
    makeDirs(link.parent_path());
    // huggingface_hub links with os.path.relpath(blob, dirname(link)): ../../blobs/<etag>, one
    // more ../ per folder level of `file`.
    const fs::path target = fs::path(blobPath(id, etag)).lexically_relative(link.parent_path());
    const std::string tmp = link.string() + ".link" + std::to_string(::getpid());
    std::error_code ec;
    fs::remove(tmp, ec);
    if (::symlink(target.c_str(), tmp.c_str()) != 0)
        ioError(link.string(), "cannot create the snapshot link", errno);
    if (std::rename(tmp.c_str(), link.c_str()) != 0) {
        const int err = errno;
        fs::remove(tmp, ec);
        ioError(link.string(), "cannot create the snapshot link", err);
    }
}

bool HubCache::hasSnapshotFile(const HubId &id, const std::string &commit, const std::string &file) const
{
    std::error_code ec;
    return fs::is_regular_file(snapshotFile(id, commit, file), ec);
}

void HubCache::markMissing(const HubId &id, const std::string &commit, const std::string &file) const
{
    const fs::path p = repoDir(id) + "/.no_exist/" + commit + "/" + file;
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    if (!ec)
        std::ofstream(p, std::ios::binary | std::ios::trunc);
}

bool HubCache::isKnownMissing(const HubId &id, const std::string &commit, const std::string &file) const
{
    std::error_code ec;
    return fs::exists(repoDir(id) + "/.no_exist/" + commit + "/" + file, ec);
}

std::string HubCache::snapshotBlob(const HubId &id, const std::string &commit, const std::string &file) const
{
    std::error_code ec;
    const fs::path link = snapshotFile(id, commit, file);
    const fs::path target = fs::read_symlink(link, ec);
    if (ec)
        return {};
    const fs::path blob = (link.parent_path() / target).lexically_normal();
    if (blob.parent_path() != fs::path(repoDir(id) + "/blobs").lexically_normal())
        return {};
    return blob.filename().string();
}

void HubCache::recordBlobSize(const HubId &id, const std::string &etag, int64_t size) const
{
    if (recordedBlobSize(id, etag) == size)
        return;
    const fs::path record = repoDir(id) + "/.blob_sizes/" + etag;
    std::error_code ec;
    fs::create_directories(record.parent_path(), ec);
    const std::string tmp = record.string() + ".tmp" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << size;
        if (!out.flush()) {
            fs::remove(tmp, ec);
            return;
        }
    }
    if (std::rename(tmp.c_str(), record.c_str()) != 0)
        fs::remove(tmp, ec);
}

int64_t HubCache::recordedBlobSize(const HubId &id, const std::string &etag) const
{
    const std::string text = readSmallFile(repoDir(id) + "/.blob_sizes/" + etag);
    if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos)
        return -1;
    return std::stoll(text);
}

std::string HubCache::blobDamage(const HubId &id, const std::string &etag, int64_t expectedSize, bool hash) const
{
    const std::string blob = blobPath(id, etag);
    std::error_code ec;
    const auto size = fs::file_size(blob, ec);
    if (ec)
        return {};
    const int64_t expected = expectedSize >= 0 ? expectedSize : recordedBlobSize(id, etag);
    if (expected >= 0 && int64_t(size) != expected)
        return std::to_string(size) + " bytes, expected " + std::to_string(expected);
    const BlobNameKind kind = blobNameKind(etag);
    if (!hash || kind == BlobNameKind::Opaque)
        return {};
    const std::string got = fileDigest(blob, kind);
    if (got != lowerAscii(etag))
        return std::string(kind == BlobNameKind::Sha256 ? "its sha256 is " : "its git blob sha1 is ") + got
               + ", not its name";
    return {};
}

std::vector<std::string> HubCache::snapshotFiles(const HubId &id, const std::string &commit) const
{
    std::vector<std::string> out;
    const fs::path dir = snapshotDir(id, commit);
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return out;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code e2;
        if (fs::is_regular_file(it->path(), e2))
            out.push_back(it->path().lexically_relative(dir).generic_string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace wb
