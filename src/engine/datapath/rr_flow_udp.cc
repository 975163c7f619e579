// UDP request/response flows: one datagram each way per transaction, matched by the sequence
// number in the first min(request, response, 8) bytes (little-endian, truncated). Nothing is
// retransmitted: a request without its response within timeout_ms is lost, its slot is freed
// and the next request goes out; a response that comes after that is counted as late.
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/datapath/flow_udp.h"
#include "engine/datapath/rr_flow.h"

namespace nicbench::engine {
namespace {

uint32_t TagBytes(const record::RrSpec& rr) {
  return std::min<uint32_t>({rr.request_bytes, rr.response_bytes, 8});
}

uint64_t ReadTag(const uint8_t* p, uint32_t n) {
  uint64_t v = 0;
  for (uint32_t i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

void WriteTag(uint8_t* p, uint32_t n, uint64_t v) {
  for (uint32_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

class UdpRrClient final : public RrFlow {
 public:
  UdpRrClient(const FlowConfig& config, net::UniqueFd fd, FlowEnv env)
      : RrFlow(config, std::move(fd), env),
        tag_bytes_(TagBytes(config.rr)),
        mask_(tag_bytes_ >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * tag_bytes_)) - 1),
        out_(config.rr.request_bytes, 0),
        in_(kMaxUdpDatagramBytes),
        slots_(config.rr.burst),
        timeout_ns_(uint64_t{config.rr.timeout_ms} * 1000000u) {}

  void Begin(MonoTime) override { interest_ = EPOLLOUT; }

  Result<FlowState> OnEvents(uint32_t events) override {
    if (config_.rr_alone) return RunAlone();
    if (events & (EPOLLIN | EPOLLERR)) {
      if (auto s = ReadResponse(); !s) return tl::unexpected(s.error());
    }
    return SendRequests(MonotonicNs());
  }

  // The lone flow (one request in flight): send, then wait in recv for the matching response
  // or the timeout, as netperf's UDP_RR does.
  Result<FlowState> RunAlone() {
    const int wait_ms = static_cast<int>(std::min<uint32_t>(config_.rr.timeout_ms, kAloneWaitMs));
    if (auto s = BlockWithTimeout(fd_.get(), wait_ms); !s) return tl::unexpected(s.error());
    const std::atomic<bool>& stopping = *env_.stopping;
    while (!stopping.load(std::memory_order_acquire)) {
      if (!ReserveTransaction()) return FlowState::kDone;
      const uint64_t seq = next_seq_++;
      WriteTag(out_.data(), tag_bytes_, seq);
      const uint64_t start = MonotonicNs();
      net::SysResult w = env_.sys->Send(fd_.get(), out_.data(), out_.size(), MSG_NOSIGNAL);
      if (w.failed() && w.err != ENOBUFS && w.err != ECONNREFUSED && w.err != EAGAIN) {
        return Failure("send", w.err);
      }
      local_bytes_ += out_.size();
      if (auto s = AwaitResponse(seq, start, stopping); !s) return tl::unexpected(s.error());
      PublishBytes();
    }
    return FlowState::kActive;
  }

  // A request's matching response: a transaction, or lost and late when it came after the
  // timeout. Whichever wait caught it (a blocking receive, a --rr-spin poll longer than the
  // timeout, an epoll turn before the pacing tick freed the slot) the rule is the same.
  void Complete(uint64_t latency_ns) {
    if (latency_ns >= timeout_ns_) {
      rr_.Lost();
      rr_.Late();
      return;
    }
    rr_.Transaction(latency_ns);
    ++local_blocks_;
  }

  Status AwaitResponse(uint64_t seq, uint64_t start, const std::atomic<bool>& stopping) {
    SpinWait spin(SpinNs(config_));
    for (;;) {
      net::SysResult r = env_.sys->Recv(fd_.get(), in_.data(), in_.size(), spin.flags());
      if (r.failed() && r.err == EAGAIN && spin.Again()) continue;
      const uint64_t now = MonotonicNs();
      if (r.failed()) {
        if (r.err != EAGAIN && r.err != EINTR && r.err != ECONNREFUSED) {
          return Fail("stream " + std::to_string(config_.id) + ": recv", r.err);
        }
      } else if (r.value >= tag_bytes_ && ReadTag(in_.data(), tag_bytes_) == (seq & mask_)) {
        Complete(now - start);
        return Ok();
      } else {
        rr_.Late();
      }
      if (now - start >= timeout_ns_) {
        rr_.Lost();
        return Ok();
      }
      if (stopping.load(std::memory_order_acquire)) return Ok();
    }
  }

  // Frees the slots of requests older than the timeout: lost.
  Result<FlowState> OnPacingTick(MonoTime) override {
    const uint64_t now = MonotonicNs();
    bool freed = false;
    for (Slot& slot : slots_) {
      if (slot.busy && now - slot.sent_ns >= timeout_ns_) {
        slot.busy = false;
        --in_flight_;
        rr_.Lost();
        freed = true;
      }
    }
    return freed ? SendRequests(now) : FlowState::kActive;
  }

 private:
  struct Slot {
    uint64_t seq = 0;
    uint64_t sent_ns = 0;
    bool busy = false;
  };

  Status ReadResponse() {
    net::SysResult r = env_.sys->Recv(fd_.get(), in_.data(), in_.size(), MSG_DONTWAIT);
    if (r.failed()) {
      // ECONNREFUSED: an ICMP port unreachable for an earlier request; the request is lost
      // and its timeout counts it.
      if (r.err == EAGAIN || r.err == EINTR || r.err == ECONNREFUSED) return Ok();
      return Fail("stream " + std::to_string(config_.id) + ": recv", r.err);
    }
    const uint64_t now = MonotonicNs();
    const uint64_t tag = r.value >= tag_bytes_ ? ReadTag(in_.data(), tag_bytes_) : ~uint64_t{0};
    for (Slot& slot : slots_) {
      if (slot.busy && (slot.seq & mask_) == tag) {
        slot.busy = false;
        --in_flight_;
        Complete(now - slot.sent_ns);
        return Ok();
      }
    }
    rr_.Late();
    return Ok();
  }

  Result<FlowState> SendRequests(uint64_t now) {
    for (Slot& slot : slots_) {
      if (in_flight_ >= slots_.size() || spent_) break;
      if (slot.busy) continue;
      if (!pending_ && !ReserveTransaction()) {
        spent_ = true;
        break;
      }
      WriteTag(out_.data(), tag_bytes_, next_seq_);
      net::SysResult r = env_.sys->Send(fd_.get(), out_.data(), out_.size(), kSendFlags);
      if (r.failed()) {
        pending_ = true;  // the reserved transaction goes out on the next try
        if (r.err == EAGAIN || r.err == EINTR || r.err == ENOBUFS) break;
        if (r.err == ECONNREFUSED) continue;
        return Failure("send", r.err);
      }
      pending_ = false;
      slot = Slot{next_seq_++, now, true};
      ++in_flight_;
      local_bytes_ += out_.size();
    }
    PublishBytes();
    if (spent_ && in_flight_ == 0) return FlowState::kDone;
    interest_ = EPOLLIN | (pending_ ? EPOLLOUT : 0u);
    return FlowState::kActive;
  }

  const uint32_t tag_bytes_;
  const uint64_t mask_;
  std::vector<uint8_t> out_, in_;
  std::vector<Slot> slots_;
  const uint64_t timeout_ns_;
  size_t in_flight_ = 0;
  uint64_t next_seq_ = 1;
  bool pending_ = false;
  bool spent_ = false;
};

class UdpRrServer final : public RrFlow {
 public:
  UdpRrServer(const FlowConfig& config, net::UniqueFd fd, FlowEnv env)
      : RrFlow(config, std::move(fd), env),
        tag_bytes_(TagBytes(config.rr)),
        in_(kMaxUdpDatagramBytes),
        out_(config.rr.response_bytes, 0) {}

  void Begin(MonoTime) override { interest_ = EPOLLIN; }

  Result<FlowState> OnEvents(uint32_t) override {
    if (config_.rr_alone) return RunAlone();
    return AnswerOne(MSG_DONTWAIT);
  }

 private:
  // The lone flow: answers in blocking calls until the test stops.
  Result<FlowState> RunAlone() {
    if (auto s = BlockWithTimeout(fd_.get()); !s) return tl::unexpected(s.error());
    while (!env_.stopping->load(std::memory_order_acquire)) {
      auto outcome = AnswerOne(0, SpinNs(config_));
      if (!outcome || *outcome != FlowState::kActive) return outcome;
    }
    return FlowState::kActive;
  }

  // spin_ns: --rr-spin for a blocking receive (recv_flags 0).
  Result<FlowState> AnswerOne(int recv_flags, uint64_t spin_ns = 0) {
    SpinWait spin(spin_ns);
    net::SysResult r;
    do {
      r = env_.sys->Recv(fd_.get(), in_.data(), in_.size(), recv_flags | spin.flags());
    } while (r.failed() && r.err == EAGAIN && spin.Again());
    if (r.failed()) {
      if (r.err == EAGAIN || r.err == EINTR || r.err == ECONNREFUSED) return FlowState::kActive;
      return Failure("recv", r.err);
    }
    local_bytes_ += static_cast<uint64_t>(r.value);
    ++local_blocks_;
    std::memcpy(out_.data(), in_.data(), std::min<size_t>(tag_bytes_, r.value));
    net::SysResult w = env_.sys->Send(fd_.get(), out_.data(), out_.size(), kSendFlags);
    // A response the kernel would not take is a transaction the client counts as lost.
    if (w.failed() && w.err != EAGAIN && w.err != ENOBUFS && w.err != ECONNREFUSED) {
      return Failure("send", w.err);
    }
    if (!w.failed()) rr_.Answered();
    PublishBytes();
    return FlowState::kActive;
  }

  const uint32_t tag_bytes_;
  std::vector<uint8_t> in_, out_;
};

}  // namespace

Result<std::unique_ptr<Flow>> MakeUdpRrClient(const FlowConfig& config, net::UniqueFd fd,
                                              FlowEnv env) {
  return std::make_unique<UdpRrClient>(config, std::move(fd), env);
}

Result<std::unique_ptr<Flow>> MakeUdpRrServer(const FlowConfig& config, net::UniqueFd fd,
                                              FlowEnv env) {
  return std::make_unique<UdpRrServer>(config, std::move(fd), env);
}

}  // namespace nicbench::engine
