// Request/response flows (docs/rr.md). The client end of a flow keeps `burst` requests of
// request_bytes in flight, reads response_bytes for each and records each transaction's time in
// an AtomicLatencyHistogram (one writer: the worker that owns the flow; the interval loop reads
// it through Snapshot). The server end answers each whole request with a response. TCP keeps
// one connection per flow; UDP matches a response to its request by the first min(request,
// response, 8) bytes, which carry the request's sequence number and which the server copies
// back, and counts a request without a response within timeout_ms as lost (nothing is
// retransmitted; the flow sends the next one). CRR (rr_crr.cc) connects, requests, reads the
// response and closes for every transaction.
//
// Timing: one clock_gettime(CLOCK_MONOTONIC) when requests are queued and one when responses
// complete, read through the vDSO (no syscall on x86-64 and arm64 with a TSC/arch timer
// clocksource; a clocksource without vDSO support falls back to a syscall).
//
// Thread safety: as Flow.
#pragma once

#include <sys/socket.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/latency_histogram.h"
#include "engine/datapath/flow.h"

namespace nicbench::engine {

inline uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// The transaction counters of one RR flow, written by its worker only.
class RrRecorder {
 public:
  explicit RrRecorder(bool client, bool connects, bool stamps = false);
  void Transaction(uint64_t latency_ns) {
    if (latency_) latency_->Record(latency_ns);
    Bump(transactions_);
  }
  // A stamped transaction's one-way delays (FlowConfig::rr_stamps), before Transaction.
  void OneWay(uint64_t up_ns, uint64_t down_ns) {
    up_->Record(up_ns);
    down_->Record(down_ns);
  }
  void Answered() { Bump(transactions_); }
  void Connected(uint64_t ns) { connect_->Record(ns); }
  void Lost() { Bump(lost_); }
  void Late() { Bump(late_); }
  // Copies the counts into `c` (any thread).
  void Fill(FlowCounters& c) const;

 private:
  static void Bump(std::atomic<uint64_t>& a) {
    a.store(a.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  std::unique_ptr<AtomicLatencyHistogram> latency_;    // client only
  std::unique_ptr<AtomicLatencyHistogram> connect_;    // CRR client only
  std::unique_ptr<AtomicLatencyHistogram> up_, down_;  // stamped client only
  std::atomic<uint64_t> transactions_{0}, lost_{0}, late_{0};
};

// A flow with an RrRecorder; Snapshot() includes its counts.
class RrFlow : public Flow {
 public:
  RrFlow(const FlowConfig& config, net::UniqueFd fd, FlowEnv env, bool connects = false);
  Result<FlowState> OnPacingTick(MonoTime) override { return FlowState::kActive; }
  void FillRr(FlowCounters& c) const override { rr_.Fill(c); }

 protected:
  // Reserves the next transaction of a -n budget; false once it is spent.
  bool ReserveTransaction() { return env_.budget->Reserve(1, false) != 0; }
  RrRecorder rr_;
};

// The lone-flow path (FlowConfig::rr_alone) makes the socket blocking with BlockWithTimeout
// (flow.h).

// One wait for a message under --rr-spin: while the spin lasts a receive is made with
// MSG_DONTWAIT and an EAGAIN is tried again at once; after it, the receive blocks as usual.
// spin_ns 0 = no spin (the first receive blocks).
class SpinWait {
 public:
  explicit SpinWait(uint64_t spin_ns) : until_(spin_ns == 0 ? 0 : MonotonicNs() + spin_ns) {}
  int flags() const { return until_ != 0 ? MSG_DONTWAIT : 0; }
  // After an EAGAIN: true while the spin lasts (receive again at once); false once it has run
  // out, and the next receive blocks.
  bool Again() {
    if (until_ == 0) return false;
    if (MonotonicNs() < until_) return true;
    until_ = 0;
    return true;  // one blocking receive follows at once
  }

 private:
  uint64_t until_;  // 0: not spinning
};

// --rr-rate: a client starts each transaction on a schedule of `rate` a second, whether or not
// the ones before were answered (up to --rr-burst in flight), so a slow answer does not delay
// the probes after it, as the responsiveness draft sends them. Paced flows get the worker's
// timer ticks (Flow::paced) and call Take at each tick and each event. A start that comes late
// (every slot was in flight) goes at once and the schedule restarts from it: no burst to
// catch up. The first start is half a period after the first try, not at once: both ends take
// their first host snapshot as the data starts, and a transaction then waits for them
// (PacingTimerSpec, worker.h, keeps the later ones off the interval boundaries).
class RateGate {
 public:
  explicit RateGate(uint32_t rate) : period_ns_(rate == 0 ? 0 : 1000000000u / rate) {}
  bool paced() const { return period_ns_ != 0; }
  // True (and the start is taken) when a transaction may start at `now_ns`.
  bool Take(uint64_t now_ns) {
    if (period_ns_ == 0) return true;
    if (next_ns_ == 0) next_ns_ = now_ns + period_ns_ / 2;
    if (now_ns < next_ns_) return false;
    next_ns_ = now_ns - next_ns_ > period_ns_ ? now_ns + period_ns_ : next_ns_ + period_ns_;
    return true;
  }

 private:
  uint64_t period_ns_;
  uint64_t next_ns_ = 0;  // 0: not tried yet
};

inline uint64_t SpinNs(const FlowConfig& config) { return uint64_t{config.rr.spin_us} * 1000u; }

// Blocking transfers of the lone path. kStopped: the test is stopping (a timeout found the
// stop flag set); kClosed: the peer closed the connection. `more_flags` go with every send
// (MSG_MORE: hold the last partial segment until close, which sends it with the FIN).
enum class Step { kDone, kStopped, kClosed };
Result<Step> SendAll(net::SysCalls* sys, int fd, const std::vector<uint8_t>& buf, uint64_t bytes,
                     const std::atomic<bool>& stopping, int more_flags = 0);
// spin_ns: --rr-spin for the wait (SpinWait).
Result<Step> RecvAll(net::SysCalls* sys, int fd, std::vector<uint8_t>& buf, uint64_t bytes,
                     const std::atomic<bool>& stopping, uint64_t spin_ns = 0);

// Makes the RR flow for `config` (config.rr.enabled()): client (config.sender) or server, TCP,
// UDP or CRR. CRR's server end opens its per-flow listener here and tells the client its port
// over the flow's data connection.
Result<std::unique_ptr<Flow>> MakeRrFlow(const FlowConfig& config, net::UniqueFd fd, FlowEnv env);

// Internal to rr_*.cc.
Result<std::unique_ptr<Flow>> MakeCrrClient(const FlowConfig& config, net::UniqueFd fd,
                                            FlowEnv env);
Result<std::unique_ptr<Flow>> MakeCrrServer(const FlowConfig& config, net::UniqueFd fd,
                                            FlowEnv env);
Result<std::unique_ptr<Flow>> MakeUdpRrClient(const FlowConfig& config, net::UniqueFd fd,
                                              FlowEnv env);
Result<std::unique_ptr<Flow>> MakeUdpRrServer(const FlowConfig& config, net::UniqueFd fd,
                                              FlowEnv env);

}  // namespace nicbench::engine
