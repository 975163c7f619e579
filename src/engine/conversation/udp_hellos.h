// The server's UDP port: one unconnected socket, owned by the acceptor, receives every UDP
// stream's hello (iperf3 spec section 8: a UDP stream has no cookie, only a 4-byte hello) and
// hands it to the test that waits for it, as a new socket bound to the port and connected to
// the hello's sender, after sending the reply. A hello is taken only from the address of a
// test's control connection (the iperf3 protocol allows no more), so a third party can neither
// take a stream nor make the server send to an address that did not open the test; and only
// with a hello's shape (4 bytes a client writes, protocol::IsAcceptedUdpHello), so junk from
// that host cannot take one either. Anything else (junk, hellos from elsewhere, hellos once a
// test has all its streams, stray data) is dropped and counted. Tests from different
// addresses set up at once; tests from one address take their hellos one test at a time, in
// the order they asked (the hellos carry nothing to tell two tests of one host apart).
//
// Thread safety: Expect/Forget from test threads, OnReadable from the acceptor; they lock.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "base/result.h"
#include "net/socket.h"
#include "net/socket_address.h"
#include "net/unique_fd.h"

namespace nicbench::engine {

class UdpHellos {
 public:
  // Binds the UDP port of `listen` (the TCP listener's address and port).
  static Result<std::unique_ptr<UdpHellos>> Create(const net::SocketAddress& listen);

  int fd() const { return socket_.get(); }

  // Takes the connected socket of a new stream; false = not wanted (it is closed).
  using Deliver = std::function<bool(net::UniqueFd)>;
  // A test (`owner`) expects `count` hellos from `peer_host` (its control peer's address);
  // each stream's socket gets `options` and goes to `deliver`, called on the acceptor thread.
  void Expect(const void* owner, const std::string& peer_host, size_t count,
              const net::SocketOptions& options, Deliver deliver);
  // Waits until no test that asked earlier from the same address still takes hellos, so the
  // caller may tell its client to send them. False at `deadline` or once `stopping` is true.
  bool WaitTurn(const void* owner, std::chrono::steady_clock::time_point deadline,
                const std::function<bool()>& stopping);
  // The test is done setting up (or failed); after this `deliver` is never called again.
  void Forget(const void* owner);

  // The acceptor: reads what is queued (a bounded number per call, so a flood cannot hold the
  // acceptor) and routes each hello.
  void OnReadable();
  uint64_t dropped() const;

  // "::ffff:1.2.3.4" -> "1.2.3.4", so a dual-stack socket's view of an IPv4 peer compares equal.
  static std::string PlainHost(const net::SocketAddress& addr);

 private:
  explicit UdpHellos(net::UniqueFd socket, const net::SocketAddress& listen)
      : socket_(std::move(socket)), listen_(listen) {}
  struct Waiting {
    const void* owner;
    std::string peer_host;
    size_t left;
    net::SocketOptions options;
    Deliver deliver;
  };
  void Route(const net::SocketAddress& from);

  net::UniqueFd socket_;
  net::SocketAddress listen_;
  bool FirstForItsHost(const void* owner) const;  // REQUIRES: mutex_ held

  mutable std::mutex mutex_;
  std::condition_variable turn_;  // notified when a test is forgotten
  std::list<Waiting> waiting_;    // in the order the tests asked
  uint64_t dropped_ = 0;
};

}  // namespace nicbench::engine
