// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/hub/hubid.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// What a blob's name claims about its bytes (the name is the etag the Hub gave the file).
enum class BlobNameKind {
    Sha256,      ///< 64 hex digits: the sha256 of the bytes (LFS files' X-Linked-Etag)
    GitBlobSha1, ///< 40 hex digits: git's blob id, sha1("blob <size>\0" + bytes) (other files' ETag)
    Opaque,      ///< anything else (a mirror's own ETag): no digest, only the size can be checked
};

/// Returns the claim of a blob name (hex digits in either case).
BlobNameKind blobNameKind(const std::string &etag);

/// Returns the lower-case hex digest of the file at `path` of the kind `kind` names (sha256 or
/// git blob sha1; "" for Opaque), reading it in 1 MiB blocks. Throws HubError(Io) naming the
/// file when it cannot be read. Thread-safe.
std::string fileDigest(const std::string &path, BlobNameKind kind);

/// The Hugging Face cache as huggingface_hub lays it out (huggingface_hub file_download.py;
/// docs/pretrained-models.md), so that files either side downloaded are found by the other:
///
///     <root>/models--<org>--<name>/blobs/<etag>                 the file's bytes; etag = sha256
///                                                                (LFS files) or git blob sha1
///     <root>/models--<org>--<name>/snapshots/<commit>/<path>    relative link ../../blobs/<etag>
///     <root>/models--<org>--<name>/refs/<revision>              the commit, no newline
///     <root>/models--<org>--<name>/.no_exist/<commit>/<path>    empty: the Hub has no such file
///     <root>/.locks/models--<org>--<name>/<etag>.lock           download lock (flock)
///     <root>/models--<org>--<name>/.blob_sizes/<etag>           this product's record: the blob's
///                                                                size in bytes, written once its
///                                                                bytes were checked (huggingface_hub
///                                                                ignores the folder)
///
/// Downloads go to blobs/<etag>.incomplete (kept after a cut or a Cancel, for resume) and are
/// renamed when complete and checked against their name (blobNameKind) and the Hub's size. Only
/// paths, small files and reading blobs back here; no network.
/// Thread rules: const methods are thread-safe; writers use atomic renames, so concurrent
/// readers see a file or no file, never half of one.
class HubCache
{
public:
    explicit HubCache(std::string root);

    const std::string &root() const { return m_root; }
    /// <root>/models--org--name
    std::string repoDir(const HubId &id) const;
    std::string blobPath(const HubId &id, const std::string &etag) const;
    std::string snapshotDir(const HubId &id, const std::string &commit) const;
    std::string snapshotFile(const HubId &id, const std::string &commit, const std::string &file) const;
    std::string refPath(const HubId &id) const;
    std::string lockPath(const HubId &id, const std::string &etag) const;

    /// Returns the commit the cache holds for id.revision: the revision itself when it is a
    /// commit with a snapshot folder, else the commit in refs/<revision>; "" when none.
    std::string cachedCommit(const HubId &id) const;
    /// Writes refs/<revision> = commit (atomically; nothing for a commit revision).
    /// Throws HubError(Io/DiskFull) naming the file.
    void writeRef(const HubId &id, const std::string &commit) const;
    /// Makes snapshots/<commit>/<file> a relative link to blobs/<etag> (replacing an old
    /// link atomically). Throws HubError(Io) naming the link.
    void linkSnapshotFile(const HubId &id, const std::string &commit, const std::string &file,
                          const std::string &etag) const;
    /// Returns true when snapshots/<commit>/<file> exists and resolves to a regular file.
    bool hasSnapshotFile(const HubId &id, const std::string &commit, const std::string &file) const;
    /// Records (.no_exist/<commit>/<file>) or asks whether the Hub said it has no such file.
    void markMissing(const HubId &id, const std::string &commit, const std::string &file) const;
    bool isKnownMissing(const HubId &id, const std::string &commit, const std::string &file) const;
    /// Returns the blob name snapshots/<commit>/<file> links to ("" when it is no link into
    /// this repo's blobs/ folder, e.g. a copied regular file).
    std::string snapshotBlob(const HubId &id, const std::string &commit, const std::string &file) const;
    /// Records that blobs/<etag> holds `size` checked bytes (best effort: a read-only cache
    /// records nothing).
    void recordBlobSize(const HubId &id, const std::string &etag, int64_t size) const;
    /// Returns the size recordBlobSize wrote for blobs/<etag>, or -1 when none is recorded.
    int64_t recordedBlobSize(const HubId &id, const std::string &etag) const;
    /// Checks blobs/<etag> before it is used: its size against `expectedSize` (the Hub's; when
    /// -1, the recorded one; unchecked when neither is known) and, when `hash`, its bytes
    /// against its name (sha256 or git blob sha1). Returns "" when whole (or absent), else what
    /// is wrong in words: "1000 bytes, expected 4096" or "its sha256 is 3f…, not its name".
    /// Throws HubError(Io) when the blob cannot be read.
    std::string blobDamage(const HubId &id, const std::string &etag, int64_t expectedSize, bool hash) const;
    /// Returns the files of a snapshot (paths relative to it, '/'-separated, sorted), links
    /// that resolve to regular files only.
    std::vector<std::string> snapshotFiles(const HubId &id, const std::string &commit) const;

private:
    std::string m_root;
};

} // namespace wb
