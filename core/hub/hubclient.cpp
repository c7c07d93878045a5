// SPDX-License-Identifier: Apache-2.0
#include "core/hub/hubclient.h"

#include "core/hub/httpclient.h"
#include "core/hub/backgroundsha256.h"
#include "core/hub/huberror.h"
#include "core/util/asciitext.h"
#include "core/util/digest.h"

#include <curl/curl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace wb {

namespace {

constexpr int kMaxRedirects = 10;           // hops per request
constexpr int kMaxConnectAttempts = 2;      // DNS/connection failures: fail fast, the cache may serve
constexpr double kMaxRetryDelay = 30.0;     // seconds
constexpr int64_t kHashChunk = 1 << 20;     // bytes read back per step when resuming a hash
constexpr int64_t kWritebackChunk = 8 << 20; // bytes between write-back starts (sync_file_range)

std::string fieldFor(const HubId &id, const std::string &file)
{
    return file.empty() ? id.repo_id : id.repo_id + ": " + file;
}

bool isConnectFailure(int code)
{
    return code == CURLE_COULDNT_RESOLVE_HOST || code == CURLE_COULDNT_RESOLVE_PROXY || code == CURLE_COULDNT_CONNECT;
}

bool isTransient(const HttpResult &r)
{
    switch (r.curl_code) {
    case CURLE_OK: break;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR: return true;
    default: return false;
    }
    return r.status == 408 || r.status == 429 || r.status == 500 || r.status == 502 || r.status == 503
           || r.status == 504;
}

std::string header(const HttpResult &r, const char *name)
{
    auto it = r.headers.find(name);
    return it == r.headers.end() ? std::string() : it->second;
}

int64_t parseSize(const std::string &s)
{
    if (s.empty() || s.size() > 18)
        return -1;
    int64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9')
            return -1;
        v = v * 10 + (c - '0');
    }
    return v;
}

std::string hostOf(const std::string &endpoint)
{
    auto p = endpoint.find("://");
    std::string h = p == std::string::npos ? endpoint : endpoint.substr(p + 3);
    return h.substr(0, h.find('/'));
}

/// An exclusive flock on the cache's lock file, as huggingface_hub's FileLock takes it.
class BlobLock
{
public:
    BlobLock(const std::string &path, const StopToken &stop, const std::string &field)
    {
        std::error_code ec;
        fs::create_directories(fs::path(path).parent_path(), ec);
        m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (m_fd < 0)
            return; // a read-only .locks folder must not stop a download
        while (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK && errno != EINTR)
                return;
            if (stop.stopRequested())
                throw HubError(HubErrorKind::Stopped, field, "stopped by the user");
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    }
    ~BlobLock()
    {
        if (m_fd >= 0)
            ::close(m_fd); // releases the lock
    }

private:
    int m_fd = -1;
};

[[noreturn]] void diskError(const std::string &path, int err, const std::string &file)
{
    const bool full = err == ENOSPC || err == EDQUOT;
    throw HubError(full ? HubErrorKind::DiskFull : HubErrorKind::Io, path,
                   (full ? "the disk is full while downloading " : "cannot write the download of ") + file + ": "
                       + std::strerror(err),
                   full ? "Free disk space there, or point HF_HUB_CACHE (or HF_HOME) at a disk with room; the part "
                          "downloaded so far is kept and resumed."
                        : "Check that the Hugging Face cache folder is writable, or set HF_HUB_CACHE to one that is.");
}

} // namespace

HubClient::HubClient(const HubSettings &settings, const StopToken &stop)
    : m_settings(settings), m_stop(stop), m_http(std::make_unique<HttpClient>(settings))
{
}

HubClient::~HubClient() = default;

std::string HubClient::resolveUrl(const HubId &id, const std::string &revision, const std::string &file) const
{
    std::string path;
    size_t start = 0;
    while (true) {
        const auto slash = file.find('/', start);
        path += urlEncodeSegment(file.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
        if (slash == std::string::npos)
            break;
        path += '/';
        start = slash + 1;
    }
    return m_settings.endpoint + "/" + id.repo_id + "/resolve/" + urlEncodeSegment(revision) + "/" + path;
}

namespace {

struct ErrorContext
{
    const HubSettings &settings;
    const HubId &id;
    std::string file;
};

[[noreturn]] void throwForResponse(const ErrorContext &c, const HttpResult &r, const std::string &url, int attempts,
                                   bool transfer = false)
{
    const std::string field = fieldFor(c.id, c.file);
    const std::string page = c.settings.endpoint + "/" + c.id.repo_id;
    const std::string code = header(r, "x-error-code");
    const std::string status = "HTTP " + std::to_string(r.status);
    const bool haveToken = !c.settings.token.empty();
    const std::string tokenHow = "create a read token at " + c.settings.endpoint
                                 + "/settings/tokens and give it as HF_TOKEN=<token> (or write it to "
                                 + c.settings.hf_home + "/token)";
    if (r.status == 0 || r.curl_code != CURLE_OK) {
        const std::string after = attempts > 1 ? " (after " + std::to_string(attempts) + " attempts)" : "";
        const std::string what = isConnectFailure(r.curl_code) ? "cannot reach " + hostOf(url) : "the transfer from "
                                 + hostOf(url) + " failed";
        throw HubError(HubErrorKind::Network, field, what + ": " + r.curl_message + after,
                       "Check the network connection and proxy settings (https_proxy), or HF_ENDPOINT ("
                           + c.settings.endpoint
                           + "). Models already in the Hugging Face cache work offline (HF_HUB_OFFLINE=1)"
                             + std::string(transfer ? "; " : ".")
                             + std::string(transfer ? "the part downloaded so far is kept and resumed next time." : ""));
    }
    if (code == "GatedRepo" || ((r.status == 401 || r.status == 403) && code != "RepoNotFound")) {
        if (haveToken)
            throw HubError(HubErrorKind::Gated, field,
                           "the token from " + c.settings.token_source + " gives no access to model " + c.id.repo_id
                               + " (" + status + (code.empty() ? "" : ", " + code) + ")",
                           "Open " + page + ", log in with the account of the token and accept the model's licence "
                               "(gated models), or " + tokenHow + " from an account with access.");
        throw HubError(HubErrorKind::Gated, field,
                       "model " + c.id.repo_id + " is gated or private: downloading it needs a token (" + status + ")",
                       "Open " + page + ", log in and accept the model's licence, then " + tokenHow + ".");
    }
    if (code == "RepoNotFound" || (r.status == 404 && c.file.empty() && code.empty()))
        throw HubError(HubErrorKind::RepoNotFound, field,
                       "model " + c.id.repo_id + " does not exist on " + c.settings.endpoint + ", or it is private ("
                           + status + ")",
                       std::string("Check the spelling (bert-workbench-cli models list shows the catalogue)")
                           + (haveToken ? "; for a private model, use a token of an account with access."
                                        : "; for a private model, " + tokenHow + "."));
    if (code == "RevisionNotFound")
        throw HubError(HubErrorKind::RevisionNotFound, field,
                       "model " + c.id.repo_id + " has no revision '" + c.id.revision + "' (" + status + ")",
                       "Give an existing branch, tag or commit after '@' (see " + page
                           + "/tree/main), or leave out '@" + c.id.revision + "' for main.");
    if (code == "EntryNotFound" || r.status == 404)
        throw HubError(HubErrorKind::EntryNotFound, field,
                       "model " + c.id.repo_id + " has no file '" + c.file + "' at revision " + c.id.revision + " ("
                           + status + ")",
                       "See the model's files at " + page + "/tree/" + c.id.revision
                           + "; choose a model that has it (bert-workbench-cli models list).");
    const std::string message = header(r, "x-error-message");
    throw HubError(HubErrorKind::Http, field,
                   c.settings.endpoint + " answered " + status + " for " + url
                       + (message.empty() ? "" : ": " + message)
                       + (attempts > 1 ? " (after " + std::to_string(attempts) + " attempts)" : ""),
                   "Try again later; if it persists, check HF_ENDPOINT (" + c.settings.endpoint + ").");
}

void sleepInterruptible(double seconds, const StopToken &stop, const std::string &field)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
        if (stop.stopRequested())
            throw HubError(HubErrorKind::Stopped, field, "stopped by the user");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

double backoff(const HubSettings &s, int attempt)
{
    return std::min(kMaxRetryDelay, s.retry_delay_s * double(1 << std::min(attempt - 1, 16)));
}

int attemptsFor(const HubSettings &s, const HttpResult &r)
{
    const int n = std::max(1, s.max_attempts);
    return isConnectFailure(r.curl_code) ? std::min(n, kMaxConnectAttempts) : n;
}

} // namespace

RepoInfo HubClient::repoInfo(const HubId &id)
{
    const ErrorContext ctx{m_settings, id, {}};
    std::string url = m_settings.endpoint + "/api/models/" + id.repo_id + "/revision/" + urlEncodeSegment(id.revision);
    const auto progress = [this](int64_t) { return !m_stop.stopRequested(); };
    for (int attempt = 1;; ++attempt) {
        std::string u = url;
        HttpResult r;
        for (int hop = 0; hop <= kMaxRedirects; ++hop) {
            r = m_http->perform("GET", u, sameOrigin(u, m_settings.endpoint), {"Accept: application/json"}, 0, {},
                                progress);
            if (r.status >= 300 && r.status < 400 && !r.redirect_url.empty()) {
                u = r.redirect_url;
                continue;
            }
            break;
        }
        if (r.aborted || m_stop.stopRequested())
            throw HubError(HubErrorKind::Stopped, id.repo_id, "stopped by the user");
        if (r.curl_code == CURLE_OK && r.status == 200)
            return parseRepoInfo(r.body, id.repo_id + ": " + u);
        if (!isTransient(r) || attempt >= attemptsFor(m_settings, r))
            throwForResponse(ctx, r, u, attempt);
        sleepInterruptible(backoff(m_settings, attempt), m_stop, id.repo_id);
    }
}

std::optional<HubFileMetadata> HubClient::fileMetadata(const HubId &id, const std::string &revision,
                                                       const std::string &file, bool allowMissing)
{
    const ErrorContext ctx{m_settings, id, file};
    const std::string url = resolveUrl(id, revision, file);
    const auto progress = [this](int64_t) { return !m_stop.stopRequested(); };
    for (int attempt = 1;; ++attempt) {
        std::string u = url;
        HttpResult r;
        // What the chain of answers advertised, first value first: a later answer (the
        // storage's own ETag, a redirect's Content-Length) never replaces it.
        std::string commit, linkedEtag, linkedSize, etag;
        const auto keepFirst = [](std::string &kept, const std::string &value) {
            if (kept.empty())
                kept = value;
        };
        // A redirect to the Hub's own origin is followed while no answer has named the file's
        // digest (a renamed repo: 307 to /new-org/new-name/resolve/...); once one has, its
        // redirect is where the bytes are (another host, or a path on this one) and the digest
        // and size stay this answer's. A redirect to another origin is never followed here:
        // the bytes are fetched from it, without the token.
        for (int hop = 0; hop <= kMaxRedirects; ++hop) {
            r = m_http->perform("HEAD", u, true, {}, 0, {}, progress);
            if (r.curl_code != CURLE_OK || r.status < 200 || r.status >= 400)
                break;
            keepFirst(commit, header(r, "x-repo-commit"));
            keepFirst(linkedEtag, header(r, "x-linked-etag"));
            keepFirst(linkedSize, header(r, "x-linked-size"));
            keepFirst(etag, header(r, "etag"));
            if (r.status >= 300 && !r.redirect_url.empty() && linkedEtag.empty() && sameOrigin(r.redirect_url, u)) {
                u = r.redirect_url;
                continue;
            }
            break;
        }
        if (r.aborted || m_stop.stopRequested())
            throw HubError(HubErrorKind::Stopped, fieldFor(id, file), "stopped by the user");
        if (r.curl_code == CURLE_OK && (r.status == 200 || (r.status >= 300 && r.status < 400))) {
            HubFileMetadata m;
            m.commit = commit;
            m.lfs = !linkedEtag.empty();
            m.etag = normalizeEtag(m.lfs ? linkedEtag : etag);
            m.size = linkedSize.empty() ? -1 : parseSize(linkedSize);
            if (m.size < 0 && r.status == 200) // the answer that serves the bytes; a redirect's says nothing
                m.size = parseSize(header(r, "content-length"));
            m.location = r.status >= 300 && !r.redirect_url.empty() ? r.redirect_url : u;
            if (m.etag.empty() || !isSafeRepoPath(m.etag) || m.etag.find('/') != std::string::npos
                || m.etag.rfind(".", 0) == 0)
                throw HubError(HubErrorKind::Http, fieldFor(id, file),
                               "the Hub's answer for " + u + " has no usable ETag or X-Linked-Etag",
                               "The server at HF_ENDPOINT (" + m_settings.endpoint
                                   + ") may not be a Hugging Face Hub, or a proxy strips headers.");
            if (m.lfs && blobNameKind(m.etag) != BlobNameKind::Sha256)
                throw HubError(HubErrorKind::Http, fieldFor(id, file),
                               "the Hub's X-Linked-Etag for " + u + " is not a sha256: '" + m.etag + "'",
                               "Check HF_ENDPOINT (" + m_settings.endpoint + ").");
            if (blobNameKind(m.etag) != BlobNameKind::Opaque) // a digest names its blob in lower case
                m.etag = lowerAscii(std::move(m.etag));
            return m;
        }
        if (allowMissing && r.status == 404 && header(r, "x-error-code") == "EntryNotFound")
            return std::nullopt;
        if (!isTransient(r) || attempt >= attemptsFor(m_settings, r))
            throwForResponse(ctx, r, u, attempt);
        sleepInterruptible(backoff(m_settings, attempt), m_stop, fieldFor(id, file));
    }
}

/// The `.incomplete` file a blob is downloaded into, with the running sha256 of its bytes.
/// Appends only; a resume continues it, a server that ignores Range starts it over.
class HubPartFile
{
public:
    HubPartFile(std::string path, std::string file) : m_path(std::move(path)), m_file(std::move(file)) {}
    ~HubPartFile() { close(); }
    HubPartFile(const HubPartFile &) = delete;
    HubPartFile &operator=(const HubPartFile &) = delete;

    const std::string &path() const { return m_path; }
    int64_t size() const
    {
        std::error_code e;
        const auto n = fs::file_size(m_path, e);
        return e ? 0 : int64_t(n);
    }
    BackgroundSha256 &hash() { return m_hash; }
    int writeErrno() const { return m_writeErrno ? m_writeErrno : EIO; }
    /// Bytes received from the network by this process.
    int64_t transferred() const { return m_transferred; }

    void truncate()
    {
        std::error_code ec;
        fs::resize_file(m_path, 0, ec);
        m_hash.reset();
    }
    /// Re-hashes the bytes on disk when the running hash does not cover them (a resume of a
    /// download left by an earlier process).
    void syncHash(int64_t have)
    {
        if (m_hash.bytes() == have)
            return;
        m_hash.reset();
        const int in = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
        std::string buf(size_t(kHashChunk), '\0');
        int64_t left = have;
        while (in >= 0 && left > 0) {
            const ssize_t n = ::read(in, buf.data(), size_t(std::min<int64_t>(left, kHashChunk)));
            if (n <= 0)
                break;
            m_hash.update(buf.data(), size_t(n));
            left -= n;
        }
        if (in >= 0)
            ::close(in);
    }
    /// Opens the part for appending at `have` bytes; a failure is a disk error naming it.
    void open(int64_t have)
    {
        m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (m_fd < 0)
            diskError(m_path, errno, m_file);
        m_base = have;
        m_written = m_flushed = have;
        m_restarted = false;
        m_writeErrno = 0;
    }
    void close()
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }
    /// Where the bytes of this transfer start in the file.
    int64_t base() const { return m_base; }
    /// Appends `n` received bytes (HTTP `status`); false on a write error.
    bool append(const char *data, size_t n, long status)
    {
        if (status == 200 && m_base > 0 && !m_restarted) { // the server ignored Range: start over
            m_restarted = true;
            if (::ftruncate(m_fd, 0) != 0) {
                m_writeErrno = errno;
                return false;
            }
            m_hash.reset();
            m_base = 0;
            m_written = m_flushed = 0;
        }
        size_t off = 0;
        while (off < n) {
            const ssize_t w = ::write(m_fd, data + off, n - off);
            if (w < 0) {
                if (errno == EINTR)
                    continue;
                m_writeErrno = errno;
                return false;
            }
            off += size_t(w);
        }
        m_hash.update(data, n);
        m_transferred += int64_t(n);
        // Start the write-back of what is written so far, so that the fsync before the
        // rename finds little left to do (curl's -o does not fsync at all).
        m_written += int64_t(n);
        if (m_written - m_flushed >= kWritebackChunk) {
            ::sync_file_range(m_fd, m_flushed, m_written - m_flushed, SYNC_FILE_RANGE_WRITE);
            m_flushed = m_written;
        }
        return true;
    }

private:
    std::string m_path, m_file;
    BackgroundSha256 m_hash;
    int m_fd = -1;
    int m_writeErrno = 0;
    int64_t m_transferred = 0;
    int64_t m_base = 0, m_written = 0, m_flushed = 0;
    bool m_restarted = false;
};

namespace {

/// Refuses a download that cannot fit: `needed` bytes more in the folder of `blob`.
void checkFreeSpace(const std::string &blob, int64_t needed, const HubId &id, const std::string &file)
{
    struct statvfs vfs {};
    const std::string dir = fs::path(blob).parent_path().string();
    if (::statvfs(dir.c_str(), &vfs) != 0)
        return;
    const int64_t free = int64_t(vfs.f_bavail) * int64_t(vfs.f_frsize);
    if (needed > free)
        throw HubError(HubErrorKind::DiskFull, dir,
                       "not enough disk space for " + file + " of " + id.repo_id + ": it needs " + std::to_string(needed)
                           + " bytes, " + std::to_string(free) + " are free",
                       "Free disk space there, or point HF_HUB_CACHE (or HF_HOME) at a disk with room.");
}

/// The finished part must have the Hub's size and the digest its blob name claims (the sha256
/// of LFS files, git's blob sha1 of the others; a mirror's opaque ETag claims none): a part
/// that does not is deleted, so that no blob is ever stored under a name its bytes do not match.
void verifyPart(HubPartFile &part, const HubFileMetadata &meta, const HubId &id, const std::string &file)
{
    std::error_code ec;
    const std::string field = fieldFor(id, file);
    const int64_t size = part.size();
    if (meta.size >= 0 && size != meta.size) {
        fs::remove(part.path(), ec);
        throw HubError(HubErrorKind::Checksum, field,
                       "the download of " + file + " has " + std::to_string(size) + " bytes, the Hub said "
                           + std::to_string(meta.size) + "; the file was deleted",
                       "Download it again (bert-workbench-cli models download " + id.toString()
                           + "); if it repeats, a proxy or the mirror at HF_ENDPOINT serves damaged files.");
    }
    const BlobNameKind kind = blobNameKind(meta.etag);
    if (kind == BlobNameKind::Opaque)
        return;
    const std::string got = kind == BlobNameKind::Sha256 ? part.hash().hex() : fileDigest(part.path(), kind);
    if (got != meta.etag) {
        fs::remove(part.path(), ec);
        const std::string what = kind == BlobNameKind::Sha256 ? "sha256" : "git blob sha1";
        const std::string claim = meta.lfs ? "X-Linked-Etag" : "ETag";
        throw HubError(HubErrorKind::Checksum, field,
                       "the download of " + file + " is corrupt: its " + what + " is " + got + ", the Hub's " + claim
                           + " is " + meta.etag + "; the file was deleted",
                       "Download it again (bert-workbench-cli models download " + id.toString()
                           + "); if it repeats, a proxy or the mirror at HF_ENDPOINT serves damaged files.");
    }
}

} // namespace

void HubClient::downloadPart(HubPartFile &part, const HubId &id, const std::string &file, const HubFileMetadata &meta,
                             const std::function<void(int64_t)> &onBytes)
{
    const std::string field = fieldFor(id, file);
    HttpResult last;
    std::string lastUrl = meta.location;
    for (int attempt = 1;; ++attempt) {
        int64_t have = part.size();
        if (meta.size >= 0 && have > meta.size) {
            part.truncate();
            have = 0;
        }
        part.syncHash(have);
        if (meta.size >= 0 && have == meta.size && have > 0)
            return; // complete already
        part.open(have);
        const HttpSink sink = [&](const char *data, size_t n, long status) { return part.append(data, n, status); };
        const HttpProgress progress = [&](int64_t received) {
            if (onBytes)
                onBytes(part.base() + received);
            return !m_stop.stopRequested();
        };
        std::string u = meta.location;
        HttpResult r;
        for (int hop = 0; hop <= kMaxRedirects; ++hop) {
            r = m_http->perform("GET", u, sameOrigin(u, m_settings.endpoint), {}, have, sink, progress);
            if (r.status >= 300 && r.status < 400 && !r.redirect_url.empty()) {
                u = r.redirect_url;
                continue;
            }
            break;
        }
        part.close();
        last = r;
        lastUrl = u;
        if (r.aborted || m_stop.stopRequested())
            throw HubError(HubErrorKind::Stopped, field,
                           "stopped by the user; the part downloaded so far is kept in " + part.path()
                               + " and resumed next time");
        if (r.sink_failed)
            diskError(part.path(), part.writeErrno(), file);
        if (r.curl_code == CURLE_OK && (r.status == 200 || r.status == 206))
            return;
        if (r.curl_code == CURLE_OK && r.status == 416) { // the part is not a prefix of the file
            part.truncate();
            if (attempt < std::max(1, m_settings.max_attempts))
                continue;
        }
        if (!isTransient(r) || attempt >= attemptsFor(m_settings, r))
            throwForResponse(ErrorContext{m_settings, id, file}, last, lastUrl, attempt, true);
        sleepInterruptible(backoff(m_settings, attempt), m_stop, field);
    }
}

int64_t HubClient::fetch(const HubCache &cache, const HubId &id, const std::string &commit, const std::string &file,
                         const HubFileMetadata &meta, const std::function<void(int64_t)> &onBytes,
                         const std::function<void(const std::string &)> &onNotice)
{
    const std::string field = fieldFor(id, file);
    const std::string blob = cache.blobPath(id, meta.etag);
    std::error_code ec;
    auto finish = [&] {
        cache.linkSnapshotFile(id, commit, file, meta.etag);
        if (onBytes)
            onBytes(int64_t(fs::file_size(blob, ec)));
    };
    fs::create_directories(fs::path(blob).parent_path(), ec);
    if (ec)
        diskError(fs::path(blob).parent_path().string(), ec.value(), file);
    BlobLock lock(cache.lockPath(id, meta.etag), m_stop, field);
    if (fs::is_regular_file(blob, ec)) {
        // A blob in the cache is used only once checked (huggingface_hub #4768 checks the size):
        // the size always; its bytes against its name before it is linked anew, and on request.
        const bool linked = cache.snapshotBlob(id, commit, file) == meta.etag;
        const bool hash = !linked || m_settings.verify;
        const std::string damage = cache.blobDamage(id, meta.etag, meta.size, hash);
        if (damage.empty()) {
            if (meta.size >= 0 || (hash && blobNameKind(meta.etag) != BlobNameKind::Opaque)) // checked: recorded
                cache.recordBlobSize(id, meta.etag, int64_t(fs::file_size(blob, ec)));
            finish();
            return 0;
        }
        if (onNotice)
            onNotice(field + ": blobs/" + meta.etag + " is damaged (" + damage + "): downloading it again");
        if (!fs::remove(blob, ec) && ec)
            diskError(blob, ec.value(), file);
    }
    HubPartFile part(blob + ".incomplete", file);
    if (meta.size >= 0)
        checkFreeSpace(blob, meta.size - part.size(), id, file);
    downloadPart(part, id, file, meta, onBytes);
    verifyPart(part, meta, id, file);
    if (int f = ::open(part.path().c_str(), O_RDONLY | O_CLOEXEC); f >= 0) {
        ::fsync(f);
        ::close(f);
    }
    if (std::rename(part.path().c_str(), blob.c_str()) != 0)
        diskError(blob, errno, file);
    cache.recordBlobSize(id, meta.etag, int64_t(fs::file_size(blob, ec)));
    finish();
    return part.transferred();
}

} // namespace wb
