// SPDX-License-Identifier: Apache-2.0
#pragma once

// The Hub's endpoints with retries, error words and the cache-writing download. Internal to
// core/hub; front-ends call resolvePretrainedModel (pretrainedmodel.h).

#include "core/events/stoptoken.h"
#include "core/hub/hubcache.h"
#include "core/hub/hubid.h"
#include "core/hub/hubparse.h"
#include "core/hub/hubsettings.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace wb {

class HttpClient;

/// What HEAD {endpoint}/{repo}/resolve/{rev}/{file} says about a file. Each value is the first
/// one the chain of answers advertised: a redirect to a path on the Hub's own host (a renamed
/// repo, or a mirror's storage) keeps what the answer before it said (huggingface_hub
/// file_download.py get_hf_file_metadata keeps X-Linked-Etag/X-Linked-Size of the answer that
/// redirects to the storage).
struct HubFileMetadata
{
    std::string commit;   ///< X-Repo-Commit
    std::string etag;     ///< X-Linked-Etag (LFS: the sha256), else ETag (git blob sha1), normalised;
                          ///< the blob's name, checked against the bytes as blobNameKind says
    int64_t size = -1;    ///< X-Linked-Size, else Content-Length of a 200 answer; -1 when unknown
    std::string location; ///< where to GET the bytes: the storage redirect's target or the resolve URL
    bool lfs = false;     ///< X-Linked-Etag was present: etag is the sha256 to check
};
class HubPartFile;

/// Thread rules: one thread per client (it owns a libcurl handle).
class HubClient
{
public:
    HubClient(const HubSettings &settings, const StopToken &stop);
    ~HubClient();

    /// GET {endpoint}/api/models/{repo}/revision/{rev}. Throws HubError.
    RepoInfo repoInfo(const HubId &id);
    /// HEAD of `file` at `revision` (a commit or id.revision). Returns nothing for a 404
    /// EntryNotFound when `allowMissing`; throws HubError otherwise.
    std::optional<HubFileMetadata> fileMetadata(const HubId &id, const std::string &revision, const std::string &file,
                                                bool allowMissing);
    /// Puts the file's bytes at cache.blobPath(etag) and links snapshots/<commit>/<file> to it.
    /// A blob there already is checked first: its size against meta.size (or the recorded
    /// one) always; its bytes against its name when it is not yet this file's link target or
    /// settings.verify. A damaged one is said through `onNotice` ("blobs/<etag> is damaged (…):
    /// downloading it again"), deleted and fetched again. Downloads to <blob>.incomplete,
    /// resuming what is there with a Range request, retries cut transfers, checks the size and
    /// the digest the name claims (blobNameKind: sha256 or git blob sha1), then renames and
    /// records the size. `onBytes(bytesOnDisk)` reports progress of this file. Returns the
    /// bytes transferred. Throws HubError (Checksum: the .incomplete is removed; Stopped and
    /// Network: it stays for a resume).
    int64_t fetch(const HubCache &cache, const HubId &id, const std::string &commit, const std::string &file,
                  const HubFileMetadata &meta, const std::function<void(int64_t)> &onBytes,
                  const std::function<void(const std::string &)> &onNotice = {});

    /// Returns "{endpoint}/{repo}/resolve/{revision}/{file}".
    std::string resolveUrl(const HubId &id, const std::string &revision, const std::string &file) const;

private:
    /// Downloads `meta.location` into `part` (resuming what it holds), with redirects, retries
    /// and back-off; returns when the transfer is complete, throws HubError otherwise.
    void downloadPart(HubPartFile &part, const HubId &id, const std::string &file, const HubFileMetadata &meta,
                      const std::function<void(int64_t)> &onBytes);

    const HubSettings &m_settings;
    const StopToken &m_stop;
    std::unique_ptr<HttpClient> m_http;
};

} // namespace wb
