#include "engine/server_budget.h"

#include <algorithm>

#include "engine/flow_udp.h"
#include "engine/common.h"

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

uint64_t TestBufferBytes(const record::TestSpec& spec) {
  const uint64_t block = std::max<uint32_t>(record::EffectiveBlockBytes(spec), 1);
  const bool udp = spec.transport == record::Transport::kUdp;
  uint64_t bytes = 0;
  bool tcp_payload = false;
  for (const StreamRole& role : PlanStreams(spec, /*is_client=*/false)) {
    if (!role.sender) {
      bytes += udp ? UdpReceiverBufferBytes(static_cast<uint32_t>(block), spec.udp_offload) : block;
    } else if (udp) {
      bytes += UdpSenderBufferBytes(static_cast<uint32_t>(block));
    } else {
      tcp_payload = true;
    }
  }
  // The shared payload, and its memfd copy for sendfile.
  if (tcp_payload) bytes += spec.zero_copy == record::ZeroCopy::kSendfile ? 2 * block : block;
  return bytes;
}

uint64_t TestDescriptors(const record::TestSpec& spec, int workers) {
  const uint64_t streams = PlanStreams(spec, /*is_client=*/false).size();
  // control + stop eventfd + the test loop's epoll and timerfd + done eventfd + a memfd + the UDP
  // set-up socket + two /proc files open at once = 9; each worker: epoll, eventfd, timerfd.
  return streams + 9 + 3 * static_cast<uint64_t>(std::max(workers, 1));
}

}  // namespace nicbench::engine
