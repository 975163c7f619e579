// The acceptor: one epoll loop over the listening socket, the stop fds and the connections that
// have not yet sent their cookie. Cookies are read without blocking (a connection that dribbles
// or stalls costs one pending slot until its deadline); each complete cookie is routed: to a
// test that is setting up (a data stream), to a new test (a control connection), or refused.
#include "engine/server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "base/log.h"
#include "engine/server_session.h"
#include "net/socket.h"
#include "protocol/wire.h"

namespace nicbench::engine {
namespace {

using Clock = std::chrono::steady_clock;

// Connections still sending their cookie; beyond this the oldest is dropped, so a flood of idle
// connections cannot exhaust our fds (each also has its own deadline).
constexpr size_t kMaxPending = 512;
constexpr int kBacklog = 128;

struct Pending {
  net::UniqueFd fd;
  std::string peer;
  char cookie[protocol::kCookieBytes];
  size_t have = 0;
  Clock::time_point deadline;
};

struct RunningTest {
  std::shared_ptr<ServerTest> test;
  std::thread thread;
};

void Refuse(int fd) {
  const uint8_t denied = 0xFF;
  (void)!send(fd, &denied, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

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
  void ReadCookie(int fd);
  void Route(Pending& pending);
  void StartTest(Pending& pending, const std::string& cookie);
  void Reap(bool all);
  void ExpirePending();
  int EpollTimeoutMs(Clock::time_point idle_deadline) const;

  ServerShared shared_;
  net::UniqueFd listen_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::atomic<bool> stop_requested_{false};
  std::map<int, Pending> pending_;        // by fd
  std::list<int> pending_order_;          // oldest first
  std::map<std::string, RunningTest> tests_;
  std::atomic<int> started_{0}, refused_{0};
  bool served_once_ = false;
  Clock::time_point last_activity_ = Clock::now();
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
  for (int fd : {listen_.get(), wake_fd_}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) return FailErrno("epoll_ctl");
  }
  return Ok();
}

void ServerImpl::AcceptAll() {
  for (;;) {
    net::SocketAddress peer;
    auto fd = net::Accept(listen_.get(), &peer);
    if (!fd) {
      // EAGAIN: drained. EMFILE and friends: drop this round; the loop comes back to it.
      if (fd.error().sys_errno != EAGAIN && fd.error().sys_errno != EWOULDBLOCK) {
        LogWarning("accept: " + fd.error().ToString());
      }
      return;
    }
    if (pending_.size() >= kMaxPending) {
      int oldest = pending_order_.front();
      pending_order_.pop_front();
      epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, oldest, nullptr);
      pending_.erase(oldest);
    }
    (void)net::SetNonBlocking(fd->get());
    int raw = fd->get();
    Pending p;
    p.fd = std::move(*fd);
    p.peer = peer.ToString();
    p.deadline = Clock::now() + shared_.config.control_timeout;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.fd = raw;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, raw, &ev) != 0) continue;
    pending_.emplace(raw, std::move(p));
    pending_order_.push_back(raw);
  }
}

void ServerImpl::ReadCookie(int fd) {
  auto it = pending_.find(fd);
  if (it == pending_.end()) return;
  Pending& p = it->second;
  ssize_t n = recv(fd, p.cookie + p.have, sizeof p.cookie - p.have, MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  bool drop = n <= 0;
  if (n > 0) {
    p.have += static_cast<size_t>(n);
    // Garbage is refused as soon as it shows: a byte outside the cookie alphabet.
    for (size_t i = p.have - static_cast<size_t>(n); i < p.have && i < protocol::kCookieChars; ++i) {
      if (protocol::kCookieAlphabet.find(p.cookie[i]) == std::string_view::npos) drop = true;
    }
    if (p.have == protocol::kCookieBytes && p.cookie[protocol::kCookieChars] != '\0') drop = true;
  }
  if (!drop && p.have < protocol::kCookieBytes) return;
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  pending_order_.remove(fd);
  Pending done = std::move(p);
  pending_.erase(it);
  if (drop) {
    if (n > 0) Refuse(done.fd.get());
    return;
  }
  Route(done);
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
                    (shared_.config.once && served_once_) || stop_requested_;
  if (busy) {
    Refuse(pending.fd.get());
    ++refused_;
    return;
  }
  StartTest(pending, cookie);
}

void ServerImpl::StartTest(Pending& pending, const std::string& cookie) {
  // The control socket goes back to blocking mode: the protocol layer waits in poll with its
  // own deadlines either way.
  (void)net::SetNonBlocking(pending.fd.get(), false);
  // Each control message is its own small write, and TEST_START is followed at once by
  // TEST_RUNNING: with Nagle the second waits for the client's delayed ACK of the first (40 ms),
  // while our clock has started, and a timed test's two ends then count different spans.
  const int no_delay = 1;
  (void)setsockopt(pending.fd.get(), IPPROTO_TCP, TCP_NODELAY, &no_delay, sizeof no_delay);
  served_once_ = true;
  ++started_;
  auto test = std::make_shared<ServerTest>(std::move(pending.fd), cookie, pending.peer, shared_,
                                           [wake = wake_fd_] {
                                             uint64_t one = 1;
                                             (void)!write(wake, &one, sizeof one);
                                           });
  RunningTest running;
  running.test = test;
  running.thread = std::thread([test] { test->Run(); });
  tests_.emplace(cookie, std::move(running));
}

void ServerImpl::Reap(bool all) {
  for (auto it = tests_.begin(); it != tests_.end();) {
    if (all || it->second.test->finished()) {
      if (it->second.thread.joinable()) it->second.thread.join();
      it = tests_.erase(it);
      last_activity_ = Clock::now();
    } else {
      ++it;
    }
  }
}

void ServerImpl::ExpirePending() {
  const auto now = Clock::now();
  while (!pending_order_.empty()) {
    int fd = pending_order_.front();
    auto it = pending_.find(fd);
    if (it != pending_.end() && it->second.deadline > now) break;
    pending_order_.pop_front();
    if (it != pending_.end()) {
      epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
      pending_.erase(it);
    }
  }
}

int ServerImpl::EpollTimeoutMs(Clock::time_point idle_deadline) const {
  auto next = idle_deadline;
  if (!pending_order_.empty()) {
    auto it = pending_.find(pending_order_.front());
    if (it != pending_.end()) next = std::min(next, it->second.deadline);
  }
  if (next == Clock::time_point::max()) return -1;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count();
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
    if (shared_.config.once && served_once_ && tests_.empty()) break;
    const bool idle_limit = shared_.config.idle_timeout.count() > 0 && tests_.empty();
    const auto idle_deadline =
        idle_limit ? last_activity_ + shared_.config.idle_timeout : Clock::time_point::max();
    if (idle_limit && Clock::now() >= idle_deadline) {
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
  return interrupted;
}

}  // namespace

Result<std::unique_ptr<Server>> Server::Create(const ServerConfig& config, TestSink sink) {
  auto server = std::make_unique<ServerImpl>(config, std::move(sink));
  if (auto s = server->Init(); !s) return tl::unexpected(s.error());
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace nicbench::engine
