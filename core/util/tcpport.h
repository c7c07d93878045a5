// SPDX-License-Identifier: Apache-2.0
#pragma once

// POSIX sockets only (no torch, no Qt): the pre-flight check probes the chief's port with
// it and the local launcher picks its rendezvous port.

#include <string>

namespace wb {

/// Returns true when a TCP socket can listen on `port` on all interfaces (SO_REUSEADDR,
/// like c10d's TCPStore); otherwise false with the reason in `why`. Thread-safe.
bool tcpPortAvailable(int port, std::string *why = nullptr);

/// Returns a TCP port that is free on 127.0.0.1 right now (the kernel's choice), or
/// throws wb::Error (field "num_local_workers") when no socket can be bound. Thread-safe.
int pickFreeTcpPort();

} // namespace wb
