// SPDX-License-Identifier: Apache-2.0
// Test helper: a local stand-in for the npm registry (loopback only, a free port) serving one
// package version as the registry does:
//   GET /{name}/{version}                 the version document {"name","version","dist":{"tarball","integrity"}}
//   GET /{name}/-/{name}-{version}.tgz     the tarball
// Faults: a wrong announced integrity, a tarball cut after half its bytes (Content-Length
// says the whole), a tarball with one byte changed. Every request path is recorded.
// Plain POSIX sockets; one thread, one connection at a time (Connection: close).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace wbtest {

class NpmRegistryServer
{
public:
    /// Serves `tarball` as `name`@`version` with `integrity` in its version document.
    NpmRegistryServer(std::string name, std::string version, std::string tarball, std::string integrity)
        : m_name(std::move(name)), m_version(std::move(version)), m_tarball(std::move(tarball)),
          m_integrity(std::move(integrity))
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (m_fd < 0)
            throw std::runtime_error("socket");
        int one = 1;
        ::setsockopt(m_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::bind(m_fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || ::listen(m_fd, 8) != 0)
            throw std::runtime_error("bind/listen on 127.0.0.1");
        socklen_t len = sizeof a;
        ::getsockname(m_fd, reinterpret_cast<sockaddr *>(&a), &len);
        m_port = ntohs(a.sin_port);
        m_thread = std::thread([this] { loop(); });
    }
    ~NpmRegistryServer()
    {
        m_quit = true;
        m_thread.join();
        ::close(m_fd);
    }
    NpmRegistryServer(const NpmRegistryServer &) = delete;
    NpmRegistryServer &operator=(const NpmRegistryServer &) = delete;

    /// "http://127.0.0.1:<port>", for npm_config_registry.
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    /// The tarball's URL as the version document gives it.
    std::string tarballUrl() const { return url() + "/" + m_name + "/-/" + m_name + "-" + m_version + ".tgz"; }

    std::atomic<bool> cut{false};         ///< send half of the tarball, then close
    std::atomic<bool> corrupt{false};     ///< change the tarball's middle byte
    std::string announced_integrity;      ///< non-empty: put this into dist.integrity (set before requests)

    std::vector<std::string> requests() const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_requests;
    }

private:
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

    void loop()
    {
        while (!m_quit) {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0)
                continue;
            const int c = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0)
                continue;
            timeval tv{5, 0};
            ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            serve(c);
            ::close(c);
        }
    }

    void serve(int fd)
    {
        std::string req;
        char buf[4096];
        while (req.find("\r\n\r\n") == std::string::npos && req.size() < 65536) {
            const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
            if (n <= 0)
                return;
            req.append(buf, size_t(n));
        }
        std::istringstream first(req.substr(0, req.find("\r\n")));
        std::string method, path;
        first >> method >> path;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_requests.push_back(path);
        }
        std::string body, type = "application/json";
        int status = 200;
        size_t limit = std::string::npos;
        if (path == "/" + m_name + "/" + m_version) {
            body = "{\"name\":\"" + m_name + "\",\"version\":\"" + m_version + "\",\"dist\":{\"tarball\":\""
                   + tarballUrl() + "\",\"integrity\":\""
                   + (announced_integrity.empty() ? m_integrity : announced_integrity) + "\"}}";
        } else if (path == "/" + m_name + "/-/" + m_name + "-" + m_version + ".tgz") {
            body = m_tarball;
            type = "application/octet-stream";
            if (corrupt && !body.empty())
                body[body.size() / 2] = char(body[body.size() / 2] ^ 0x20);
            if (cut)
                limit = body.size() / 2;
        } else {
            status = 404;
            body = "{\"error\":\"Not found\"}";
        }
        std::ostringstream h;
        h << "HTTP/1.1 " << status << (status == 200 ? " OK" : " Not Found") << "\r\nContent-Type: " << type
          << "\r\nContent-Length: " << body.size() << "\r\nConnection: close\r\n\r\n";
        const std::string head = h.str();
        if (sendAll(fd, head.data(), head.size()))
            sendAll(fd, body.data(), std::min(limit, body.size()));
    }

    std::string m_name, m_version, m_tarball, m_integrity;
    int m_fd = -1;
    int m_port = 0;
    std::atomic<bool> m_quit{false};
    mutable std::mutex m_mutex;
    std::vector<std::string> m_requests;
    std::thread m_thread;
};

} // namespace wbtest
