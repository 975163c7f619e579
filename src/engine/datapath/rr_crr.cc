// CRR flows (netperf's TCP_CRR): a new connection for every transaction. The flow's data
// connection carries only the port of a listener the server's end opens for the flow (2 bytes,
// big-endian) and, by closing, the end of the test. Each flow watches its own sockets in an
// epoll set of its own, whose fd is what the worker's loop watches (an epoll fd is pollable),
// so the worker's loop is the same as for every other flow. A lone flow (FlowConfig::rr_alone)
// leaves that loop at its first event and runs its transactions in blocking calls (RunAlone).
//
// The server writes the response and closes first, and the client closes when it has read the
// end: the TIME_WAIT state stays on the server's side, so the client's ephemeral ports are not
// used up by a long test (a loopback client may reuse a port whose tuple the server still holds
// in TIME_WAIT: net.ipv4.tcp_tw_reuse, 2 = loopback only, the default since Linux 4.19).
// The server writes the response with MSG_MORE, so its last segment waits for the close and
// carries the FIN: the client is woken once for the response and the end together, not once
// for each (a response followed by a lone FIN cost the client a second sleep and wakeup per
// connection, about one context switch per transaction more than netperf's TCP_CRR). A lone
// client closes each connection once the next one's request is out, while the server works on
// it, rather than between transactions where the close would add to each one.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_map>

#include <fmt/format.h>

#include "base/log.h"
#include "engine/datapath/rr_flow.h"
#include "net/socket.h"

namespace nicbench::engine {
namespace {

constexpr uint64_t kDataTag = ~uint64_t{0};
constexpr uint64_t kListenTag = ~uint64_t{0} - 1;
constexpr int kEventsPerWake = 64;
constexpr int kBacklog = 4096;
// The longest CRR token (protocol kCrrTokenChars; the server checks its size at decoding).
constexpr size_t kCrrTokenMaxBytes = 64;
// How long the lone server waits for a connection's token: the client sends it with its
// request right after the connect, so only a connection that is not the test's stays quiet
// this long (and costs the lone loop no more than this).
constexpr uint64_t kTokenWaitNs = 1'000'000'000;

Status Watch(int epoll_fd, int op, int fd, uint32_t events, uint64_t tag) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = tag;
  if (epoll_ctl(epoll_fd, op, fd, &ev) != 0) return FailErrno("epoll_ctl (CRR)");
  return Ok();
}

// Calls on_event with the tag of each event ready in a flow's own epoll set (without waiting:
// the worker's loop saw the set readable), until one returns other than kActive.
template <typename OnEvent>
Result<FlowState> ForEachReady(int epoll_fd, OnEvent&& on_event) {
  epoll_event events[kEventsPerWake];
  const int n = epoll_wait(epoll_fd, events, kEventsPerWake, 0);
  if (n < 0 && errno != EINTR) return FailErrno("epoll_wait (CRR)");
  for (int i = 0; i < n; ++i) {
    Result<FlowState> outcome = on_event(events[i].data.u64);
    if (!outcome || *outcome != FlowState::kActive) return outcome;
  }
  return FlowState::kActive;
}

// Sends `bytes` of zeros; a short write of a small message on a fresh socket does not happen
// in practice, and is an error rather than a stall.
Status SendZeros(int fd, const std::vector<uint8_t>& zeros, uint64_t bytes, int more_flags = 0) {
  while (bytes > 0) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(bytes, zeros.size()));
    const ssize_t n = ::send(fd, zeros.data(), want, kSendFlags | more_flags);
    if (n < 0) return FailErrno("send (CRR)");
    bytes -= static_cast<uint64_t>(n);
  }
  return Ok();
}

// The bytes a client's request is sent from: the test's token (FlowConfig::crr_token, maybe
// empty), then zeros.
std::vector<uint8_t> RequestBuffer(const FlowConfig& config) {
  std::vector<uint8_t> buf(config.crr_token.begin(), config.crr_token.end());
  buf.resize(buf.size() + std::min<uint32_t>(config.rr.request_bytes, 1 << 20), 0);
  return buf;
}

// Sends the token once, first, then `request` bytes of zeros, all from `buf` (RequestBuffer),
// whatever the partial writes (past the buffer's end its zeros go again). With `stopping` (the
// lone path's blocking socket with timeouts) EAGAIN is a timeout that looks at the flag; without
// it (a non-blocking socket) EAGAIN is an error: a short write of a small message on a fresh
// socket does not happen in practice.
Result<Step> SendRequest(net::SysCalls* sys, int fd, const std::vector<uint8_t>& buf, size_t token,
                         uint64_t request, const std::atomic<bool>* stopping) {
  uint64_t sent = 0;
  for (uint64_t left = token + request; left > 0;) {
    const size_t from = sent < buf.size() ? static_cast<size_t>(sent) : token;
    const size_t want = static_cast<size_t>(std::min<uint64_t>(left, buf.size() - from));
    const net::SysResult r = sys->Send(fd, buf.data() + from, want, MSG_NOSIGNAL);
    if (r.failed()) {
      if (r.err == EINTR) continue;
      if (r.err != EAGAIN || stopping == nullptr) return Fail("send (CRR)", r.err);
      if (stopping->load(std::memory_order_acquire)) return Step::kStopped;
      continue;
    }
    sent += static_cast<uint64_t>(r.value);
    left -= static_cast<uint64_t>(r.value);
  }
  return Step::kDone;
}

// True once the peer closed the flow's data connection (which carries nothing after the port):
// the test is over at its end. One recv(2) that does not wait.
bool Closed(int data_fd) {
  char byte;
  const ssize_t n = ::recv(data_fd, &byte, 1, MSG_DONTWAIT | MSG_PEEK);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
}

void SetPort(sockaddr_storage& addr, uint16_t network_order_port) {
  if (addr.ss_family == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&addr)->sin_port = network_order_port;
  }
  if (addr.ss_family == AF_INET6) {
    reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port = network_order_port;
  }
}

class CrrClient final : public RrFlow {
 public:
  CrrClient(const FlowConfig& config, net::UniqueFd epoll, net::UniqueFd data, FlowEnv env)
      : RrFlow(config, std::move(epoll), env, /*connects=*/true),
        data_(std::move(data)),
        request_(RequestBuffer(config)),
        in_(std::clamp<uint32_t>(config.rr.response_bytes, 4096, 1 << 20)),
        slots_(config.rr.burst),
        gate_(config.rr.rate_per_second) {}

  void Begin(MonoTime) override { interest_ = EPOLLIN; }

  // --rr-rate: the next connection may be due.
  Result<FlowState> OnPacingTick(MonoTime) override {
    if (!gate_.paced() || peer_.ss_family == AF_UNSPEC || spent_) return FlowState::kActive;
    if (auto s = StartTransactions(); !s) return Failure("connect", s.error().sys_errno);
    PublishBytes();
    return FlowState::kActive;
  }

  Result<FlowState> OnEvents(uint32_t) override {
    auto ready = ForEachReady(
        fd_.get(), [&](uint64_t tag) { return tag == kDataTag ? OnData() : OnSlot(tag); });
    if (!ready || *ready != FlowState::kActive) return ready;
    if (peer_.ss_family != AF_UNSPEC) {
      if (config_.rr_alone) return RunAlone();
      if (auto s = StartTransactions(); !s) return Failure("connect", s.error().sys_errno);
    }
    PublishBytes();
    if (spent_ && busy_ == 0) return FlowState::kDone;
    return FlowState::kActive;
  }

 private:
  enum class Phase { kIdle, kConnecting, kResponse, kClosing };
  struct Slot {
    net::UniqueFd fd;
    Phase phase = Phase::kIdle;
    uint64_t start_ns = 0;
    uint64_t got = 0;
  };

  // The data connection: the listener's port, then (at the end) EOF.
  Result<FlowState> OnData() {
    uint8_t port[2];
    const ssize_t n = ::recv(data_.get(), port, sizeof port, MSG_DONTWAIT | MSG_WAITALL);
    if (n == 0) return FlowState::kClosed;
    if (n < 0)
      return errno == EAGAIN ? Result<FlowState>(FlowState::kActive)
                             : Failure("recv (CRR port)", errno);
    if (n != 2 || peer_.ss_family != AF_UNSPEC) {
      return Fail("stream " + std::to_string(config_.id) + ": unexpected data on the CRR stream");
    }
    socklen_t len = sizeof peer_;
    if (getpeername(data_.get(), reinterpret_cast<sockaddr*>(&peer_), &len) != 0) {
      return FailErrno("getpeername (CRR)");
    }
    peer_len_ = len;
    if (config_.crr_bind_local) {
      local_len_ = sizeof local_;
      if (getsockname(data_.get(), reinterpret_cast<sockaddr*>(&local_), &local_len_) != 0) {
        return FailErrno("getsockname (CRR)");
      }
      SetPort(local_, 0);
    }
    const uint16_t p = htons(static_cast<uint16_t>(port[0] << 8 | port[1]));
    SetPort(peer_, p);
    return FlowState::kActive;
  }

  // A socket for one transaction's connection, made as the data streams were: the test's
  // options and, with -B, its local address (the port is still chosen at connect(2)).
  Result<net::UniqueFd> NewConnection(int type_flags) {
    auto fd = net::OpenTcp(peer_.ss_family, config_.crr_options, type_flags);
    if (!fd || !config_.crr_bind_local) return fd;
    const int one = 1;
    (void)setsockopt(fd->get(), IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    if (::bind(fd->get(), reinterpret_cast<const sockaddr*>(&local_), local_len_) != 0) {
      return FailErrno("bind (CRR)");
    }
    return fd;
  }

  Status StartTransactions() {
    for (size_t i = 0; i < slots_.size() && !spent_; ++i) {
      Slot& slot = slots_[i];
      if (slot.phase != Phase::kIdle) continue;
      if (!gate_.Take(MonotonicNs())) break;
      if (!ReserveTransaction()) {
        spent_ = true;
        break;
      }
      slot.start_ns = MonotonicNs();
      slot.got = 0;
      auto fd = NewConnection(SOCK_NONBLOCK);
      if (!fd) return tl::unexpected(fd.error());
      slot.fd = std::move(*fd);
      if (::connect(slot.fd.get(), reinterpret_cast<sockaddr*>(&peer_), peer_len_) != 0 &&
          errno != EINPROGRESS) {
        return FailErrno("connect (CRR)");
      }
      if (auto s = Watch(fd_.get(), EPOLL_CTL_ADD, slot.fd.get(), EPOLLOUT, i); !s) return s;
      slot.phase = Phase::kConnecting;
      ++busy_;
    }
    return Ok();
  }

  Result<FlowState> OnSlot(uint64_t index) {
    Slot& slot = slots_.at(index);
    if (slot.phase == Phase::kConnecting) return Connected(slot, index);
    if (slot.phase == Phase::kResponse) {
      const ssize_t n = ::recv(slot.fd.get(), in_.data(), in_.size(), MSG_DONTWAIT);
      if (n < 0)
        return errno == EAGAIN ? Result<FlowState>(FlowState::kActive)
                               : Failure("recv (CRR)", errno);
      if (n == 0)
        return Fail("stream " + std::to_string(config_.id) +
                    ": the server closed a CRR connection before its response");
      slot.got += static_cast<uint64_t>(n);
      if (slot.got < config_.rr.response_bytes) return FlowState::kActive;
      rr_.Transaction(MonotonicNs() - slot.start_ns);
      ++local_blocks_;
      slot.phase = Phase::kClosing;
    }
    // Closing: the server's FIN usually came with the response.
    char byte;
    const ssize_t n = ::recv(slot.fd.get(), &byte, 1, MSG_DONTWAIT);
    if (n < 0 && errno == EAGAIN) return FlowState::kActive;
    slot.fd.Reset();  // close(2) also takes it out of the epoll set
    slot.phase = Phase::kIdle;
    --busy_;
    return FlowState::kActive;
  }

  Result<FlowState> Connected(Slot& slot, uint64_t index) {
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(slot.fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return Failure("connect (CRR)", err);
    rr_.Connected(MonotonicNs() - slot.start_ns);
    if (auto s = SendRequest(env_.sys, slot.fd.get(), request_, config_.crr_token.size(),
                             config_.rr.request_bytes, nullptr);
        !s) {
      return Failure("send (CRR)", s.error().sys_errno);
    }
    local_bytes_ += config_.rr.request_bytes;
    if (auto s = Watch(fd_.get(), EPOLL_CTL_MOD, slot.fd.get(), EPOLLIN, index); !s) {
      return tl::unexpected(s.error());
    }
    slot.phase = Phase::kResponse;
    return FlowState::kActive;
  }

  // The lone flow's loop (FlowConfig::rr_alone): socket, connect, send, close of the previous
  // connection (CloseFinished), recv in blocking calls, with no epoll wait between them. Each
  // socket gets the send and receive timeouts of kAloneWaitMs, so a blocked call sees the stop
  // soon.
  Result<FlowState> RunAlone() {
    const std::atomic<bool>& stopping = *env_.stopping;
    while (!stopping.load(std::memory_order_acquire)) {
      if (!ReserveTransaction()) {
        CloseFinished(stopping);
        return FlowState::kDone;
      }
      auto step = TransactAlone(stopping);
      if (!step) return tl::unexpected(step.error());
      if (*step != FlowState::kActive) return step;
    }
    CloseFinished(stopping);
    PublishBytes();
    return FlowState::kActive;  // the worker's loop sees the stop
  }

  // One transaction of the lone loop. kActive: done, or stopped under it (the caller sees the
  // stop flag); kClosed: the server ended the test (it closed the data connection).
  Result<FlowState> TransactAlone(const std::atomic<bool>& stopping) {
    const uint64_t start = MonotonicNs();
    auto made = NewConnection(0);
    if (!made) return tl::unexpected(made.error());
    net::UniqueFd fd = std::move(*made);
    if (auto s = SetWaits(fd.get(), kAloneWaitMs); !s) return tl::unexpected(s.error());
    auto connected = ConnectAlone(fd.get(), stopping);
    if (!connected) return Broken("connect (CRR)", connected.error().sys_errno);
    if (*connected != Step::kDone) return FlowState::kActive;
    rr_.Connected(MonotonicNs() - start);
    auto sent = SendRequest(env_.sys, fd.get(), request_, config_.crr_token.size(),
                            config_.rr.request_bytes, &stopping);
    if (!sent) return Broken("send (CRR)", sent.error().sys_errno);
    if (*sent != Step::kDone) return FlowState::kActive;
    local_bytes_ += config_.rr.request_bytes;
    CloseFinished(stopping);
    auto got =
        RecvAll(env_.sys, fd.get(), in_, config_.rr.response_bytes, stopping, SpinNs(config_));
    if (!got) return Broken("recv (CRR)", got.error().sys_errno);
    if (*got == Step::kClosed) {
      if (Closed(data_.get())) return FlowState::kClosed;
      return Fail("stream " + std::to_string(config_.id) +
                  ": the server closed a CRR connection before its response");
    }
    if (*got == Step::kStopped) return FlowState::kActive;
    rr_.Transaction(MonotonicNs() - start);
    ++local_blocks_;
    finished_ = std::move(fd);
    PublishBytes();
    return FlowState::kActive;
  }

  // Closes the connection of the previous transaction. The lone loop calls it once the next
  // request is out, so the close (the client's FIN, and the server's last ACK handled in this
  // call on loopback) overlaps the wait for the server's answer instead of adding to every
  // connection. It reads the server's FIN first (it came with the response, so it is there):
  // this close is the second one, and TIME_WAIT stays on the server.
  void CloseFinished(const std::atomic<bool>& stopping) {
    if (!finished_) return;
    char byte;
    while (env_.sys->Recv(finished_.get(), &byte, 1, 0).err == EAGAIN &&
           !stopping.load(std::memory_order_acquire)) {
    }
    finished_.Reset();
  }

  // A blocking connect that gives up its wait every kAloneWaitMs (SO_SNDTIMEO) to look at the
  // stop flag; connect(2) again on the same socket waits on for the handshake under way.
  Result<Step> ConnectAlone(int fd, const std::atomic<bool>& stopping) {
    for (;;) {
      if (::connect(fd, reinterpret_cast<sockaddr*>(&peer_), peer_len_) == 0) return Step::kDone;
      if (errno == EISCONN) return Step::kDone;
      if (errno != EINPROGRESS && errno != EALREADY && errno != EINTR) return FailErrno("connect");
      if (stopping.load(std::memory_order_acquire)) return Step::kStopped;
    }
  }

  // A failed call of the lone loop: the end of the test if the server closed the data
  // connection (its listener is gone with it), else the error.
  Result<FlowState> Broken(const char* call, int err) {
    if (Closed(data_.get())) return FlowState::kClosed;
    return Failure(call, err);
  }

  net::UniqueFd data_;
  std::vector<uint8_t> request_, in_;  // request_: RequestBuffer
  std::vector<Slot> slots_;
  sockaddr_storage peer_{};  // the server's listener; AF_UNSPEC until its port came
  socklen_t peer_len_ = 0;
  sockaddr_storage local_{};  // with -B: the data connection's address, port 0
  socklen_t local_len_ = 0;
  size_t busy_ = 0;
  bool spent_ = false;
  RateGate gate_;           // --rr-rate
  net::UniqueFd finished_;  // the lone loop's last connection, answered, not yet closed
};

// True when `a` and `b` hold the same IP address (ports aside). The listener is bound to the
// data connection's local address, so what it accepts has the data connection's family.
bool SameHost(const sockaddr_storage& a, const sockaddr_storage& b) {
  if (a.ss_family != b.ss_family) return false;
  if (a.ss_family == AF_INET) {
    return reinterpret_cast<const sockaddr_in&>(a).sin_addr.s_addr ==
           reinterpret_cast<const sockaddr_in&>(b).sin_addr.s_addr;
  }
  if (a.ss_family == AF_INET6) {
    return std::memcmp(&reinterpret_cast<const sockaddr_in6&>(a).sin6_addr,
                       &reinterpret_cast<const sockaddr_in6&>(b).sin6_addr, sizeof(in6_addr)) == 0;
  }
  return false;
}

class CrrServer final : public RrFlow {
 public:
  CrrServer(const FlowConfig& config, net::UniqueFd epoll, net::UniqueFd data,
            net::UniqueFd listener, FlowEnv env)
      : RrFlow(config, std::move(epoll), env),
        data_(std::move(data)),
        listener_(std::move(listener)),
        zeros_(std::min<uint32_t>(config.rr.response_bytes, 1 << 20), 0),
        in_(std::clamp<uint32_t>(config.rr.request_bytes, 4096, 1 << 20)) {
    socklen_t len = sizeof client_;
    if (getpeername(data_.get(), reinterpret_cast<sockaddr*>(&client_), &len) != 0) {
      client_.ss_family = AF_UNSPEC;  // matches nothing: every connection is refused
    }
  }

  void Begin(MonoTime) override { interest_ = EPOLLIN; }

  Result<FlowState> OnEvents(uint32_t) override {
    if (config_.rr_alone) return RunAlone();
    auto ready = ForEachReady(fd_.get(), [&](uint64_t tag) { return OnEvent(tag); });
    PublishBytes();
    return ready;
  }

 private:
  Result<FlowState> OnEvent(uint64_t tag) {
    if (tag == kDataTag) {
      char byte;
      const ssize_t r = ::recv(data_.get(), &byte, 1, MSG_DONTWAIT);
      if (r == 0 || (r < 0 && errno != EAGAIN)) return FlowState::kClosed;
    } else if (tag == kListenTag) {
      if (auto s = AcceptAll(); !s) return tl::unexpected(s.error());
    } else {
      OnConnection(static_cast<int>(tag));
    }
    return FlowState::kActive;
  }

  std::string ClientText() const {
    if (client_.ss_family != AF_INET && client_.ss_family != AF_INET6) return "(unknown)";
    return net::SocketAddress(reinterpret_cast<const sockaddr*>(&client_), sizeof client_)
        .HostString();
  }

  // accept4(2) that closes at once, uncounted, a connection from anyone but the test's
  // client: the listener's port is no secret, and a foreign connection must neither hold the
  // lone loop nor count as a transaction. A refusal reads as EAGAIN, so the caller looks at the
  // stop between two foreign connections: a stream of them must not keep the test from ending
  // (the listener is level-triggered in epoll, so the next one is not lost).
  int AcceptFromClient(int flags) {
    sockaddr_storage from{};
    socklen_t len = sizeof from;
    const int fd = ::accept4(listener_.get(), reinterpret_cast<sockaddr*>(&from), &len, flags);
    if (fd < 0 || SameHost(from, client_)) return fd;
    ::close(fd);
    if (refused_++ == 0)
      first_refused_ = net::SocketAddress(reinterpret_cast<sockaddr*>(&from), len);
    errno = EAGAIN;
    return -1;
  }

  Status AcceptAll() {
    for (;;) {
      const int fd = AcceptFromClient(SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EAGAIN || errno == ECONNABORTED || errno == EINTR) return Ok();
        return FailErrno("accept (CRR)");
      }
      if (auto s = Watch(fd_.get(), EPOLL_CTL_ADD, fd, EPOLLIN, static_cast<uint64_t>(fd)); !s) {
        ::close(fd);
        return s;
      }
      got_[fd] = 0;
    }
  }

  // The lone flow's loop: accept, recv, send, close in blocking calls, as netserver does. The
  // listener is blocking with the waits of kAloneWaitMs, and a connection accepted from it
  // inherits both (the kernel copies the listener's socket into the new one), so a blocked
  // call sees the stop soon without a setsockopt(2) per connection.
  Result<FlowState> RunAlone() {
    if (auto s = BlockWithTimeout(listener_.get()); !s) return tl::unexpected(s.error());
    const std::atomic<bool>& stopping = *env_.stopping;
    while (!stopping.load(std::memory_order_acquire)) {
      net::UniqueFd conn(AcceptFromClient(SOCK_CLOEXEC));
      if (!conn) {
        if (errno != EAGAIN && errno != ECONNABORTED && errno != EINTR) {
          return FailErrno("accept (CRR)");
        }
        if (Closed(data_.get())) return FlowState::kClosed;
        continue;
      }
      if (AnswerAlone(conn.get(), stopping) == Step::kStopped) break;
    }
    PublishBytes();
    return FlowState::kActive;  // the worker's loop sees the stop
  }

  // Reads the test's token at the start of a lone connection: kDone when it came whole,
  // kClosed when it did not (other bytes, a close, or nothing for kTokenWaitNs: a connection
  // from the client's address that stays quiet must not hold the lone loop), kStopped on a stop.
  Step ReadTokenAlone(int fd, const std::atomic<bool>& stopping) {
    const std::string& token = config_.crr_token;
    char got[kCrrTokenMaxBytes];
    size_t have = 0;
    const uint64_t give_up = MonotonicNs() + kTokenWaitNs;
    while (have < token.size()) {
      // Without waiting: the token usually came with the connection; else a bounded poll(2),
      // so a quiet connection is given up on whatever timeouts the socket carries.
      const net::SysResult r = env_.sys->Recv(fd, got + have, token.size() - have, MSG_DONTWAIT);
      if (r.failed() && r.err != EAGAIN && r.err != EINTR) return Step::kClosed;
      if (r.failed()) {
        if (stopping.load(std::memory_order_acquire)) return Step::kStopped;
        if (MonotonicNs() >= give_up) return RefuseTokenless();
        pollfd p{fd, POLLIN, 0};
        (void)::poll(&p, 1, kAloneWaitMs);
        continue;
      }
      if (r.value == 0) return Step::kClosed;
      if (std::memcmp(got + have, token.data() + have, static_cast<size_t>(r.value)) != 0) {
        return RefuseTokenless();
      }
      have += static_cast<size_t>(r.value);
    }
    return Step::kDone;
  }

  Step RefuseTokenless() {
    ++tokenless_;
    return Step::kClosed;
  }

  // Reads one request and answers it. A connection that fails or closes before its request
  // is not a transaction (as on the epoll path); the loop goes on.
  Step AnswerAlone(int fd, const std::atomic<bool>& stopping) {
    if (!config_.crr_token.empty()) {
      const Step token = ReadTokenAlone(fd, stopping);
      if (token != Step::kDone) return token;
    }
    auto got = RecvAll(env_.sys, fd, in_, config_.rr.request_bytes, stopping, SpinNs(config_));
    if (!got || *got != Step::kDone) return got ? *got : Step::kClosed;
    local_bytes_ += config_.rr.request_bytes;
    auto sent = SendAll(env_.sys, fd, zeros_, config_.rr.response_bytes, stopping, MSG_MORE);
    if (!sent || *sent != Step::kDone) return sent ? *sent : Step::kClosed;
    rr_.Answered();
    ++local_blocks_;
    PublishBytes();
    return Step::kDone;
  }

  // False when the `n` bytes just read into in_, the connection's bytes from `before` on, do
  // not match the test's token where they overlap it.
  bool TokenMatches(uint64_t before, size_t n) const {
    const std::string& token = config_.crr_token;
    if (before >= token.size()) return true;
    const size_t k = std::min(n, token.size() - static_cast<size_t>(before));
    return std::memcmp(in_.data(), token.data() + before, k) == 0;
  }

  void OnConnection(int fd) {
    auto it = got_.find(fd);
    if (it == got_.end()) return;
    const ssize_t n = ::recv(fd, in_.data(), in_.size(), MSG_DONTWAIT);
    if (n < 0 && errno == EAGAIN) return;
    const uint64_t token = config_.crr_token.size();
    if (n > 0 && !TokenMatches(it->second, static_cast<size_t>(n))) {
      ++tokenless_;
    } else if (n > 0) {
      // The token's bytes are not the request's.
      const uint64_t before = it->second;
      it->second += static_cast<uint64_t>(n);
      local_bytes_ += it->second - std::max(before, std::min(token, it->second));
      if (it->second < token + config_.rr.request_bytes) return;
      // A response that does not go out is a transaction the client sees fail.
      if (SendZeros(fd, zeros_, config_.rr.response_bytes, MSG_MORE)) {
        rr_.Answered();
        ++local_blocks_;
      }
    }
    got_.erase(it);
    ::close(fd);
  }

 public:
  ~CrrServer() override {
    for (const auto& [fd, got] : got_) ::close(fd);
    if (refused_ > 0) {
      LogWarning(fmt::format(
          "CRR stream {}: refused {} connection(s) to its listener from addresses other than "
          "the test's client {} (the first from {}); they were not counted",
          config_.id, refused_, ClientText(), first_refused_.ToString()));
    }
    if (tokenless_ > 0) {
      LogWarning(fmt::format(
          "CRR stream {}: closed {} connection(s) from the test's client address {} that did "
          "not begin with the test's token; they were not counted",
          config_.id, tokenless_, ClientText()));
    }
  }

 private:
  sockaddr_storage client_{};  // the data connection's peer: the only host the listener serves
  uint64_t refused_ = 0;
  uint64_t tokenless_ = 0;  // connections from the client's address without the token
  net::SocketAddress first_refused_;
  net::UniqueFd data_, listener_;
  std::vector<uint8_t> zeros_, in_;
  std::unordered_map<int, uint64_t> got_;  // open connections: request bytes read
};

Result<net::UniqueFd> NewEpoll(int data_fd) {
  net::UniqueFd epoll(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll) return FailErrno("epoll_create1 (CRR)");
  if (auto s = Watch(epoll.get(), EPOLL_CTL_ADD, data_fd, EPOLLIN, kDataTag); !s) {
    return tl::unexpected(s.error());
  }
  return epoll;
}

// A listener on the data connection's local address, port 0, with the test's socket options
// (what it accepts inherits them); its port goes to the client.
Result<net::UniqueFd> OpenListener(int data_fd, const net::SocketOptions& options, bool alone) {
  sockaddr_storage local{};
  socklen_t len = sizeof local;
  if (getsockname(data_fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) {
    return FailErrno("getsockname (CRR)");
  }
  SetPort(local, 0);
  auto made = net::OpenTcp(local.ss_family, options, SOCK_NONBLOCK);
  if (!made) return made;
  net::UniqueFd fd = std::move(*made);
  // TCP_DEFER_ACCEPT hands a connection to accept(2) when its request has come, not at the
  // handshake's last ACK. The epoll path gains: one event per connection (accept, recv, send,
  // close) instead of one for the accept and one for the request, 6% more connections a second
  // at -P 8. The lone path loses: its server then wakes only at the request, where without it
  // the wake-up overlaps the client's send and the request is in by the time it reads (4.6%
  // fewer connections a second with it). An optimization only: failing to set it is fine.
  if (!alone) {
    const int defer_seconds = 1;
    (void)setsockopt(fd.get(), IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer_seconds, sizeof defer_seconds);
  }
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&local), len) != 0 ||
      ::listen(fd.get(), kBacklog) != 0 ||
      getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &len) != 0) {
    return FailErrno("bind/listen (CRR listener)");
  }
  const uint16_t port =
      ntohs(local.ss_family == AF_INET ? reinterpret_cast<sockaddr_in*>(&local)->sin_port
                                       : reinterpret_cast<sockaddr_in6*>(&local)->sin6_port);
  const uint8_t wire[2] = {static_cast<uint8_t>(port >> 8), static_cast<uint8_t>(port)};
  if (::send(data_fd, wire, sizeof wire, kSendFlags) != 2) {
    return FailErrno("send (CRR port)");
  }
  return fd;
}

}  // namespace

Result<std::unique_ptr<Flow>> MakeCrrClient(const FlowConfig& config, net::UniqueFd fd,
                                            FlowEnv env) {
  auto epoll = NewEpoll(fd.get());
  if (!epoll) return tl::unexpected(epoll.error());
  return std::make_unique<CrrClient>(config, std::move(*epoll), std::move(fd), env);
}

Result<std::unique_ptr<Flow>> MakeCrrServer(const FlowConfig& config, net::UniqueFd fd,
                                            FlowEnv env) {
  auto listener = OpenListener(fd.get(), config.crr_options, config.rr_alone);
  if (!listener) return tl::unexpected(listener.error());
  auto epoll = NewEpoll(fd.get());
  if (!epoll) return tl::unexpected(epoll.error());
  if (auto s = Watch(epoll->get(), EPOLL_CTL_ADD, listener->get(), EPOLLIN, kListenTag); !s) {
    return tl::unexpected(s.error());
  }
  return std::make_unique<CrrServer>(config, std::move(*epoll), std::move(fd), std::move(*listener),
                                     env);
}

}  // namespace nicbench::engine
