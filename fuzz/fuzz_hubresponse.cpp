// SPDX-License-Identifier: Apache-2.0
// Fuzzes what the Hub and the Hugging Face cache hand the Hub client (core/hub/hubparse.h):
// the api/models JSON (siblings, sha), a *.index.json shard map, a refs file, response header
// lines, ETags, repo file names and the weights choice, and Hub ids. The same bytes go to
// every parser; each either returns a value that keeps its contract or throws HubError.
#include "core/hub/huberror.h"
#include "core/hub/hubid.h"
#include "core/hub/hubparse.h"

#include <cstdlib>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    try {
        const wb::RepoInfo info = wb::parseRepoInfo(text, "fuzz");
        if (!info.commit.empty() && !wb::isCommitHash(info.commit))
            std::abort();
        const wb::WeightsChoice w = wb::chooseWeights(info.siblings);
        if (!w.file.empty() && w.format == wb::WeightsFormat::None)
            std::abort();
        (void)wb::otherWeightsFiles(info.siblings);
    } catch (const wb::HubError &) {
    }
    try {
        for (const std::string &shard : wb::parseShardFileNames(text, "fuzz"))
            if (!wb::isSafeRepoPath(shard))
                std::abort();
    } catch (const wb::HubError &) {
    }
    const std::string ref = wb::parseRefFile(text);
    if (!ref.empty() && !wb::isCommitHash(ref))
        std::abort();
    wb::HttpHeaders headers;
    long status = 0;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        wb::parseHeaderLine(line + "\n", headers, status);
        if (status < 0 || status > 999)
            std::abort();
        (void)wb::normalizeEtag(line);
        (void)wb::isSafeRepoPath(line);
    }
    for (const auto &[name, value] : headers)
        for (char c : name)
            if (c >= 'A' && c <= 'Z')
                std::abort();
    try {
        const wb::HubId id = wb::parseHubId(text);
        if (id.repo_id.empty() || id.revision.empty() || id.cacheFolderName().rfind("models--", 0) != 0)
            std::abort();
        (void)wb::urlEncodeSegment(id.revision);
    } catch (const wb::HubError &) {
    }
    return 0;
}
