#include "engine/conversation/server_budget.h"

#include <algorithm>

#include "engine/conversation/stream_plan.h"
#include "engine/datapath/flow_udp.h"

namespace nicbench::engine {

void ResourceBudget::set_limit(uint64_t limit) {
  std::lock_guard<std::mutex> lock(mutex_);
  limit_ = limit;
}

bool ResourceBudget::TryReserve(uint64_t amount) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (amount > limit_ || in_use_ > limit_ - amount) return false;
  in_use_ += amount;
  return true;
}

void ResourceBudget::Release(uint64_t amount) {
  std::lock_guard<std::mutex> lock(mutex_);
  in_use_ -= std::min(amount, in_use_);
}

uint64_t ResourceBudget::in_use() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return in_use_;
}

uint64_t ResourceBudget::limit() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return limit_;
}

uint64_t TestBufferBytes(const record::TestSpec& spec, int workers) {
  if (spec.rr.enabled()) {
    // Each server flow (rr_flow.cc): a read buffer of at least 64 KiB (UDP: a datagram) and a
    // response buffer, each at most 1 MiB.
    const uint64_t in = std::clamp<uint64_t>(uint64_t{spec.rr.request_bytes} * spec.rr.burst,
                                             kMaxUdpDatagramBytes, 1 << 20);
    const uint64_t out =
        std::clamp<uint64_t>(uint64_t{spec.rr.response_bytes} * spec.rr.burst, 1, 1 << 20);
    return static_cast<uint64_t>(spec.parallel) * (in + out);
  }
  const uint64_t block = std::max<uint32_t>(record::EffectiveBlockBytes(spec), 1);
  const bool udp = spec.transport == record::Transport::kUdp;
  const uint64_t threads = static_cast<uint64_t>(std::max(workers, 1));
  uint64_t bytes = 0;
  uint64_t tcp_senders = 0, tcp_receivers = 0;
  for (const StreamRole& role : PlanStreams(spec, /*is_client=*/false)) {
    if (!role.sender) {
      if (udp)
        bytes += UdpReceiverBufferBytes(static_cast<uint32_t>(block), spec.udp_offload);
      else
        ++tcp_receivers;
    } else if (udp) {
      bytes += UdpSenderBufferBytes(static_cast<uint32_t>(block));
    } else {
      ++tcp_senders;
    }
  }
  // Flows are dealt round-robin, so at most this many workers hold receivers or senders.
  bytes += std::min(tcp_receivers, threads) * block;
  if (tcp_senders > 0) {
    const bool zero_copy = spec.zero_copy != record::ZeroCopy::kOff;
    const uint64_t copies = zero_copy ? std::min(tcp_senders, threads) : 1;
    // The copying payload, or each worker's zero-copy payload with its memfd for sendfile.
    const uint64_t each = spec.zero_copy == record::ZeroCopy::kSendfile ? 2 * block : block;
    bytes += copies * each;
  }
  return bytes;
}

uint64_t TestDescriptors(const record::TestSpec& spec, int workers) {
  uint64_t streams = PlanStreams(spec, /*is_client=*/false).size();
  // CRR: each flow's listener, its epoll set and the connections in flight (--rr-burst).
  if (spec.rr.mode == record::RrMode::kCrr) streams *= 3 + spec.rr.burst;
  // control + stop eventfd + the measuring loop's epoll and timerfd + done eventfd + a memfd + the
  // UDP set-up socket + two /proc files open at once = 9; each worker: epoll, eventfd, timerfd.
  return streams + 9 + 3 * static_cast<uint64_t>(std::max(workers, 1));
}

}  // namespace nicbench::engine
