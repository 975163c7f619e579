// TCP request/response flows (one connection per flow) and the pieces every RR flow shares.
#include "engine/datapath/rr_flow.h"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "protocol/clock_exchange.h"

namespace nicbench::engine {
namespace {

// Writes and reads go through buffers of at most this size; bigger messages take several calls.
constexpr uint64_t kMaxBufferBytes = 1 << 20;
constexpr uint64_t kMinReadBytes = uint64_t{64} * 1024;
// A stamped server stops reading requests while this much of its responses waits unsent: a
// client that sends and never reads cannot make it hold more.
constexpr size_t kMaxStampedBytes = size_t{1} << 20;

std::vector<uint8_t> Buffer(uint64_t bytes) {
  return std::vector<uint8_t>(std::clamp<uint64_t>(bytes, 1, kMaxBufferBytes), 0);
}

// The client: keeps `burst` requests in flight; responses arrive in order on the connection,
// so the oldest send time belongs to the next response completed.
class RrTcpClient final : public RrFlow {
 public:
  RrTcpClient(const FlowConfig& config, net::UniqueFd fd, FlowEnv env)
      : RrFlow(config, std::move(fd), env),
        out_(Buffer(uint64_t{config.rr.request_bytes} * config.rr.burst)),
        in_(Buffer(std::max<uint64_t>(uint64_t{config.rr.response_bytes} * config.rr.burst,
                                      kMinReadBytes))),
        sent_ns_(config.rr.burst),
        sent_rt_(config.rr_stamps ? config.rr.burst : 0),
        gate_(config.rr.rate_per_second) {}

  void Begin(MonoTime) override { interest_ = EPOLLOUT; }

  // --rr-rate: the next request may be due.
  Result<FlowState> OnPacingTick(MonoTime) override {
    if (!gate_.paced() || spent_) return FlowState::kActive;
    return SendRequests();
  }

  Result<FlowState> OnEvents(uint32_t events) override {
    if (config_.rr_alone) return RunAlone();
    if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
      auto read = config_.rr_stamps ? ReadStampedResponses() : ReadResponses();
      if (!read || *read != FlowState::kActive) return read;
    }
    return SendRequests();
  }

 private:
  Result<FlowState> SendRequests() {
    const uint32_t burst = config_.rr.burst;
    if (in_flight_ < burst && !spent_) {
      const uint64_t now = MonotonicNs();
      const int64_t now_rt = config_.rr_stamps ? protocol::RealtimeNs() : 0;
      while (in_flight_ < burst && gate_.Take(now)) {
        if (!ReserveTransaction()) {
          spent_ = true;
          break;
        }
        if (config_.rr_stamps) sent_rt_[(head_ + in_flight_) % burst] = now_rt;
        sent_ns_[(head_ + in_flight_) % burst] = now;
        ++in_flight_;
        unsent_ += config_.rr.request_bytes;
      }
    }
    while (unsent_ > 0) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(unsent_, out_.size()));
      net::SysResult r = env_.sys->Send(fd_.get(), out_.data(), want, kSendFlags);
      if (r.failed()) {
        if (r.err == EAGAIN || r.err == EINTR) break;
        return Failure("send", r.err);
      }
      unsent_ -= static_cast<uint64_t>(r.value);
      local_bytes_ += static_cast<uint64_t>(r.value);
    }
    PublishBytes();
    if (spent_ && in_flight_ == 0) return FlowState::kDone;
    interest_ = EPOLLIN | (unsent_ > 0 ? EPOLLOUT : 0u);
    return FlowState::kActive;
  }

  Result<FlowState> ReadResponses() {
    net::SysResult r = env_.sys->Recv(fd_.get(), in_.data(), in_.size(), MSG_DONTWAIT);
    if (r.failed()) {
      if (r.err == EAGAIN || r.err == EINTR) return FlowState::kActive;
      return Failure("recv", r.err);
    }
    if (r.value == 0) return FlowState::kClosed;
    partial_ += static_cast<uint64_t>(r.value);
    const uint64_t whole = partial_ / config_.rr.response_bytes;
    if (whole == 0) return FlowState::kActive;
    partial_ %= config_.rr.response_bytes;
    const uint64_t now = MonotonicNs();
    for (uint64_t i = 0; i < whole && in_flight_ > 0; ++i) {
      rr_.Transaction(now - sent_ns_[head_]);
      head_ = (head_ + 1) % config_.rr.burst;
      --in_flight_;
      ++local_blocks_;
    }
    return FlowState::kActive;
  }

  // ReadResponses for a stamped flow: each response's head holds the server's receive and
  // send times (t2, t3), which may arrive split over reads.
  Result<FlowState> ReadStampedResponses() {
    net::SysResult r = env_.sys->Recv(fd_.get(), in_.data(), in_.size(), MSG_DONTWAIT);
    if (r.failed()) {
      if (r.err == EAGAIN || r.err == EINTR) return FlowState::kActive;
      return Failure("recv", r.err);
    }
    if (r.value == 0) return FlowState::kClosed;
    const uint64_t now = MonotonicNs();
    const int64_t now_rt = protocol::RealtimeNs();
    const uint64_t size = config_.rr.response_bytes;
    const uint8_t* p = in_.data();
    uint64_t left = static_cast<uint64_t>(r.value);
    while (left > 0) {
      const uint64_t take = std::min(left, size - partial_);
      if (partial_ < protocol::kStampBytes) {
        const uint64_t head = std::min<uint64_t>(take, protocol::kStampBytes - partial_);
        std::memcpy(stamp_ + partial_, p, head);
      }
      partial_ += take, p += take, left -= take;
      if (partial_ < size) continue;
      partial_ = 0;
      if (in_flight_ == 0) continue;  // a response to no request: not ours to time
      int64_t t2 = 0, t3 = 0;
      protocol::GetStamps(stamp_, &t2, &t3);
      const int64_t up = t2 - sent_rt_[head_] - config_.clock_offset_ns;
      const int64_t down = now_rt - t3 + config_.clock_offset_ns;
      // Below 0 only within the offset's bound: counted as 0.
      rr_.OneWay(static_cast<uint64_t>(std::max<int64_t>(up, 0)),
                 static_cast<uint64_t>(std::max<int64_t>(down, 0)));
      rr_.Transaction(now - sent_ns_[head_]);
      head_ = (head_ + 1) % config_.rr.burst;
      --in_flight_;
      ++local_blocks_;
    }
    return FlowState::kActive;
  }

  // The lone flow's loop: request, response, as netperf's TCP_RR does, two system calls per
  // transaction and no epoll wait between them.
  Result<FlowState> RunAlone() {
    if (auto s = BlockWithTimeout(fd_.get()); !s) return tl::unexpected(s.error());
    const std::atomic<bool>& stopping = *env_.stopping;
    while (!stopping.load(std::memory_order_acquire)) {
      if (!ReserveTransaction()) return FlowState::kDone;
      const uint64_t start = MonotonicNs();
      auto sent = SendAll(env_.sys, fd_.get(), out_, config_.rr.request_bytes, stopping);
      if (!sent) return Failure("send", sent.error().sys_errno);
      local_bytes_ += config_.rr.request_bytes;
      if (*sent != Step::kDone) break;
      auto got =
          RecvAll(env_.sys, fd_.get(), in_, config_.rr.response_bytes, stopping, SpinNs(config_));
      if (!got) return Failure("recv", got.error().sys_errno);
      if (*got == Step::kClosed) return FlowState::kClosed;
      if (*got == Step::kStopped) break;
      rr_.Transaction(MonotonicNs() - start);
      ++local_blocks_;
      PublishBytes();
    }
    PublishBytes();
    return FlowState::kActive;  // the worker's loop sees the stop
  }

  std::vector<uint8_t> out_, in_;
  std::vector<uint64_t> sent_ns_;  // ring of the in-flight requests' send times
  std::vector<int64_t> sent_rt_;   // the same on CLOCK_REALTIME (t1), stamped flows only
  uint8_t stamp_[protocol::kStampBytes] = {};  // the head of the response being read
  uint32_t head_ = 0, in_flight_ = 0;
  uint64_t unsent_ = 0;   // bytes of queued requests not yet written
  uint64_t partial_ = 0;  // bytes of the response being read
  bool spent_ = false;    // the -n budget is used up
  RateGate gate_;         // --rr-rate
};

// The server: answers each whole request with a response, in order.
class RrTcpServer final : public RrFlow {
 public:
  RrTcpServer(const FlowConfig& config, net::UniqueFd fd, FlowEnv env)
      : RrFlow(config, std::move(fd), env),
        in_(Buffer(std::max<uint64_t>(uint64_t{config.rr.request_bytes} * config.rr.burst,
                                      kMinReadBytes))),
        out_(Buffer(uint64_t{config.rr.response_bytes} * config.rr.burst)) {}

  void Begin(MonoTime) override { interest_ = EPOLLIN; }

  Result<FlowState> OnEvents(uint32_t events) override {
    if (config_.rr_alone) return RunAlone();
    if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) && !StampedFull()) {
      net::SysResult r = env_.sys->Recv(fd_.get(), in_.data(), in_.size(), MSG_DONTWAIT);
      if (r.failed() && r.err != EAGAIN && r.err != EINTR) return Failure("recv", r.err);
      if (r.value == 0) return FlowState::kClosed;
      if (r.value > 0) {
        local_bytes_ += static_cast<uint64_t>(r.value);
        partial_ += static_cast<uint64_t>(r.value);
        const uint64_t whole = partial_ / config_.rr.request_bytes;
        partial_ %= config_.rr.request_bytes;
        if (config_.rr_stamps) {
          QueueStamped(whole, protocol::RealtimeNs());
        } else {
          unsent_ += whole * config_.rr.response_bytes;
        }
        for (uint64_t i = 0; i < whole; ++i) rr_.Answered();
        local_blocks_ += whole;
      }
    }
    if (config_.rr_stamps) return SendStamped();
    while (unsent_ > 0) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(unsent_, out_.size()));
      net::SysResult w = env_.sys->Send(fd_.get(), out_.data(), want, kSendFlags);
      if (w.failed()) {
        if (w.err == EAGAIN || w.err == EINTR) break;
        return Failure("send", w.err);
      }
      unsent_ -= static_cast<uint64_t>(w.value);
    }
    PublishBytes();
    interest_ = EPOLLIN | (unsent_ > 0 ? EPOLLOUT : 0u);
    return FlowState::kActive;
  }

 private:
  Result<FlowState> RunAlone() {
    if (auto s = BlockWithTimeout(fd_.get()); !s) return tl::unexpected(s.error());
    const std::atomic<bool>& stopping = *env_.stopping;
    while (!stopping.load(std::memory_order_acquire)) {
      auto got =
          RecvAll(env_.sys, fd_.get(), in_, config_.rr.request_bytes, stopping, SpinNs(config_));
      if (!got) return Failure("recv", got.error().sys_errno);
      if (*got == Step::kClosed) return FlowState::kClosed;
      if (*got == Step::kStopped) break;
      local_bytes_ += config_.rr.request_bytes;
      ++local_blocks_;
      auto sent = SendAll(env_.sys, fd_.get(), out_, config_.rr.response_bytes, stopping);
      if (!sent) return Failure("send", sent.error().sys_errno);
      if (*sent != Step::kDone) break;
      rr_.Answered();
      PublishBytes();
    }
    PublishBytes();
    return FlowState::kActive;
  }

  // Stamped responses (FlowConfig::rr_stamps): t2 when the requests were read, t3 just before
  // the send that carries them is tried.
  bool StampedFull() const { return stamped_.size() - stamped_sent_ >= kMaxStampedBytes; }

  void QueueStamped(uint64_t whole, int64_t t2) {
    stamped_.erase(stamped_.begin(), stamped_.begin() + static_cast<ptrdiff_t>(stamped_sent_));
    stamped_sent_ = 0;
    const int64_t t3 = protocol::RealtimeNs();
    for (uint64_t i = 0; i < whole; ++i) {
      const size_t at = stamped_.size();
      stamped_.resize(at + config_.rr.response_bytes, 0);
      protocol::PutStamps(stamped_.data() + at, t2, t3);
    }
  }

  Result<FlowState> SendStamped() {
    while (stamped_sent_ < stamped_.size()) {
      net::SysResult w = env_.sys->Send(fd_.get(), stamped_.data() + stamped_sent_,
                                        stamped_.size() - stamped_sent_, kSendFlags);
      if (w.failed()) {
        if (w.err == EAGAIN || w.err == EINTR) break;
        return Failure("send", w.err);
      }
      stamped_sent_ += static_cast<size_t>(w.value);
    }
    if (stamped_sent_ == stamped_.size()) stamped_.clear(), stamped_sent_ = 0;
    PublishBytes();
    interest_ = (StampedFull() ? 0u : EPOLLIN) | (stamped_.empty() ? 0u : EPOLLOUT);
    return FlowState::kActive;
  }

  std::vector<uint8_t> in_, out_;
  uint64_t partial_ = 0;          // bytes of the request being read
  uint64_t unsent_ = 0;           // response bytes owed
  std::vector<uint8_t> stamped_;  // stamped responses owed, and how much of them went
  size_t stamped_sent_ = 0;
};

}  // namespace

Result<Step> SendAll(net::SysCalls* sys, int fd, const std::vector<uint8_t>& buf, uint64_t bytes,
                     const std::atomic<bool>& stopping, int more_flags) {
  while (bytes > 0) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(bytes, buf.size()));
    net::SysResult r = sys->Send(fd, buf.data(), want, MSG_NOSIGNAL | more_flags);
    if (r.failed()) {
      if (r.err != EAGAIN && r.err != EINTR) return Fail("send", r.err);
      if (stopping.load(std::memory_order_acquire)) return Step::kStopped;
      continue;
    }
    bytes -= static_cast<uint64_t>(r.value);
  }
  return Step::kDone;
}

Result<Step> RecvAll(net::SysCalls* sys, int fd, std::vector<uint8_t>& buf, uint64_t bytes,
                     const std::atomic<bool>& stopping, uint64_t spin_ns) {
  SpinWait spin(spin_ns);
  while (bytes > 0) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(bytes, buf.size()));
    net::SysResult r = sys->Recv(fd, buf.data(), want, spin.flags());
    if (r.failed()) {
      if (r.err == EAGAIN && spin.Again()) continue;
      if (r.err != EAGAIN && r.err != EINTR) return Fail("recv", r.err);
      if (stopping.load(std::memory_order_acquire)) return Step::kStopped;
      continue;
    }
    if (r.value == 0) return Step::kClosed;
    bytes -= static_cast<uint64_t>(r.value);
  }
  return Step::kDone;
}

RrRecorder::RrRecorder(bool client, bool connects, bool stamps) {
  if (client) latency_ = std::make_unique<AtomicLatencyHistogram>();
  if (client && connects) connect_ = std::make_unique<AtomicLatencyHistogram>();
  if (client && stamps) {
    up_ = std::make_unique<AtomicLatencyHistogram>();
    down_ = std::make_unique<AtomicLatencyHistogram>();
  }
}

void RrRecorder::Fill(FlowCounters& c) const {
  c.rr = true;
  c.transactions = transactions_.load(std::memory_order_relaxed);
  c.rr_lost = lost_.load(std::memory_order_relaxed);
  c.rr_late = late_.load(std::memory_order_relaxed);
  if (latency_) {
    c.latency = std::make_shared<const LatencyHistogram>(latency_->Snapshot());
    // The writer goes on while we read: the client's count is the histogram's own, so the
    // two never disagree by the transactions recorded in between.
    c.transactions = c.latency->count();
  }
  if (connect_) c.connect_latency = std::make_shared<const LatencyHistogram>(connect_->Snapshot());
  // Taken after the count, and recorded before it: they hold at least its transactions.
  if (up_) c.up_latency = std::make_shared<const LatencyHistogram>(up_->Snapshot());
  if (down_) c.down_latency = std::make_shared<const LatencyHistogram>(down_->Snapshot());
}

RrFlow::RrFlow(const FlowConfig& config, net::UniqueFd fd, FlowEnv env, bool connects)
    : Flow(config, std::move(fd), env), rr_(config.sender, connects, config.rr_stamps) {}

Result<std::unique_ptr<Flow>> MakeRrFlow(const FlowConfig& config, net::UniqueFd fd, FlowEnv env) {
  const record::RrSpec& rr = config.rr;
  if (rr.request_bytes == 0 || rr.response_bytes == 0 || rr.burst == 0) {
    return Fail("stream " + std::to_string(config.id) + ": request/response size or burst 0");
  }
  if (config.rr_stamps &&
      (rr.response_bytes < protocol::kStampBytes || config.rr_alone ||
       rr.mode != record::RrMode::kRr || config.transport != record::Transport::kTcp)) {
    return Fail("stream " + std::to_string(config.id) +
                ": timestamped responses need a TCP RR flow on the epoll path with responses of "
                "at least 16 bytes");
  }
  if (config.transport == record::Transport::kUdp) {
    return config.sender ? MakeUdpRrClient(config, std::move(fd), env)
                         : MakeUdpRrServer(config, std::move(fd), env);
  }
  if (rr.mode == record::RrMode::kCrr) {
    return config.sender ? MakeCrrClient(config, std::move(fd), env)
                         : MakeCrrServer(config, std::move(fd), env);
  }
  if (config.sender) return std::make_unique<RrTcpClient>(config, std::move(fd), env);
  return std::make_unique<RrTcpServer>(config, std::move(fd), env);
}

}  // namespace nicbench::engine
