#include "engine/flow_udp.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>

#include <cerrno>

#include "base/check.h"
#include "protocol/wire.h"

namespace nicbench::engine {
namespace {

constexpr uint32_t kMaxDatagramsPerWakeup = 2048;

// CLOCK_MONOTONIC, as iperf 3.12 stamps its datagrams (spec section 8). Through the vDSO, so
// no system call.
timespec MonotonicNow() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts;
}

double ToSeconds(const timespec& ts) { return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9; }

}  // namespace

UdpSender::UdpSender(const FlowConfig& config, net::UniqueFd fd, FlowEnv env, std::vector<uint8_t> block)
    : SenderFlow(config, std::move(fd), env), datagram_(std::move(block)) {
  NB_CHECK(datagram_.size() >= protocol::UdpHeaderBytes(config.udp_counters_64bit));
}

Result<SenderFlow::SendOutcome> UdpSender::SendBlock() {
  if (!pending_) {
    if (ReserveBlock(/*exact=*/false) == 0) return SendOutcome::kBudgetSpent;
    pending_ = true;
  }
  for (;;) {
    const timespec now = MonotonicNow();
    protocol::UdpHeader header;
    header.sec = static_cast<uint32_t>(now.tv_sec);
    header.usec = static_cast<uint32_t>(now.tv_nsec / 1000);
    header.seq = next_seq_;
    protocol::EncodeUdpHeader(header, config_.udp_counters_64bit, datagram_.data());
    const net::SysResult r = env_.sys->Send(fd(), datagram_.data(), datagram_.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (r.failed()) {
      if (r.err == EINTR) continue;
      // ENOBUFS: the qdisc or device queue is full (udp_sendmsg passes it up); the same
      // datagram goes out, with a fresh timestamp, when there is room.
      if (r.err == EAGAIN || r.err == ENOBUFS) return SendOutcome::kWouldBlock;
      auto state = Failure("send", r.err);
      if (!state) return tl::unexpected(state.error());
      return SendOutcome::kBudgetSpent;
    }
    pending_ = false;
    ++next_seq_;
    local_bytes_ += static_cast<uint64_t>(r.value);
    ++local_blocks_;
    PublishBytes();
    packets_.store(local_blocks_, std::memory_order_relaxed);
    return SendOutcome::kBlock;
  }
}

UdpReceiver::UdpReceiver(const FlowConfig& config, net::UniqueFd fd, FlowEnv env)
    : Flow(config, std::move(fd), env), buffer_(new uint8_t[kMaxUdpDatagramBytes]) {}

void UdpReceiver::Begin(MonoTime) { interest_ = EPOLLIN; }

Result<FlowState> UdpReceiver::OnEvents(uint32_t) {
  for (uint32_t i = 0; i < kMaxDatagramsPerWakeup; ++i) {
    const net::SysResult r = env_.sys->Recv(fd(), buffer_.get(), kMaxUdpDatagramBytes, MSG_DONTWAIT);
    if (r.failed()) {
      if (r.err == EINTR) continue;
      if (r.err == EAGAIN) break;
      // A connected UDP socket reports an earlier ICMP port unreachable on the next call; the
      // sender may simply not be there yet or any more. Not a reason to end the test.
      if (r.err == ECONNREFUSED) continue;
      PublishStats();
      return Failure("recv", r.err);
    }
    local_bytes_ += static_cast<uint64_t>(r.value);
    ++local_blocks_;
    auto header = protocol::DecodeUdpHeader(buffer_.get(), static_cast<size_t>(r.value), config_.udp_counters_64bit);
    if (!header) continue;  // too short to carry a header: counted as bytes only
    const double sent = header->sec + header->usec * 1e-6;
    stats_.OnPacket(header->seq, sent, ToSeconds(MonotonicNow()));
  }
  PublishStats();
  return FlowState::kActive;
}

void UdpReceiver::PublishStats() {
  PublishBytes();
  packets_.store(stats_.packets(), std::memory_order_relaxed);
  lost_.store(stats_.lost(), std::memory_order_relaxed);
  out_of_order_.store(stats_.out_of_order(), std::memory_order_relaxed);
  jitter_seconds_.store(stats_.jitter_seconds(), std::memory_order_relaxed);
}

}  // namespace nicbench::engine
