// The UDP "connect" handshake of iperf3 (spec section 8): a UDP stream has no connection and no
// cookie, so the client sends 4 bytes to the server's port and the server connects a socket to
// whoever sent them, then answers with 4 bytes. The client's end here; the server's is
// udp_hellos.h. Thread safety: free functions.
#pragma once

#include <chrono>
#include <cstdint>

#include "base/result.h"
#include "net/socket_address.h"
#include "net/unique_fd.h"
#include "record/test_spec.h"

namespace nicbench::engine {

// Client: a UDP socket (bound to spec.bind_address:local_port when given) connected to
// `server`, after the hello/reply exchange. In reverse mode a few early data datagrams may
// arrive before the reply; they are skipped, as the 3.12 client does.
Result<net::UniqueFd> UdpClientHandshake(const net::SocketAddress& server,
                                         const record::TestSpec& spec, uint16_t local_port,
                                         std::chrono::milliseconds timeout);

}  // namespace nicbench::engine
