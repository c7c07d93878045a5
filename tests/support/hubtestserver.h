// SPDX-License-Identifier: Apache-2.0
// Test helper: a local stand-in for the Hugging Face Hub (loopback only, free ports), for the
// Hub client's tests. It answers as the Hub does (docs/pretrained-models.md):
//   GET  /api/models/{repo}/revision/{rev}      {"id","sha","siblings":[{"rfilename"}]}
//   HEAD/GET /{repo}/resolve/{rev}/{file}        X-Repo-Commit, ETag; LFS files: X-Linked-Etag,
//                                                X-Linked-Size and a 302 to the "CDN" (a second
//                                                port, so another origin)
//   GET  /cdn/{n}  (CDN port)                    the bytes, with Range support
//   GET  /lfs-storage/{n}  (Hub port)            the same, for storage on the Hub's own host
// Where the 302 of an LFS file points is chosen per file (HubTestFile::storage): the CDN port
// (same host name, another port), a path on the Hub's own origin (absolute or relative
// Location), or the Hub's port under another host name ("localhost" for 127.0.0.1).
// A renamed repo (renameRepo) answers 307 with a relative Location to the new name.
// Errors carry X-Error-Code (RepoNotFound, RevisionNotFound, EntryNotFound, GatedRepo).
// Faults per file: a cut connection (half the body, once or always), a slow transfer, a wrong
// X-Linked-Etag, other bytes than announced (corrupted, truncated), a 503 before the first
// answer. Every request is recorded.
// Plain POSIX sockets; one server thread handles one connection at a time (Connection: close).
#pragma once

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace wbtest {

/// Returns the lower-case hex SHA-256 of `data`.
inline std::string sha256Hex(const std::string &data)
{
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char *>(data.data()), data.size(), md);
    static const char *hex = "0123456789abcdef";
    std::string out;
    for (unsigned char c : md) {
        out += hex[c >> 4];
        out += hex[c & 15];
    }
    return out;
}

/// Returns git's blob id of `data`: sha1("blob <size>\0" + data), as the Hub's ETag of a non-LFS file.
inline std::string gitBlobSha1(const std::string &data)
{
    const std::string blob = "blob " + std::to_string(data.size()) + std::string(1, '\0') + data;
    unsigned char md[SHA_DIGEST_LENGTH];
    SHA1(reinterpret_cast<const unsigned char *>(blob.data()), blob.size(), md);
    static const char *hex = "0123456789abcdef";
    std::string out;
    for (unsigned char c : md) {
        out += hex[c >> 4];
        out += hex[c & 15];
    }
    return out;
}

/// A file of a test repo.
struct HubTestFile
{
    std::string content;
    bool lfs = false;               ///< served as an LFS file: X-Linked-*, 302 to the CDN
    std::string wrong_linked_etag;  ///< announce this X-Linked-Etag instead of the true sha256
    bool cut_once = false;          ///< the first body GET sends half the bytes, then closes
    int slow_ms = 0;                ///< pause after each 4 KiB of body
    int fail_once_status = 0;       ///< answer the first resolve request with this status (e.g. 503)
    bool missing_on_resolve = false; ///< listed by the API, but resolve answers 404 EntryNotFound
    std::string announced_size;      ///< announce this X-Linked-Size instead of the true one
    /// Where an LFS file's 302 points.
    enum class Storage {
        Cdn,              ///< http://127.0.0.1:<cdn port>/cdn/<n>: same host name, another port
        SameHostPath,     ///< http://127.0.0.1:<hub port>/lfs-storage/<n>: the Hub's own origin
        SameHostRelative, ///< /lfs-storage/<n>: a relative Location on the Hub's origin
        OtherHostName,    ///< http://localhost:<hub port>/lfs-storage/<n>: same port, another host name
    };
    Storage storage = Storage::Cdn;
    /// Non-empty: these bytes are served (with their own Content-Length) while the headers
    /// announce `content`'s digest and size: a corrupted or truncated file.
    std::string served_content;
    bool cut_always = false; ///< every body GET sends half the bytes (of a full Content-Length), then closes
};

/// A test repo: a commit and its files.
struct HubTestRepo
{
    std::string commit;
    std::map<std::string, HubTestFile> files;
    std::string gated_token; ///< non-empty: resolve needs "Authorization: Bearer <gated_token>"
};

/// One request the server saw.
struct HubTestRequest
{
    std::string server; ///< "hub" or "cdn"
    std::string method;
    std::string path;
    std::map<std::string, std::string> headers; ///< lower-cased names
};

class HubTestServer
{
public:
    HubTestServer()
    {
        m_hubFd = listenLoopback(m_hubPort);
        m_cdnFd = listenLoopback(m_cdnPort);
        m_thread = std::thread([this] { loop(); });
    }
    ~HubTestServer()
    {
        m_quit = true;
        m_thread.join();
        ::close(m_hubFd);
        ::close(m_cdnFd);
    }
    HubTestServer(const HubTestServer &) = delete;
    HubTestServer &operator=(const HubTestServer &) = delete;

    /// "http://127.0.0.1:<port>", for HF_ENDPOINT.
    std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(m_hubPort); }
    int cdnPort() const { return m_cdnPort; }

    void addRepo(const std::string &repoId, const HubTestRepo &repo)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_repos[repoId] = repo;
    }
    /// Makes `oldId` a renamed repo: its requests get a 307 to the same path under `newId`.
    void renameRepo(const std::string &oldId, const std::string &newId)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_renames[oldId] = newId;
    }
    /// Changes one file of a repo (e.g. to serve it honestly after a fault).
    void setFile(const std::string &repoId, const std::string &file, const HubTestFile &data)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_repos[repoId].files[file] = data;
    }
    std::vector<HubTestRequest> requests() const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_requests;
    }
    size_t requestCount() const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_requests.size();
    }
    void clearRequests()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_requests.clear();
    }

private:
    struct CdnEntry
    {
        std::string repo;
        std::string file;
    };

    static int listenLoopback(int &port)
    {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            throw std::runtime_error("socket");
        int one = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = 0;
        if (::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || ::listen(fd, 16) != 0)
            throw std::runtime_error("bind/listen on 127.0.0.1");
        socklen_t len = sizeof a;
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
        port = ntohs(a.sin_port);
        return fd;
    }

    void loop()
    {
        while (!m_quit) {
            pollfd fds[2] = {{m_hubFd, POLLIN, 0}, {m_cdnFd, POLLIN, 0}};
            if (::poll(fds, 2, 50) <= 0)
                continue;
            for (int i = 0; i < 2; ++i) {
                if (!(fds[i].revents & POLLIN))
                    continue;
                const int c = ::accept4(fds[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
                if (c < 0)
                    continue;
                timeval tv{5, 0};
                ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
                serve(c, i == 0 ? "hub" : "cdn");
                ::close(c);
            }
        }
    }

    static bool sendAll(int fd, const char *data, size_t n)
    {
        while (n > 0) {
            const ssize_t w = ::send(fd, data, n, MSG_NOSIGNAL);
            if (w <= 0)
                return false;
            data += w;
            n -= size_t(w);
        }
        return true;
    }

    static void respond(int fd, int status, const std::string &reason, const std::vector<std::string> &headers,
                        const std::string &body, bool sendBody)
    {
        std::ostringstream h;
        h << "HTTP/1.1 " << status << " " << reason << "\r\n";
        for (const auto &x : headers)
            h << x << "\r\n";
        h << "Content-Length: " << body.size() << "\r\nConnection: close\r\n\r\n";
        const std::string head = h.str();
        if (sendAll(fd, head.data(), head.size()) && sendBody)
            sendAll(fd, body.data(), body.size());
    }

    static void error(int fd, int status, const std::string &code, const std::string &message, bool sendBody)
    {
        respond(fd, status, status == 401 ? "Unauthorized" : status == 403 ? "Forbidden" : "Not Found",
                {"X-Error-Code: " + code, "X-Error-Message: " + message, "Content-Type: application/json"},
                "{\"error\":\"" + message + "\"}", sendBody);
    }

    void serve(int fd, const std::string &server)
    {
        std::string req;
        char buf[4096];
        while (req.find("\r\n\r\n") == std::string::npos && req.size() < 65536) {
            const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
            if (n <= 0)
                return;
            req.append(buf, size_t(n));
        }
        HubTestRequest r;
        r.server = server;
        std::istringstream in(req);
        std::string line;
        std::getline(in, line);
        std::istringstream first(line);
        first >> r.method >> r.path;
        while (std::getline(in, line) && line != "\r" && !line.empty()) {
            const auto colon = line.find(':');
            if (colon == std::string::npos)
                continue;
            std::string name = line.substr(0, colon);
            std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
            std::string value = line.substr(colon + 1);
            while (!value.empty() && (value.back() == '\r' || value.back() == ' '))
                value.pop_back();
            while (!value.empty() && value.front() == ' ')
                value.erase(0, 1);
            r.headers[name] = value;
        }
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_requests.push_back(r);
        }
        const bool body = r.method != "HEAD";
        if (server == "cdn")
            serveStorage(fd, r, body, "/cdn/");
        else if (r.path.rfind("/lfs-storage/", 0) == 0)
            serveStorage(fd, r, body, "/lfs-storage/");
        else
            serveHub(fd, r, body);
    }

    /// A renamed repo's request: 307 to the same path under the new name (relative Location).
    bool redirectRenamed(int fd, const HubTestRequest &r, const std::string &repo, const std::string &prefix, bool body)
    {
        auto it = m_renames.find(repo);
        if (it == m_renames.end())
            return false;
        const std::string target = prefix + it->second + r.path.substr(prefix.size() + repo.size());
        respond(fd, 307, "Temporary Redirect", {"Location: " + target}, {}, body);
        return true;
    }

    void serveHub(int fd, const HubTestRequest &r, bool body)
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        const std::string api = "/api/models/";
        if (r.path.rfind(api, 0) == 0) {
            const auto rev = r.path.find("/revision/");
            const std::string repo = r.path.substr(api.size(), rev == std::string::npos ? std::string::npos : rev - api.size());
            if (redirectRenamed(fd, r, repo, api, body))
                return;
            auto it = m_repos.find(repo);
            if (it == m_repos.end())
                return error(fd, 401, "RepoNotFound", "Repository not found", body);
            const std::string revision = rev == std::string::npos ? "main" : r.path.substr(rev + 10);
            if (revision != "main" && revision != it->second.commit)
                return error(fd, 404, "RevisionNotFound", "Invalid rev id: " + revision, body);
            std::string json = "{\"id\":\"" + repo + "\",\"sha\":\"" + it->second.commit + "\",\"siblings\":[";
            bool firstFile = true;
            for (const auto &[name, f] : it->second.files) {
                json += std::string(firstFile ? "" : ",") + "{\"rfilename\":\"" + name + "\"}";
                firstFile = false;
            }
            json += "]}";
            return respond(fd, 200, "OK", {"Content-Type: application/json"}, json, body);
        }
        const auto res = r.path.find("/resolve/");
        if (res == std::string::npos || r.path.size() < 2)
            return error(fd, 404, "RepoNotFound", "Repository not found", body);
        const std::string repo = r.path.substr(1, res - 1);
        const std::string rest = r.path.substr(res + 9);
        const auto slash = rest.find('/');
        const std::string revision = rest.substr(0, slash);
        const std::string file = slash == std::string::npos ? std::string() : rest.substr(slash + 1);
        if (redirectRenamed(fd, r, repo, "/", body))
            return;
        auto it = m_repos.find(repo);
        if (it == m_repos.end())
            return error(fd, 401, "RepoNotFound", "Repository not found", body);
        HubTestRepo &repoData = it->second;
        if (revision != "main" && revision != repoData.commit)
            return error(fd, 404, "RevisionNotFound", "Invalid rev id: " + revision, body);
        if (!repoData.gated_token.empty()) {
            auto auth = r.headers.find("authorization");
            if (auth == r.headers.end())
                return error(fd, 401, "GatedRepo", "Access to model " + repo + " is restricted.", body);
            if (auth->second != "Bearer " + repoData.gated_token)
                return error(fd, 403, "GatedRepo", "Access to model " + repo + " is restricted.", body);
        }
        auto f = repoData.files.find(file);
        if (f == repoData.files.end() || f->second.missing_on_resolve)
            return error(fd, 404, "EntryNotFound", "Entry not found", body);
        HubTestFile &data = f->second;
        if (data.fail_once_status) {
            const int status = data.fail_once_status;
            data.fail_once_status = 0;
            return respond(fd, status, "Service Unavailable", {}, "busy", body);
        }
        std::vector<std::string> headers = {"X-Repo-Commit: " + repoData.commit};
        if (!data.lfs) {
            headers.push_back("ETag: \"" + gitBlobSha1(data.content) + "\"");
            const std::string content = data.served_content.empty() ? data.content : data.served_content;
            lock.unlock();
            return respond(fd, 200, "OK", headers, content, body);
        }
        const std::string sha = data.wrong_linked_etag.empty() ? sha256Hex(data.content) : data.wrong_linked_etag;
        const size_t id = m_cdn.size();
        m_cdn.push_back({repo, file});
        headers.push_back("X-Linked-Etag: \"" + sha + "\"");
        headers.push_back("X-Linked-Size: "
                          + (data.announced_size.empty() ? std::to_string(data.content.size()) : data.announced_size));
        headers.push_back("ETag: \"" + sha + "\"");
        const std::string object = "/" + std::to_string(id) + "?expires=1";
        const std::string hubPort = std::to_string(m_hubPort);
        switch (data.storage) {
        case HubTestFile::Storage::Cdn:
            headers.push_back("Location: http://127.0.0.1:" + std::to_string(m_cdnPort) + "/cdn" + object);
            break;
        case HubTestFile::Storage::SameHostPath:
            headers.push_back("Location: http://127.0.0.1:" + hubPort + "/lfs-storage" + object);
            break;
        case HubTestFile::Storage::SameHostRelative: headers.push_back("Location: /lfs-storage" + object); break;
        case HubTestFile::Storage::OtherHostName:
            headers.push_back("Location: http://localhost:" + hubPort + "/lfs-storage" + object);
            break;
        }
        respond(fd, 302, "Found", headers, {}, body);
    }

    void serveStorage(int fd, const HubTestRequest &r, bool body, const std::string &prefix)
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        size_t id = 0;
        try {
            id = std::stoul(r.path.substr(prefix.size()));
        } catch (...) {
            id = m_cdn.size();
        }
        if (r.path.rfind(prefix, 0) != 0 || id >= m_cdn.size())
            return respond(fd, 404, "Not Found", {}, "no such object", body);
        HubTestFile &f = m_repos[m_cdn[id].repo].files[m_cdn[id].file];
        const std::string content = f.served_content.empty() ? f.content : f.served_content;
        const bool cut = (f.cut_once || f.cut_always) && body;
        if (f.cut_once && body)
            f.cut_once = false;
        const int slow = f.slow_ms;
        const std::string objectName = sha256Hex(f.content); // a store that names objects by their digest
        lock.unlock();
        size_t start = 0;
        int status = 200;
        std::vector<std::string> headers = {"ETag: \"" + objectName + "\""};
        if (auto range = r.headers.find("range"); range != r.headers.end() && range->second.rfind("bytes=", 0) == 0) {
            start = std::stoul(range->second.substr(6));
            if (start >= content.size())
                return respond(fd, 416, "Range Not Satisfiable",
                               {"Content-Range: bytes */" + std::to_string(content.size())}, {}, body);
            status = 206;
            headers.push_back("Content-Range: bytes " + std::to_string(start) + "-" + std::to_string(content.size() - 1)
                              + "/" + std::to_string(content.size()));
        }
        const std::string part = content.substr(start);
        std::ostringstream h;
        h << "HTTP/1.1 " << status << (status == 206 ? " Partial Content" : " OK") << "\r\n";
        for (const auto &x : headers)
            h << x << "\r\n";
        h << "Accept-Ranges: bytes\r\nContent-Length: " << part.size() << "\r\nConnection: close\r\n\r\n";
        const std::string head = h.str();
        if (!sendAll(fd, head.data(), head.size()) || !body)
            return;
        const size_t limit = cut ? part.size() / 2 : part.size();
        const size_t chunk = slow > 0 ? 4096 : size_t(1) << 20;
        for (size_t off = 0; off < limit && !m_quit; off += chunk) {
            if (!sendAll(fd, part.data() + off, std::min(chunk, limit - off)))
                return;
            if (slow > 0)
                std::this_thread::sleep_for(std::chrono::milliseconds(slow));
        }
    }

    int m_hubFd = -1;
    int m_cdnFd = -1;
    int m_hubPort = 0;
    int m_cdnPort = 0;
    std::atomic<bool> m_quit{false};
    mutable std::mutex m_mutex;
    std::map<std::string, HubTestRepo> m_repos;
    std::map<std::string, std::string> m_renames;
    std::vector<CdnEntry> m_cdn;
    std::vector<HubTestRequest> m_requests;
    std::thread m_thread;
};

} // namespace wbtest
