// Test support: waiting for an event instead of sleeping for a while. A test that orders two
// things (a server listens, then a client connects; a client has a file open, then it is cut)
// waits for the first to have happened, polling with a bound: reaching the bound is the failure,
// never a shorter or longer run. Header-only; each call is independent (thread-safe).
#pragma once

#include <chrono>
#include <string>
#include <thread>

namespace nicbench::testing {

// Calls `done` until it returns true or `bound` has passed; true when it did. The bound is a
// safety net against a hang (generous: a sanitizer build on a busy 2-core machine is slow), not
// a timing assertion. `step` is only how often it looks.
template <typename Predicate>
bool WaitUntil(Predicate done, std::chrono::milliseconds bound = std::chrono::seconds(60),
               std::chrono::milliseconds step = std::chrono::milliseconds(5)) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  for (;;) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(step);
  }
}

// True once something on this host listens on TCP `port` (any address, IPv4 or IPv6), or, with
// `udp`, has bound UDP `port`. Read from /proc/net/{tcp,tcp6,udp,udp6}: a probing connection
// would be taken for a client by a one-off server (iperf3 -s -1, ttcp -r).
bool PortListening(int port, bool udp = false);

// WaitUntil(PortListening(port, udp)) with the default bound.
bool WaitListening(int port, bool udp = false);

// For a TCP connection `fd` over 127.0.0.1: the bytes its other end has received but its owner
// has not read yet (that socket's receive queue, as sock_diag reports it), or -1 when there is
// no such socket (not accepted yet counts: the socket is there). 0 means the peer process has
// read all that came.
long PeerUnreadBytes(int fd);

}  // namespace nicbench::testing
