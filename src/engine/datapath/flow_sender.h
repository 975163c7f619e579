// SenderFlow: what every TCP sending flow shares: the write loop (level-triggered EPOLLOUT,
// blocks until EAGAIN or a per-wakeup cap), pacing (engine/pacer.h) and the end on budget.
// Subclasses only know how to move one block (send/sendfile/MSG_ZEROCOPY). A UDP sender moves a
// batch of datagrams per call and has its own loop of the same shape (engine/flow_udp.h).
// Thread safety: as Flow.
#pragma once

#include <optional>

#include "engine/datapath/flow.h"
#include "engine/datapath/pacer.h"

namespace nicbench::engine {

class SenderFlow : public Flow {
 public:
  SenderFlow(const FlowConfig& config, net::UniqueFd fd, FlowEnv env);

  void Begin(MonoTime now) override;
  Result<FlowState> OnEvents(uint32_t events) override;
  Result<FlowState> OnPacingTick(MonoTime now) override;
  // Alone on its worker, an unpaced sender sleeps in send(2) or sendfile(2) while the socket is
  // full, as iperf3's stream threads do, instead of in epoll_wait beside a non-blocking call.
  // Not in a -n/-k test: a stock iperf3 server closes its streams on TEST_END with what it has
  // not read yet, and with the blocking sender a stock server under load came 64 KiB short of
  // `-n 10M` (InteropTest.NicbenchAgainstIperfServerBytesExact), which the loop's sender never did.
  bool BlocksWhenAlone() const override {
    return !paced() && env_.budget->unlimited() && BlocksWhenAloneToo();
  }
  Result<FlowState> RunBlocking() override;
  // Unpaced copying and sendfile senders take turns among many; a paced one is held back by
  // its rate already, a MSG_ZEROCOPY one waits on its completions and a -F one on its file
  // (the senders BlocksWhenAloneToo leaves out).
  bool TakesTurns() const override { return !paced() && BlocksWhenAloneToo(); }

 protected:
  enum class SendOutcome {
    kBlock,            // one whole block (or datagram) went out
    kWouldBlock,       // the socket is full: wait for EPOLLOUT
    kWaitCompletions,  // MSG_ZEROCOPY ran out of option memory: wait for EPOLLERR completions
    kBudgetSpent,      // nothing left to send
  };
  // Sends the block in progress, or reserves and sends a new one.
  virtual Result<SendOutcome> SendBlock() = 0;
  // EPOLLERR: a MSG_ZEROCOPY sender drains its completions here; true if it may send again.
  virtual Result<bool> OnErrorQueue() { return false; }
  // True for a sender that can block when alone (not MSG_ZEROCOPY, which needs the loop's
  // completion events, nor a -F sender, whose blocks come from its file).
  virtual bool BlocksWhenAloneToo() const { return false; }
  // Called once before a blocking run: later SendBlock calls may block (no MSG_DONTWAIT).
  virtual void SendBlocking() {}

  // Next block's size from the shared budget (0 = spent); no atomics when there is no budget.
  uint32_t ReserveBlock(bool exact) {
    return budgeted_ ? env_.budget->Reserve(config_.block_bytes, exact) : config_.block_bytes;
  }

 private:
  // Sends blocks until the socket is full or the wakeup cap; `pacer` gates each burst.
  Result<FlowState> Pump(const MonoTime* now);

  bool budgeted_ = false;  // read at Begin: SetBudget comes after AddFlow
  const uint32_t burst_;
  uint32_t max_blocks_per_wakeup_ = 1;  // set at Begin (Flow::BlocksPerWakeup)
  std::optional<Pacer> pacer_;
  bool waiting_completions_ = false;
};

}  // namespace nicbench::engine
