// The UDP "connect" handshake of iperf3 (spec section 8): a UDP stream has no connection and no
// cookie, so the client sends 4 bytes to the server's port and the server connects a socket to
// whoever sent them, then answers with 4 bytes. Both ends here; the server side is called with
// the port's UDP set-up lock held (see server.cc) so concurrent tests never take each other's
// hellos. Thread safety: free functions.
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

// Server: waits on `listening` (bound to the test port) for a hello of at most 4 bytes, then
// connects it to the sender. The caller binds the next listening socket before calling
// UdpServerReply, so the client's next hello finds it. `stop_fd` (may be -1) aborts the wait.
Status UdpServerAwaitHello(int listening, std::chrono::milliseconds timeout, int stop_fd);
Status UdpServerReply(int connected);

}  // namespace nicbench::engine
