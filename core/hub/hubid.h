// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace wb {

/// A model on the Hugging Face Hub: `org/name` (or a legacy `name` without an org, such as
/// `bert-base-uncased`) at a revision (a branch, a tag or a 40-hex commit; default "main").
/// A plain value; thread-safe.
struct HubId
{
    std::string repo_id;           ///< "google/bert_uncased_L-2_H-128_A-2"
    std::string revision = "main"; ///< "main", "v1.0", "refs/pr/3" or a commit

    /// Returns "models--org--name", the repo's folder in the Hugging Face cache.
    std::string cacheFolderName() const;
    /// Returns repo_id, with "@revision" appended unless the revision is "main".
    std::string toString() const;
};

/// Parses "org/name[@revision]" (surrounding spaces ignored). A repo part has one or two
/// components of 1–96 characters from [A-Za-z0-9_.-], each starting and ending with a letter,
/// digit or '_', and no "--" or ".." (huggingface_hub's validate_repo_id); a revision is
/// 1–256 characters from [A-Za-z0-9_.-/], without "..", a leading '/' or a trailing '/'.
/// Throws HubError(InvalidId) naming the text, what is wrong and an example of a valid id.
HubId parseHubId(const std::string &text);

/// Returns true when `text` is a 40-character lower-case hexadecimal git commit.
bool isCommitHash(const std::string &text);

/// Returns `s` percent-encoded for one URL path segment (RFC 3986 unreserved kept, '/' encoded).
std::string urlEncodeSegment(const std::string &s);

} // namespace wb
