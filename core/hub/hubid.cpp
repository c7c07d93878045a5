// SPDX-License-Identifier: Apache-2.0
#include "core/hub/hubid.h"

#include "core/hub/huberror.h"
#include "core/util/hex.h"

#include <cctype>

namespace wb {

namespace {

constexpr size_t kMaxRepoPart = 96;    // huggingface_hub validate_repo_id
constexpr size_t kMaxRevision = 256;   // a generous bound on branch and tag names
const char *kExample = "e.g. google/bert_uncased_L-2_H-128_A-2 or google-bert/bert-base-uncased@main";

bool isWordChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool isRepoChar(char c)
{
    return isWordChar(c) || c == '-' || c == '.';
}

[[noreturn]] void invalid(const std::string &text, const std::string &why)
{
    throw HubError(HubErrorKind::InvalidId, "model id '" + text + "'", "not a Hugging Face model id: " + why,
                   std::string("Give a Hub id as org/name[@revision] (") + kExample
                       + "), a catalogue name (bert-workbench-cli models list) or a local folder.");
}

void checkRepoPart(const std::string &text, const std::string &part)
{
    if (part.empty())
        invalid(text, "an empty organisation or model name");
    if (part.size() > kMaxRepoPart)
        invalid(text, "'" + part + "' is longer than 96 characters");
    for (char c : part)
        if (!isRepoChar(c))
            invalid(text, std::string("'") + c + "' is not allowed (letters, digits, '_', '-' and '.' only)");
    if (!isWordChar(part.front()) || !isWordChar(part.back()))
        invalid(text, "'" + part + "' must start and end with a letter, digit or '_'");
    if (part.find("--") != std::string::npos || part.find("..") != std::string::npos)
        invalid(text, "'" + part + "' contains '--' or '..'");
}

} // namespace

std::string HubId::cacheFolderName() const
{
    std::string s = "models--";
    for (char c : repo_id)
        s += c == '/' ? std::string("--") : std::string(1, c);
    return s;
}

std::string HubId::toString() const
{
    return revision == "main" ? repo_id : repo_id + "@" + revision;
}

HubId parseHubId(const std::string &raw)
{
    const auto b = raw.find_first_not_of(" \t\r\n");
    const auto e = raw.find_last_not_of(" \t\r\n");
    const std::string text = b == std::string::npos ? std::string() : raw.substr(b, e - b + 1);
    if (text.empty())
        invalid(raw, "it is empty");
    HubId id;
    std::string repo = text;
    if (const auto at = text.find('@'); at != std::string::npos) {
        repo = text.substr(0, at);
        id.revision = text.substr(at + 1);
        if (id.revision.empty())
            invalid(text, "nothing after '@' (give a branch, tag or commit, or leave out the '@')");
        if (id.revision.size() > kMaxRevision)
            invalid(text, "the revision is longer than 256 characters");
        for (char c : id.revision)
            if (!isRepoChar(c) && c != '/')
                invalid(text, std::string("'") + c + "' is not allowed in a revision");
        if (id.revision.find("..") != std::string::npos || id.revision.front() == '/' || id.revision.back() == '/'
            || id.revision.find("//") != std::string::npos)
            invalid(text, "the revision '" + id.revision + "' is not a branch, tag or commit name");
    }
    const auto slash = repo.find('/');
    if (slash == std::string::npos) {
        checkRepoPart(text, repo);
    } else {
        if (repo.find('/', slash + 1) != std::string::npos)
            invalid(text, "more than one '/' (a Hub id is org/name)");
        checkRepoPart(text, repo.substr(0, slash));
        checkRepoPart(text, repo.substr(slash + 1));
    }
    id.repo_id = repo;
    return id;
}

bool isCommitHash(const std::string &text)
{
    return text.size() == 40 && isLowerHex(text);
}

std::string urlEncodeSegment(const std::string &s)
{
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out += char(c);
        } else {
            out += '%';
            appendHexByte(out, c, HexCase::Upper);
        }
    }
    return out;
}

} // namespace wb
