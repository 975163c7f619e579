#include "engine/datapath/flow_udp.h"

#include <sys/epoll.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "base/check.h"
#include "base/log.h"
#include "engine/datapath/flow_payload.h"
#include "net/udp_offload.h"
#include "protocol/wire.h"

namespace nicbench::engine {

uint32_t UdpSendBatch(uint32_t block_bytes) { return net::GsoSegmentsPerSend(block_bytes); }

uint64_t UdpSenderBufferBytes(uint32_t block_bytes) {
  return static_cast<uint64_t>(block_bytes) * UdpSendBatch(block_bytes);
}

namespace {

// Turns on the offload for one end; false (with a warning) where the kernel lacks it.
bool EnableOffload(const FlowConfig& config, int fd, net::SysCalls& sys) {
  const Status s =
      config.sender ? net::SetUdpSegment(sys, fd, config.block_bytes) : net::EnableUdpGro(sys, fd);
  if (s) return true;
  LogWarning("stream " + std::to_string(config.id) + ": " + s.error().ToString() + "; UDP " +
             (config.sender ? "sending" : "receiving") + " without segmentation offload");
  return false;
}

Result<std::unique_ptr<Flow>> MakeUdpSender(const FlowConfig& config, net::UniqueFd fd,
                                            FlowEnv env) {
  const uint32_t batch = UdpSendBatch(config.block_bytes);
  // One GSO send of a single datagram is an ordinary send: nothing to offload.
  const bool gso = config.udp_offload && batch > 1 && EnableOffload(config, fd.get(), *env.sys);
  // Each datagram of the batch starts as the same block (so a repeating payload restarts in
  // every datagram, as iperf3's does); the headers are rewritten per send.
  std::vector<uint8_t> block(config.block_bytes);
  if (auto s = FillPayload(block, config.repeating_payload); !s) return tl::unexpected(s.error());
  std::vector<uint8_t> datagrams(static_cast<size_t>(config.block_bytes) * batch);
  for (uint32_t i = 0; i < batch; ++i)
    std::copy(block.begin(), block.end(),
              datagrams.begin() + static_cast<ptrdiff_t>(i) * config.block_bytes);
  return std::make_unique<UdpSender>(config, std::move(fd), env, std::move(datagrams), batch, gso);
}

}  // namespace

Result<std::unique_ptr<Flow>> MakeUdpFlow(const FlowConfig& config, net::UniqueFd fd, FlowEnv env) {
  if (config.sender) return MakeUdpSender(config, std::move(fd), env);
  const bool gro = config.udp_offload && EnableOffload(config, fd.get(), *env.sys);
  return std::make_unique<UdpReceiver>(config, std::move(fd), env, gro);
}

UdpSender::UdpSender(const FlowConfig& config, net::UniqueFd fd, FlowEnv env,
                     std::vector<uint8_t> batch, uint32_t batch_datagrams, bool gso)
    : Flow(config, std::move(fd), env),
      batch_(std::move(batch)),
      msgs_(batch_datagrams),
      iovs_(batch_datagrams),
      batch_datagrams_(batch_datagrams),
      max_datagrams_per_wakeup_(
          std::max<uint32_t>(kMaxWakeupBytes / config.block_bytes, batch_datagrams)),
      burst_(std::max<uint32_t>(config.burst, 1)),
      gso_(gso) {
  NB_CHECK(config.block_bytes >= protocol::UdpHeaderBytes(config.udp_counters_64bit));
  NB_CHECK(batch_datagrams >= 1 &&
           batch_.size() == static_cast<size_t>(config.block_bytes) * batch_datagrams);
  for (uint32_t i = 0; i < batch_datagrams; ++i) {
    iovs_[i] =
        iovec{batch_.data() + static_cast<size_t>(i) * config.block_bytes, config.block_bytes};
    msgs_[i] = mmsghdr{};
    msgs_[i].msg_hdr.msg_iov = &iovs_[i];
    msgs_[i].msg_hdr.msg_iovlen = 1;
  }
}

void UdpSender::Begin(MonoTime now) {
  budgeted_ = !env_.budget->unlimited();
  if (paced()) {
    pacer_.emplace(config_.rate_bits_per_second, now);
    interest_ = 0;  // the first pacing tick starts sending
  } else {
    interest_ = EPOLLOUT;
  }
}

Result<FlowState> UdpSender::OnEvents(uint32_t events) {
  if (events & (EPOLLERR | EPOLLHUP)) {
    // A connected UDP socket learns of an ICMP error (port unreachable) as a pending SO_ERROR.
    auto state = CheckSocketError();
    if (!state || *state != FlowState::kActive) return state;
  }
  if (!(events & EPOLLOUT)) return FlowState::kActive;
  if (pacer_) {
    const MonoTime now = std::chrono::steady_clock::now();
    return Pump(&now);
  }
  return Pump(nullptr);
}

Result<FlowState> UdpSender::OnPacingTick(MonoTime now) {
  if (interest_ != 0) return FlowState::kActive;  // waiting for room: EPOLLOUT resumes us
  return Pump(&now);
}

Result<FlowState> UdpSender::Pump(const MonoTime* now) {
  uint32_t sent_this_wakeup = 0;
  while (sent_this_wakeup < max_datagrams_per_wakeup_) {
    uint64_t want = std::min(batch_datagrams_, max_datagrams_per_wakeup_ - sent_this_wakeup);
    // One pacing decision per batch: the pacer says how many datagrams are due, not just
    // whether one is, so batching keeps the schedule a per-datagram check would keep.
    if (now != nullptr)
      want = std::min(want, pacer_->BlocksAllowed(*now, local_bytes_, config_.block_bytes, burst_));
    if (want == 0) break;
    const uint32_t ready =
        std::min<uint32_t>(Reserve(static_cast<uint32_t>(want)), static_cast<uint32_t>(want));
    if (ready == 0) {
      interest_ = 0;
      return FlowState::kDone;
    }
    uint32_t sent = 0;
    auto outcome = SendBatch(ready, &sent);
    if (!outcome) {
      auto state = Failure("send", outcome.error().sys_errno);
      if (!state) return state;
      interest_ = 0;
      return state;
    }
    Account(sent);
    sent_this_wakeup += sent;
    if (*outcome == Outcome::kWouldBlock || sent < ready) {
      interest_ = EPOLLOUT;
      return FlowState::kActive;
    }
  }
  // A paced flow sleeps until the next tick; an unpaced one stays on level-triggered EPOLLOUT.
  interest_ = pacer_ ? 0u : static_cast<uint32_t>(EPOLLOUT);
  return FlowState::kActive;
}

Result<FlowState> UdpSender::RunBlocking() {
  if (auto s = BlockWithTimeout(fd()); !s) return tl::unexpected(s.error());
  send_flags_ = MSG_NOSIGNAL;
  const std::atomic<bool>& stopping = *env_.stopping;
  while (!stopping.load(std::memory_order_acquire)) {
    const uint32_t ready = std::min(Reserve(batch_datagrams_), batch_datagrams_);
    if (ready == 0) return FlowState::kDone;
    uint32_t sent = 0;
    auto outcome = SendBatch(ready, &sent);
    if (!outcome) return Failure("send", outcome.error().sys_errno);
    // kWouldBlock: the send timed out (the socket stayed full for kAloneWaitMs) or the device
    // queue was full (ENOBUFS); the unsent datagrams stay reserved for the next call.
    Account(sent);
  }
  return FlowState::kActive;
}

uint32_t UdpSender::Reserve(uint32_t want) {
  while (reserved_ < want) {
    if (budgeted_ && env_.budget->Reserve(config_.block_bytes, /*exact=*/false) == 0) break;
    ++reserved_;
  }
  return reserved_;
}

void UdpSender::StampHeaders(uint32_t count) {
  // CLOCK_MONOTONIC, as iperf 3.12 stamps its datagrams (spec section 8); through the vDSO, so
  // no system call, and once per batch: the kernel takes the whole batch in one call.
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  protocol::UdpHeader header;
  header.sec = static_cast<uint32_t>(now.tv_sec);
  header.usec = static_cast<uint32_t>(now.tv_nsec / 1000);
  for (uint32_t i = 0; i < count; ++i) {
    header.seq = next_seq_ + i;
    protocol::EncodeUdpHeader(header, config_.udp_counters_64bit,
                              batch_.data() + static_cast<size_t>(i) * config_.block_bytes);
  }
}

Result<UdpSender::Outcome> UdpSender::SendBatch(uint32_t count, uint32_t* sent) {
  StampHeaders(count);
  if (gso_ && count > 1) return SendGso(count, sent);
  return SendMmsg(count, sent);
}

Result<UdpSender::Outcome> UdpSender::SendGso(uint32_t count, uint32_t* sent) {
  *sent = 0;
  const size_t bytes = static_cast<size_t>(count) * config_.block_bytes;
  for (;;) {
    const net::SysResult r = env_.sys->Send(fd(), batch_.data(), bytes, send_flags_);
    if (!r.failed()) {
      *sent = count;
      return Outcome::kSent;
    }
    if (r.err == EINTR) continue;
    // ENOBUFS: the qdisc or device queue is full (udp_sendmsg passes it up); the same
    // datagrams go out, with fresh timestamps, when there is room.
    if (r.err == EAGAIN || r.err == ENOBUFS) return Outcome::kWouldBlock;
    // udp_send_skb (net/ipv4/udp.c) refuses a GSO send with EINVAL when a datagram plus its
    // headers exceeds the path MTU, and with EIO when the device cannot checksum it: the
    // datagrams are fine one by one, so this flow goes on without the offload.
    if (r.err == EINVAL || r.err == EIO) {
      LogWarning("stream " + std::to_string(config_.id) +
                 ": the kernel refused a UDP_SEGMENT send (" + std::strerror(r.err) +
                 "); sending its " + std::to_string(config_.block_bytes) +
                 "-byte datagrams without segmentation offload");
      gso_ = false;
      if (auto s = net::SetUdpSegment(*env_.sys, fd(), 0); !s) return tl::unexpected(s.error());
      return SendMmsg(count, sent);
    }
    return Fail("send", r.err);
  }
}

Result<UdpSender::Outcome> UdpSender::SendMmsg(uint32_t count, uint32_t* sent) {
  *sent = 0;
  for (;;) {
    const net::SysResult r = env_.sys->SendMmsg(fd(), msgs_.data(), count, send_flags_);
    if (!r.failed()) {
      // Fewer than asked: the socket filled up after the r.value-th datagram.
      *sent = static_cast<uint32_t>(r.value);
      return *sent < count ? Outcome::kWouldBlock : Outcome::kSent;
    }
    if (r.err == EINTR) continue;
    if (r.err == EAGAIN || r.err == ENOBUFS) return Outcome::kWouldBlock;
    return Fail("send", r.err);
  }
}

void UdpSender::Account(uint32_t datagrams) {
  if (datagrams == 0) return;
  reserved_ -= datagrams;
  next_seq_ += datagrams;
  local_bytes_ += static_cast<uint64_t>(datagrams) * config_.block_bytes;
  local_blocks_ += datagrams;
  PublishBytes();
  packets_.store(local_blocks_, std::memory_order_relaxed);
}

}  // namespace nicbench::engine
