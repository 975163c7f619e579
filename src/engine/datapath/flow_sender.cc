#include "engine/datapath/flow_sender.h"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>

namespace nicbench::engine {

SenderFlow::SenderFlow(const FlowConfig& config, net::UniqueFd fd, FlowEnv env)
    : Flow(config, std::move(fd), env), burst_(std::max<uint32_t>(config.burst, 1)) {}

void SenderFlow::Begin(MonoTime now) {
  budgeted_ = !env_.budget->unlimited();
  max_blocks_per_wakeup_ = BlocksPerWakeup();
  if (paced()) {
    pacer_.emplace(config_.rate_bits_per_second, now);
    interest_ = 0;  // the first pacing tick starts sending
  } else {
    interest_ = EPOLLOUT;
  }
}

Result<FlowState> SenderFlow::OnEvents(uint32_t events) {
  if (events & EPOLLERR) {
    auto may_send = OnErrorQueue();
    if (!may_send) return tl::unexpected(may_send.error());
    if (*may_send && waiting_completions_) {
      waiting_completions_ = false;
      interest_ = pacer_ ? 0u : static_cast<uint32_t>(EPOLLOUT);
    }
    auto state = CheckSocketError();
    if (!state || *state != FlowState::kActive) return state;
  }
  // TCP reports EPOLLHUP once both directions are shut (tcp_poll in net/ipv4/tcp.c): nothing
  // more can be sent.
  if (events & EPOLLHUP) return Failure("send", EPIPE);
  if (!(events & EPOLLOUT) || waiting_completions_) return FlowState::kActive;
  if (pacer_) {
    const MonoTime now = std::chrono::steady_clock::now();
    return Pump(&now);
  }
  return Pump(nullptr);
}

Result<FlowState> SenderFlow::OnPacingTick(MonoTime now) {
  // Waiting for socket room or zero-copy completions: the event, not the tick, resumes us.
  if (interest_ != 0 || waiting_completions_) return FlowState::kActive;
  return Pump(&now);
}

Result<FlowState> SenderFlow::Pump(const MonoTime* now) {
  uint32_t sent = 0;
  while (sent < max_blocks_per_wakeup_) {
    if (now != nullptr && !pacer_->Green(*now, local_bytes_)) break;
    // A paced flow checks its rate after each burst; an unpaced one is bounded by the cap alone.
    const uint32_t burst = now != nullptr ? burst_ : max_blocks_per_wakeup_;
    for (uint32_t i = 0; i < burst && sent < max_blocks_per_wakeup_; ++i, ++sent) {
      auto outcome = SendBlock();
      if (!outcome) return tl::unexpected(outcome.error());
      switch (*outcome) {
        case SendOutcome::kBlock: break;
        case SendOutcome::kWouldBlock: interest_ = EPOLLOUT; return FlowState::kActive;
        case SendOutcome::kWaitCompletions:
          waiting_completions_ = true;
          interest_ = 0;
          return FlowState::kActive;
        case SendOutcome::kBudgetSpent: interest_ = 0; return FlowState::kDone;
      }
    }
  }
  // A paced flow sleeps until the next tick; an unpaced one stays on level-triggered EPOLLOUT.
  interest_ = pacer_ ? 0u : static_cast<uint32_t>(EPOLLOUT);
  return FlowState::kActive;
}

Result<FlowState> SenderFlow::RunBlocking() {
  if (auto s = BlockWithTimeout(fd()); !s) return tl::unexpected(s.error());
  SendBlocking();
  const std::atomic<bool>& stopping = *env_.stopping;
  while (!stopping.load(std::memory_order_acquire)) {
    auto outcome = SendBlock();
    if (!outcome) return tl::unexpected(outcome.error());
    // kWouldBlock: the socket stayed full for kAloneWaitMs; the block in progress goes on.
    if (*outcome == SendOutcome::kBudgetSpent) return FlowState::kDone;
  }
  return FlowState::kActive;
}

}  // namespace nicbench::engine
