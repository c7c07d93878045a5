// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/hub/hubid.h"

#include <string>
#include <vector>

namespace wb {

/// The Hugging Face cache as huggingface_hub lays it out (huggingface_hub file_download.py;
/// docs/pretrained-models.md), so that files either side downloaded are found by the other:
///
///     <root>/models--<org>--<name>/blobs/<etag>                 the file's bytes; etag = sha256
///                                                                (LFS files) or git blob sha1
///     <root>/models--<org>--<name>/snapshots/<commit>/<path>    relative link ../../blobs/<etag>
///     <root>/models--<org>--<name>/refs/<revision>              the commit, no newline
///     <root>/models--<org>--<name>/.no_exist/<commit>/<path>    empty: the Hub has no such file
///     <root>/.locks/models--<org>--<name>/<etag>.lock           download lock (flock)
///
/// Downloads go to blobs/<etag>.incomplete (kept after a cut or a Cancel, for resume) and are
/// renamed when complete. Only paths and small files here; no network.
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
    /// Returns the files of a snapshot (paths relative to it, '/'-separated, sorted), links
    /// that resolve to regular files only.
    std::vector<std::string> snapshotFiles(const HubId &id, const std::string &commit) const;

private:
    std::string m_root;
};

} // namespace wb
