// SPDX-License-Identifier: Apache-2.0
#include "core/util/tcpport.h"

#include "core/util/error.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace wb {

bool tcpPortAvailable(int port, std::string *why)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        if (why)
            *why = std::strerror(errno);
        return false;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    addr.sin_port = htons(uint16_t(port));
    bool ok = ::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0 && ::listen(fd, 1) == 0;
    if (!ok && why)
        *why = errno == EADDRINUSE ? std::string("the port is already in use") : std::string(std::strerror(errno));
    ::close(fd);
    return ok;
}

std::pair<int, int> ephemeralPortRange()
{
    std::ifstream f("/proc/sys/net/ipv4/ip_local_port_range");
    int low = 0, high = 0;
    if (f >> low >> high && low > 0 && low <= high && high < 65536)
        return {low, high};
    return {32768, 60999};
}

namespace {

/// The kernel's choice of a free port on 127.0.0.1 (from the ephemeral range).
int kernelsFreePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        throw Error("num_local_workers", std::string("could not open a socket: ") + std::strerror(errno));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0
        || ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) != 0) {
        const std::string why = std::strerror(errno);
        ::close(fd);
        throw Error("num_local_workers", "could not find a free TCP port on 127.0.0.1: " + why);
    }
    ::close(fd);
    return ntohs(addr.sin_port);
}

} // namespace

int pickFreeTcpPort()
{
    constexpr int kLowest = 10000; // above the ports services commonly listen on
    // room for worker ports numbered on from it (the local launcher's port + rank) below the range
    const int below = ephemeralPortRange().first - 1 - 64;
    if (below > kLowest) {
        thread_local std::mt19937 pick{std::random_device{}()};
        std::uniform_int_distribution<int> port(kLowest, below);
        for (int attempt = 0; attempt < 64; ++attempt)
            if (const int p = port(pick); tcpPortAvailable(p))
                return p;
    }
    return kernelsFreePort();
}

} // namespace wb
