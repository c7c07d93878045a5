// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/util/error.h"

#include <string>

namespace wb {

/// What kind of Hub failure a HubError is; front-ends map it to an exit code (isUserError).
enum class HubErrorKind {
    InvalidId,        ///< not `org/name[@revision]` (user)
    LocalFolder,      ///< a local model folder lacks config.json, vocab.txt or weights (user)
    NotCached,        ///< HF_HUB_OFFLINE=1 (or a cache-only lookup) and the model is not in the cache (user)
    Gated,            ///< 401/403: gated or private model, no token or a token without access (user)
    RepoNotFound,     ///< 404 (X-Error-Code RepoNotFound): no such model (user)
    RevisionNotFound, ///< 404 (X-Error-Code RevisionNotFound): no such branch, tag or commit (user)
    EntryNotFound,    ///< 404 (X-Error-Code EntryNotFound): the model has no such file (user)
    NoBertWeights,    ///< the repo has no config.json/vocab.txt/weights a BERT can load (user)
    Network,          ///< no network, DNS failure, refused connection, timeout (runtime)
    Http,             ///< another HTTP failure, e.g. 500 after the retries (runtime)
    Checksum,         ///< the downloaded file's sha256 is not the Hub's X-Linked-Etag (runtime)
    DiskFull,         ///< not enough space for the download (runtime)
    Io,               ///< the cache could not be written (runtime)
    Stopped,          ///< cancelled through the StopToken
};

/// A Hub or cache failure in words: `field` names the model and file ("google/bert_uncased_L-2_H-128_A-2:
/// model.safetensors"), what() says what happened, hint() how to fix it.
/// Thread rule: a plain value, safe to copy between threads.
class HubError : public Error
{
public:
    HubError(HubErrorKind kind, std::string field, const std::string &message, std::string hint = {})
        : Error(std::move(field), message, std::move(hint)), m_kind(kind)
    {
    }

    HubErrorKind kind() const noexcept { return m_kind; }

    /// Returns true for problems the user fixes in the input (a wrong id, a missing token, a
    /// model that is not cached in offline mode, a repo without BERT weights): the CLI's exit 2.
    /// Network, HTTP, checksum, disk and cache failures are runtime failures (exit 1); Stopped
    /// is neither (exit 130).
    bool isUserError() const noexcept
    {
        switch (m_kind) {
        case HubErrorKind::InvalidId:
        case HubErrorKind::LocalFolder:
        case HubErrorKind::NotCached:
        case HubErrorKind::Gated:
        case HubErrorKind::RepoNotFound:
        case HubErrorKind::RevisionNotFound:
        case HubErrorKind::EntryNotFound:
        case HubErrorKind::NoBertWeights: return true;
        default: return false;
        }
    }

private:
    HubErrorKind m_kind;
};

} // namespace wb
