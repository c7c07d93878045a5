// SPDX-License-Identifier: Apache-2.0
#pragma once

// POSIX sockets only (no torch, no Qt): the pre-flight check probes the chief's port with
// it and the local launcher picks its rendezvous port.

#include <string>
#include <utility>

namespace wb {

/// Returns true when a TCP socket can listen on `port` on all interfaces (SO_REUSEADDR,
/// like c10d's TCPStore); otherwise false with the reason in `why`. Thread-safe.
bool tcpPortAvailable(int port, std::string *why = nullptr);

/// Returns a TCP port that nothing listens on right now (tcpPortAvailable), chosen at random
/// below the kernel's ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range, 32768–60999
/// by default), from 10000 up and at least 64 ports below it: the kernel numbers every outgoing connection's local end from that
/// range, so a port taken from it can be handed to another connection (c10d's, Gloo's, any
/// process's) between this call and the caller's listen. Falls back to the kernel's choice on
/// 127.0.0.1 when no port below the range is free after 64 tries. Throws wb::Error (field
/// "num_local_workers") when no socket can be bound. Thread-safe.
int pickFreeTcpPort();

/// The first and last port of the kernel's ephemeral range (ip_local_port_range), or Linux's
/// default 32768–60999 where that file cannot be read. Thread-safe.
std::pair<int, int> ephemeralPortRange();

} // namespace wb
