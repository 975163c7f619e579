// The acceptor: one epoll loop over the listening socket, the stop fds and the connections that
// have not yet sent their cookie. Cookies are read without blocking (a connection that dribbles
// or stalls costs one pending slot until its deadline); each complete cookie is routed: to a
// test that is setting up (a data stream), to a new test (a control connection), or refused.
#include "engine/conversation/server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "base/log.h"
#include "engine/conversation/accept_gate.h"
#include "engine/conversation/connection_rate.h"
#include "engine/conversation/server_session.h"
#include "engine/conversation/udp_hellos.h"
#include "net/socket.h"
#include "protocol/wire.h"

namespace nicbench::engine {
namespace {

using Steady = std::chrono::steady_clock;

// Connections still sending their cookie; beyond this the oldest of the address with the most
// is dropped, so a flood of idle connections cannot exhaust our fds nor crowd out other
// clients (each also has its own deadline).
constexpr size_t kMaxPending = 2200;
// A client with --bidir -P 128 connects 256 streams at once, a request/response test with
// -P 1024 (docs/rr.md) 1,024 (and its control connection); more than that from one address is
// a flood. With a larger --max-streams the bounds grow with it.
constexpr int kMaxPendingPerAddress = 1100;
int PendingPerAddress(const ServerConfig& c) {
  return std::max(kMaxPendingPerAddress, 4 * c.limits.max_parallel + 2);
}
size_t PendingInAll(const ServerConfig& c) {
  return std::max(kMaxPending, 2 * static_cast<size_t>(PendingPerAddress(c)));
}
// Connections one pass of the accept loop takes before the loop turns to the rest (pending
// cookies, the stop fd, UDP hellos): a flood that comes as fast as it is accepted would
// otherwise keep the acceptor in one pass, SIGTERM unread.
constexpr int kAcceptsPerPass = 64;
// Connections an address over its rate (ServerConfig::max_connections_per_second) may keep
// waiting for their first bytes, its oldest dropped (after a last read) for a new one: room for
// a real client's connections accepted a moment before their cookies came, while a
// connect-and-hold flood holds 16 descriptors instead of the usual quota's 1,100.
constexpr int kPendingOverRate = 16;
// The kernel caps it at net.core.somaxconn (4096 since Linux 5.4). A client connects its
// streams one after another, each sending its cookie at once, so the queue stays short unless
// the acceptor is starved of CPU; -P 1000 on a loaded host overflowed 128 and its SYNs waited
// for the 1 s retransmission.
constexpr int kBacklog = 4096;

struct Pending {
  net::UniqueFd fd;
  std::string peer;
  std::string host;    // the peer's address without the port (UdpHellos::PlainHost)
  std::string subnet;  // its subnet (ServerConfig::max_tests_per_subnet), as a CIDR
  char cookie[protocol::kCookieBytes];
  size_t have = 0;
  Steady::time_point deadline;
  bool over_rate = false;  // accepted over its address's rate (max_connections_per_second)
};

struct RunningSession {
  std::shared_ptr<ServerSession> test;
  std::thread thread;
  std::string host;    // the client's address
  std::string subnet;  // and its subnet
};

void Refuse(int fd) {
  const uint8_t denied = 0xFF;
  (void)!send(fd, &denied, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

// What a read of a pending connection found.
enum class CookieRead {
  kWaiting,  // nothing more yet, or part of a cookie
  kWhole,    // the whole cookie, well formed
  kClosed,   // the peer closed (or reset) the connection before the cookie was whole
  kGarbage,  // a byte that is not a cookie's
};

// Reads what has arrived of `p`'s cookie without waiting.
CookieRead ReadMore(Pending& p) {
  const ssize_t n = recv(p.fd.get(), p.cookie + p.have, sizeof p.cookie - p.have, MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    return CookieRead::kWaiting;
  }
  if (n <= 0) return CookieRead::kClosed;
  const size_t from = p.have;
  p.have += static_cast<size_t>(n);
  // Garbage is refused as soon as it shows: a byte outside the cookie alphabet.
  for (size_t i = from; i < p.have && i < protocol::kCookieChars; ++i) {
    if (protocol::kCookieAlphabet.find(p.cookie[i]) == std::string_view::npos) {
      return CookieRead::kGarbage;
    }
  }
  if (p.have < protocol::kCookieBytes) return CookieRead::kWaiting;
  return p.cookie[protocol::kCookieChars] == '\0' ? CookieRead::kWhole : CookieRead::kGarbage;
}

// Connections that close before sending a byte (a connect/close flood, a port scanner): each is
// dropped as soon as it is accepted; the first of an interval is logged at once with its
// address, the rest as one count when the interval ends.
class SilentCloseLog {
 public:
  void Note(const std::string& host, Steady::time_point now) {
    Tick(now);
    if (count_++ > 0) return;
    std::fprintf(stderr,
                 "nicbench: a connection from %s closed before sending its cookie (dropped; "
                 "more are counted and said once per %lld s)\n",
                 host.c_str(), static_cast<long long>(AcceptGate::kLogInterval.count()));
  }
  void Tick(Steady::time_point now) {
    if (now - window_start_ < AcceptGate::kLogInterval) return;
    if (count_ > 1) {
      std::fprintf(stderr,
                   "nicbench: %llu more connections closed before sending a cookie in the last "
                   "%lld s (dropped)\n",
                   static_cast<unsigned long long>(count_ - 1),
                   static_cast<long long>(AcceptGate::kLogInterval.count()));
    }
    window_start_ = now;
    count_ = 0;
  }

 private:
  Steady::time_point window_start_{};
  uint64_t count_ = 0;
};

// Connections refused by --allow/--deny, logged with the address: the first of a window at
// once, the rest as one count when the next window opens, so a flood costs one line a window.
class DeniedLog {
 public:
  static constexpr std::chrono::seconds kWindow{10};
  void Note(const std::string& peer, bool log) {
    const auto now = Steady::now();
    if (now - window_start_ >= kWindow) Flush(now);
    if (logged_in_window_) {
      ++unlogged_;
      last_ = peer;
      return;
    }
    logged_in_window_ = true;
    if (log)
      std::fprintf(stderr, "nicbench: refused %s: not permitted by --allow/--deny\n", peer.c_str());
    log_ = log;
  }

 private:
  void Flush(Steady::time_point now) {
    if (unlogged_ > 0 && log_) {
      std::fprintf(stderr,
                   "nicbench: refused %llu more connection(s) by --allow/--deny (last from %s)\n",
                   static_cast<unsigned long long>(unlogged_), last_.c_str());
    }
    unlogged_ = 0;
    logged_in_window_ = false;
    window_start_ = now;
  }
  Steady::time_point window_start_{};
  bool logged_in_window_ = false;
  bool log_ = true;
  uint64_t unlogged_ = 0;
  std::string last_;
};

class ServerImpl final : public Server {
 public:
  ServerImpl(const ServerConfig& config, TestSink sink) {
    shared_.config = config;
    shared_.sink = std::move(sink);
    if (shared_.config.once) shared_.config.max_tests = 1;
    shared_.memory.set_limit(shared_.config.memory_budget_bytes);
  }
  ~ServerImpl() override;

  Status Init();
  uint16_t port() const override { return shared_.listen_address.port(); }
  Result<bool> Run(int stop_fd) override;
  void RequestStop() override {
    // The flag first: the loop reads it when the wake-up arrives, so it must already be set.
    stop_requested_ = true;
    uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof one);
  }
  ServerStats stats() const override {
    ServerStats s;
    s.tests_started = started_;
    s.tests_ok = shared_.tests_ok;
    s.tests_failed = shared_.tests_failed;
    s.refused = refused_;
    return s;
  }

 private:
  void AcceptAll();
  // Takes the listening socket out of the epoll set while accepting is paused, back after.
  void UpdateListening();
  // False when no descriptor is left for one more connection (after dropping the oldest
  // pending one of the busiest address, if any).
  bool RoomForOneMore();
  // accept(2) failed: EMFILE/ENFILE pause accepting (AcceptGate), other errors are logged.
  void OnAcceptFailed(const Error& error);
  // A new connection: its first bytes are read at once; it is routed, dropped or left pending.
  void TakeIn(net::UniqueFd fd, const net::SocketAddress& peer);
  // A connection over its address's rate closed at once: counted, the first of a flood logged.
  void NoteOverRate(const std::string& host);
  void ReadCookie(int fd);
  void CatchUpPending(const std::string& host);
  // What becomes of a connection that left the pending set with `got` (not kWaiting).
  void Finish(Pending& done, CookieRead got);
  void Route(Pending& pending);
  void StartSession(Pending& pending, const std::string& cookie);
  void Reap(bool all);
  void ExpirePending();
  void DropPending(int fd);
  // Takes a connection out of the pending set (epoll, order, its address's count) and returns
  // it; an empty Pending if `fd` is not pending.
  Pending TakePending(int fd);
  // Drops the oldest pending connection of the address with the most (or of `host` if given).
  void DropOldestPending(const std::string* host);
  int TestsFrom(const std::string& host) const;
  // True when --max-tests-per-subnet tests from `subnet` are running.
  bool SubnetFull(const std::string& subnet) const;
  int MaxTestsPerAddress() const;
  // --max-tests-per-client-per-hour: true when `host` has started that many tests in the last
  // hour (the starts older than that are forgotten here).
  bool HourlyLimitReached(const std::string& host);
  int EpollTimeoutMs(Steady::time_point idle_deadline) const;

  ServerShared shared_;
  net::UniqueFd listen_;
  // The subnet of a client address (--max-tests-per-subnet), "" when no limit is set.
  std::string SubnetKey(const net::SocketAddress& peer) const {
    std::array<uint8_t, 16> bytes{};
    if (shared_.config.max_tests_per_subnet <= 0 || !net::ToV6Bytes(peer.addr(), &bytes)) return {};
    return net::SubnetOf(bytes, shared_.config.subnet_prefix_v4, shared_.config.subnet_prefix_v6)
        .ToString();
  }

  std::optional<AcceptGate> gate_;
  std::optional<ConnectionRate> rate_;  // none with max_connections_per_second 0
  SilentCloseLog silent_closes_;
  bool listening_ = true;  // listen_ is in the epoll set
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::atomic<bool> stop_requested_{false};
  std::map<int, Pending> pending_;  // by fd
  std::list<int> pending_order_;    // oldest first
  std::map<std::string, int> pending_per_host_;
  std::map<std::string, RunningSession> tests_;
  std::map<std::string, std::deque<Steady::time_point>> starts_by_host_;  // the last hour's
  std::atomic<int> started_{0}, refused_{0};
  DeniedLog denied_log_;
  bool served_once_ = false;
  Steady::time_point last_activity_ = Steady::now();
};

ServerImpl::~ServerImpl() {
  for (auto& [cookie, running] : tests_) running.test->Terminate();
  Reap(true);
  if (epoll_fd_ >= 0) close(epoll_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

Status ServerImpl::Init() {
  const ServerConfig& config = shared_.config;
  std::string host = config.bind_address.empty() ? "::" : config.bind_address;
  auto addresses = net::Resolve(host, config.port, net::Family::kAny, SOCK_STREAM);
  if (!addresses) return tl::unexpected(addresses.error());
  net::SocketOptions options;
  options.reuse_addr = true;
  options.v6only = false;  // "::" takes IPv4 too
  Error last{"no address to listen on"};
  for (const net::SocketAddress& addr : *addresses) {
    auto fd = net::Listen(addr, kBacklog, options);
    if (fd) {
      listen_ = std::move(*fd);
      break;
    }
    last = fd.error();
  }
  if (!listen_) return tl::unexpected(last);
  auto local = net::SocketAddress::Local(listen_.get());
  if (!local) return tl::unexpected(local.error());
  shared_.listen_address = *local;
  if (auto s = net::SetNonBlocking(listen_.get()); !s) return s;
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (epoll_fd_ < 0 || wake_fd_ < 0) return FailErrno("epoll/eventfd");
  auto hellos = UdpHellos::Create(shared_.listen_address);
  if (hellos) {
    shared_.udp_hellos = std::move(*hellos);
  } else {
    LogWarning("UDP tests will be refused: " + hellos.error().ToString());
  }
  for (int fd : {listen_.get(), wake_fd_, shared_.udp_hellos ? shared_.udp_hellos->fd() : -1}) {
    if (fd < 0) continue;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) return FailErrno("epoll_ctl");
  }
  // +1: the signalfd a caller passes to Run.
  gate_.emplace(OpenDescriptors() + 1);
  if (config.max_connections_per_second > 0) {
    // A full bucket holds one whole set-up of the largest test this server takes.
    const double per_second = config.max_connections_per_second;
    rate_.emplace(SteadyClock::Instance(),
                  ConnectionRate::Limits{per_second,
                                         std::max<double>(per_second, PendingPerAddress(config))});
  }
  shared_.fds.set_limit(gate_->Budget());
  return Ok();
}

void ServerImpl::UpdateListening() {
  gate_->Tick(Steady::now());
  silent_closes_.Tick(Steady::now());
  if (rate_) {
    if (auto line = rate_->Tick(); line && shared_.config.log_tests) {
      std::fprintf(stderr, "%s\n", line->c_str());
    }
  }
  shared_.fds.set_limit(gate_->Budget());
  const bool want = !gate_->paused(Steady::now());
  if (want == listening_) return;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = listen_.get();
  (void)epoll_ctl(epoll_fd_, want ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, listen_.get(), &ev);
  listening_ = want;
}

bool ServerImpl::RoomForOneMore() {
  const uint64_t budget = shared_.fds.limit();
  if (shared_.fds.in_use() + pending_.size() < budget) return true;
  if (pending_.empty()) return false;
  DropOldestPending(nullptr);
  return shared_.fds.in_use() + pending_.size() < budget;
}

void ServerImpl::AcceptAll() {
  for (int taken = 0; taken < kAcceptsPerPass; ++taken) {
    if (!RoomForOneMore()) {
      gate_->OnBudgetFull(Steady::now());
      UpdateListening();
      return;
    }
    net::SocketAddress peer;
    auto fd = net::Accept(listen_.get(), &peer);
    if (!fd) {
      OnAcceptFailed(fd.error());
      return;
    }
    if (!shared_.config.access.empty() && !shared_.config.access.Permits(peer.addr())) {
      // Before a byte is read: the client hears ACCESS_DENIED, as from a busy iperf3.
      Refuse(fd->get());
      ++refused_;
      denied_log_.Note(peer.ToString(), shared_.config.log_tests);
      continue;
    }
    TakeIn(std::move(*fd), peer);
  }
}

void ServerImpl::OnAcceptFailed(const Error& error) {
  const int err = error.sys_errno;
  if (err == EMFILE || err == ENFILE) {
    gate_->OnExhausted(listen_.get(), err, Steady::now());
    UpdateListening();
  } else if (err != EAGAIN && err != EWOULDBLOCK && err != ECONNABORTED && err != EINTR) {
    LogWarning("accept: " + error.ToString());
  }
}

void ServerImpl::TakeIn(net::UniqueFd fd, const net::SocketAddress& peer) {
  Pending p;
  p.fd = std::move(fd);
  p.host = UdpHellos::PlainHost(peer);
  const bool over_rate = rate_ && !rate_->Admit(p.host);
  // Read at once, before any registration: a client's cookie is usually in by now and its
  // connection is routed without an epoll round, and one already closed is dropped at once, so
  // a connect/close flood from the client's own address neither fills that address's pending
  // quota nor waits for a round. Over the rate too: a real client's connections from a
  // flooding address are as far over it as the flood's, and only what they sent tells them
  // apart (closing them unread failed every real test beside such a flood: 0 of 3, 5 runs).
  const CookieRead got = ReadMore(p);
  if (got == CookieRead::kClosed || got == CookieRead::kGarbage) {
    // Over the rate, closed at once without a word and counted with the flood.
    if (over_rate) {
      NoteOverRate(p.host);
    } else {
      Finish(p, got);
    }
    return;
  }
  p.peer = peer.ToString();
  p.subnet = SubnetKey(peer);
  p.deadline = Steady::now() + shared_.config.setup_timeout;
  (void)net::SetNonBlocking(p.fd.get());
  if (got == CookieRead::kWhole) {
    CatchUpPending(p.host);
    Route(p);
    return;
  }
  // Nothing to read yet: it may be a real client's whose cookie is on its way, so it waits;
  // over the rate, in a small quota.
  p.over_rate = over_rate;
  const int quota = over_rate ? kPendingOverRate : PendingPerAddress(shared_.config);
  if (auto n = pending_per_host_.find(p.host); n != pending_per_host_.end() && n->second >= quota) {
    DropOldestPending(&p.host);
  }
  if (pending_.size() >= PendingInAll(shared_.config)) DropOldestPending(nullptr);
  const int raw = p.fd.get();
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.fd = raw;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, raw, &ev) != 0) return;
  ++pending_per_host_[p.host];
  pending_.emplace(raw, std::move(p));
  pending_order_.push_back(raw);
}

void ServerImpl::NoteOverRate(const std::string& host) {
  if (auto line = rate_->NoteClosed(host); line && shared_.config.log_tests) {
    std::fprintf(stderr, "%s\n", line->c_str());
  }
}

void ServerImpl::DropPending(int fd) { (void)TakePending(fd); }

Pending ServerImpl::TakePending(int fd) {
  auto it = pending_.find(fd);
  if (it == pending_.end()) return {};
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  pending_order_.remove(fd);
  // The address's count is lowered before the entry is moved out (a moved-from address is
  // empty: the count was lowered for "" and the real one never went down).
  if (auto n = pending_per_host_.find(it->second.host);
      n != pending_per_host_.end() && --n->second <= 0) {
    pending_per_host_.erase(n);
  }
  Pending taken = std::move(it->second);
  pending_.erase(it);
  return taken;
}

void ServerImpl::DropOldestPending(const std::string* host) {
  std::string busiest;
  if (host != nullptr) {
    busiest = *host;
  } else {
    int most = 0;
    for (const auto& [h, n] : pending_per_host_) {
      if (n > most) {
        most = n;
        busiest = h;
      }
    }
  }
  for (int fd : pending_order_) {
    auto it = pending_.find(fd);
    if (it == pending_.end() || it->second.host != busiest) continue;
    // One last read first: a cookie that came since the last epoll round is routed, not lost
    // (a real client's connection among a flood's).
    const CookieRead got = ReadMore(it->second);
    Pending done = TakePending(fd);
    if (got != CookieRead::kWaiting) Finish(done, got);
    return;
  }
}

int ServerImpl::TestsFrom(const std::string& host) const {
  int n = 0;
  for (const auto& [cookie, running] : tests_) n += running.host == host ? 1 : 0;
  return n;
}

bool ServerImpl::SubnetFull(const std::string& subnet) const {
  const int limit = shared_.config.max_tests_per_subnet;
  if (limit <= 0) return false;
  int n = 0;
  for (const auto& [cookie, running] : tests_) n += running.subnet == subnet ? 1 : 0;
  return n >= limit;
}

int ServerImpl::MaxTestsPerAddress() const {
  const ServerConfig& c = shared_.config;
  if (c.max_tests_per_address > 0) return c.max_tests_per_address;
  return std::max(1, c.max_tests - 1);
}

bool ServerImpl::HourlyLimitReached(const std::string& host) {
  const int limit = shared_.config.max_tests_per_address_per_hour;
  if (limit <= 0) return false;
  const auto hour_ago = Steady::now() - std::chrono::hours(1);
  for (auto it = starts_by_host_.begin(); it != starts_by_host_.end();) {
    auto& starts = it->second;
    while (!starts.empty() && starts.front() <= hour_ago) starts.pop_front();
    it = starts.empty() ? starts_by_host_.erase(it) : std::next(it);
  }
  auto it = starts_by_host_.find(host);
  return it != starts_by_host_.end() && static_cast<int>(it->second.size()) >= limit;
}

void ServerImpl::ReadCookie(int fd) {
  auto it = pending_.find(fd);
  if (it == pending_.end()) return;
  const CookieRead got = ReadMore(it->second);
  if (got == CookieRead::kWaiting) return;
  Pending done = TakePending(fd);
  Finish(done, got);
}

// Routes the connections from `host` accepted before this one whose cookies are in by now, in
// the order they were accepted. A stream's id is its place in the routing order, and a client
// sends each stream's cookie before it connects the next: a connection accepted before its
// cookie came must not lose its place to the next one, whose cookie was read at its accept
// (1000 flows on a loaded host paired client stream N with the server's N+1).
void ServerImpl::CatchUpPending(const std::string& host) {
  const std::vector<int> earlier(pending_order_.begin(), pending_order_.end());
  for (int fd : earlier) {
    if (auto it = pending_.find(fd); it != pending_.end() && it->second.host == host)
      ReadCookie(fd);
  }
}

void ServerImpl::Finish(Pending& done, CookieRead got) {
  switch (got) {
    case CookieRead::kWhole: Route(done); return;
    case CookieRead::kGarbage: Refuse(done.fd.get()); return;
    case CookieRead::kClosed:
      if (done.over_rate) {
        NoteOverRate(done.host);
      } else if (done.have == 0) {
        silent_closes_.Note(done.host, Steady::now());
      }
      return;
    case CookieRead::kWaiting: return;
  }
}

void ServerImpl::Route(Pending& pending) {
  std::string cookie(pending.cookie, protocol::kCookieChars);
  auto it = tests_.find(cookie);
  if (it != tests_.end()) {
    // A data stream of a test that is setting up; anything else with a known cookie is refused
    // without disturbing the test.
    net::UniqueFd back = it->second.test->OfferStream(std::move(pending.fd));
    if (back) {
      Refuse(back.get());
      ++refused_;
    }
    return;
  }
  const bool busy = static_cast<int>(tests_.size()) >= shared_.config.max_tests ||
                    HourlyLimitReached(pending.host) ||
                    TestsFrom(pending.host) >= MaxTestsPerAddress() || SubnetFull(pending.subnet) ||
                    (shared_.config.once && served_once_) || stop_requested_;
  if (busy) {
    Refuse(pending.fd.get());
    ++refused_;
    return;
  }
  StartSession(pending, cookie);
}

void ServerImpl::StartSession(Pending& pending, const std::string& cookie) {
  // The control socket goes back to blocking mode: the protocol layer waits in poll with its
  // own deadlines either way.
  (void)net::SetNonBlocking(pending.fd.get(), false);
  // Each control message is its own small write, and TEST_START is followed at once by
  // TEST_RUNNING: with Nagle the second waits for the client's delayed ACK of the first (40 ms),
  // while our clock has started, and a timed test's two ends then count different spans.
  const int no_delay = 1;
  (void)setsockopt(pending.fd.get(), IPPROTO_TCP, TCP_NODELAY, &no_delay, sizeof no_delay);
  served_once_ = true;
  if (shared_.config.max_tests_per_address_per_hour > 0) {
    starts_by_host_[pending.host].push_back(Steady::now());
  }
  ++started_;
  // The cookie's deadline was the accept plus the set-up timeout: the rest of the set-up
  // shares it.
  auto test = std::make_shared<ServerSession>(std::move(pending.fd), cookie, pending.peer, shared_,
                                              pending.deadline, [wake = wake_fd_] {
                                                uint64_t one = 1;
                                                (void)!write(wake, &one, sizeof one);
                                              });
  RunningSession running;
  running.test = test;
  running.host = pending.host;
  running.subnet = pending.subnet;
  running.thread = std::thread([test] { test->Run(); });
  tests_.emplace(cookie, std::move(running));
}

void ServerImpl::Reap(bool all) {
  for (auto it = tests_.begin(); it != tests_.end();) {
    if (all || it->second.test->finished()) {
      if (it->second.thread.joinable()) it->second.thread.join();
      it = tests_.erase(it);
      last_activity_ = Steady::now();
    } else {
      ++it;
    }
  }
}

void ServerImpl::ExpirePending() {
  const auto now = Steady::now();
  while (!pending_order_.empty()) {
    int fd = pending_order_.front();
    auto it = pending_.find(fd);
    if (it != pending_.end() && it->second.deadline > now) break;
    if (it == pending_.end()) {
      pending_order_.pop_front();
    } else {
      DropPending(fd);
    }
  }
}

int ServerImpl::EpollTimeoutMs(Steady::time_point idle_deadline) const {
  auto next = idle_deadline;
  if (!listening_) next = std::min(next, gate_->resume_at());
  if (rate_) {
    if (auto due = rate_->LineDue()) next = std::min(next, *due);
  }
  if (!pending_order_.empty()) {
    auto it = pending_.find(pending_order_.front());
    if (it != pending_.end()) next = std::min(next, it->second.deadline);
  }
  if (next == Steady::time_point::max()) return -1;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - Steady::now()).count();
  return static_cast<int>(std::clamp<int64_t>(ms + 1, 0, 60000));
}

Result<bool> ServerImpl::Run(int stop_fd) {
  if (stop_fd >= 0) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = stop_fd;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, stop_fd, &ev) != 0) return FailErrno("epoll_ctl");
  }
  bool interrupted = false;
  for (;;) {
    Reap(false);
    UpdateListening();
    if (shared_.config.once && served_once_ && tests_.empty()) break;
    const bool idle_limit = shared_.config.idle_timeout.count() > 0 && tests_.empty();
    const auto idle_deadline =
        idle_limit ? last_activity_ + shared_.config.idle_timeout : Steady::time_point::max();
    if (idle_limit && Steady::now() >= idle_deadline) {
      if (shared_.config.log_tests) {
        std::fprintf(stderr, "nicbench: no test for %lld s (--idle-timeout); exiting\n",
                     static_cast<long long>(shared_.config.idle_timeout.count()));
      }
      break;
    }
    epoll_event events[64];
    int n = epoll_wait(epoll_fd_, events, 64, EpollTimeoutMs(idle_deadline));
    if (n < 0 && errno != EINTR) return FailErrno("epoll_wait");
    bool stop = false;
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == listen_.get()) {
        AcceptAll();
      } else if (fd == wake_fd_) {
        uint64_t count = 0;
        (void)!read(wake_fd_, &count, sizeof count);
        stop = stop || stop_requested_;
      } else if (fd == stop_fd) {
        stop = true;
      } else if (shared_.udp_hellos && fd == shared_.udp_hellos->fd()) {
        shared_.udp_hellos->OnReadable();
      } else {
        ReadCookie(fd);
      }
    }
    ExpirePending();
    if (stop) {
      interrupted = true;
      break;
    }
  }
  for (auto& [cookie, running] : tests_) running.test->Terminate();
  Reap(true);
  if (stop_fd >= 0) epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, stop_fd, nullptr);
  if (rate_) {
    if (auto line = rate_->Tick(true); line && shared_.config.log_tests) {
      std::fprintf(stderr, "%s\n", line->c_str());
    }
  }
  return interrupted;
}

}  // namespace

Result<std::unique_ptr<Server>> Server::Create(const ServerConfig& config, TestSink sink) {
  auto server = std::make_unique<ServerImpl>(config, std::move(sink));
  if (auto s = server->Init(); !s) return tl::unexpected(s.error());
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace nicbench::engine
