#include "engine/conversation/udp_hellos.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "base/log.h"
#include "net/socket.h"
#include "protocol/wire.h"

namespace nicbench::engine {
namespace {

// Datagrams read per wake-up of the acceptor; the rest wait for the next round.
constexpr int kMaxPerWakeup = 256;

}  // namespace

Result<std::unique_ptr<UdpHellos>> UdpHellos::Create(const net::SocketAddress& listen) {
  net::SocketOptions options;
  options.v6only = false;  // as the TCP listener: "::" takes IPv4 too
  auto fd = net::BindUdp(listen, options);
  if (!fd) return tl::unexpected(fd.error());
  if (auto s = net::SetNonBlocking(fd->get()); !s) return tl::unexpected(s.error());
  return std::unique_ptr<UdpHellos>(new UdpHellos(std::move(*fd), listen));
}

std::string UdpHellos::PlainHost(const net::SocketAddress& addr) {
  std::string host = addr.HostString();
  constexpr std::string_view kMapped = "::ffff:";
  if (host.size() > kMapped.size() && host.compare(0, kMapped.size(), kMapped) == 0 &&
      host.find('.') != std::string::npos) {
    host.erase(0, kMapped.size());
  }
  return host;
}

void UdpHellos::Expect(const void* owner, const std::string& peer_host, size_t count,
                       const net::SocketOptions& options, Deliver deliver) {
  std::lock_guard<std::mutex> lock(mutex_);
  waiting_.push_back(Waiting{owner, peer_host, count, options, std::move(deliver)});
}

bool UdpHellos::FirstForItsHost(const void* owner) const {
  const std::string* host = nullptr;
  for (const Waiting& w : waiting_) {
    if (w.owner == owner) host = &w.peer_host;
  }
  if (host == nullptr) return false;
  for (const Waiting& w : waiting_) {
    if (w.peer_host == *host) return w.owner == owner;
  }
  return false;
}

bool UdpHellos::WaitTurn(const void* owner, std::chrono::steady_clock::time_point deadline,
                         const std::function<bool()>& stopping) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (FirstForItsHost(owner)) return true;
    if (stopping() || std::chrono::steady_clock::now() >= deadline) return false;
    // In slices, so a stop is seen soon without a second wake-up channel.
    turn_.wait_until(
        lock, std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(50)));
  }
}

void UdpHellos::Forget(const void* owner) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    waiting_.remove_if([owner](const Waiting& w) { return w.owner == owner; });
  }
  turn_.notify_all();
}

uint64_t UdpHellos::dropped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dropped_;
}

void UdpHellos::OnReadable() {
  for (int i = 0; i < kMaxPerWakeup; ++i) {
    uint8_t buf[64];
    sockaddr_storage from{};
    socklen_t from_len = sizeof from;
    // MSG_TRUNC: the real length, so a long datagram cut to the buffer is not taken for a hello.
    ssize_t n = recvfrom(socket_.get(), buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC,
                         reinterpret_cast<sockaddr*>(&from), &from_len);
    if (n < 0) return;  // EAGAIN: drained (any other error: nothing to do but wait)
    net::SocketAddress sender(reinterpret_cast<sockaddr*>(&from), from_len);
    // The length and the bytes of a hello, or nothing: junk from the control connection's own
    // host would otherwise take a stream's place and leave the real hello without a test.
    if (static_cast<size_t>(n) > sizeof buf ||
        !protocol::IsAcceptedUdpHello(buf, static_cast<size_t>(n))) {
      std::lock_guard<std::mutex> lock(mutex_);
      ++dropped_;
      continue;
    }
    Route(sender);
  }
}

void UdpHellos::Route(const net::SocketAddress& from) {
  const std::string host = PlainHost(from);
  std::lock_guard<std::mutex> lock(mutex_);
  // Only the first test waiting on this address takes it: a test's streams never mix with
  // another's from the same host.
  auto it = waiting_.begin();
  while (it != waiting_.end() && it->peer_host != host) ++it;
  if (it == waiting_.end()) {
    ++dropped_;
    return;
  }
  auto fd = net::BindUdp(listen_, it->options);
  Status connected = fd ? net::ConnectUdp(fd->get(), from) : Status(tl::unexpected(fd.error()));
  if (connected && send(fd->get(), protocol::kUdpReply, sizeof protocol::kUdpReply,
                        MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
    connected = FailErrno("sending the UDP reply");
  }
  if (!connected) {
    // The client times out waiting for its reply; the test fails on its own deadline.
    LogWarning("UDP stream from " + from.ToString() + ": " + connected.error().ToString());
    return;
  }
  if (it->deliver(std::move(*fd)) && --it->left > 0) return;
  // All its streams are here (or it stopped wanting them): the next test of the host may go.
  waiting_.erase(it);
  turn_.notify_all();
}

}  // namespace nicbench::engine
