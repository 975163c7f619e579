// Flow: one data socket of a test with its role, as a small state machine driven by the worker
// that owns it (engine/worker.h). The worker hands it epoll events and pacing ticks; the flow
// does the I/O, keeps its counters, and says which events it wants next. Internal to the engine;
// DataPath (data_path.h) is the public face.
//
// Thread safety: every method except Snapshot() runs on the owning worker's thread. Snapshot()
// reads the counters, which the worker publishes with relaxed atomic stores, from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "base/clock.h"
#include "base/result.h"
#include "engine/data_path.h"
#include "engine/flow_budget.h"
#include "net/sys_calls.h"
#include "net/unique_fd.h"

namespace nicbench::engine {

// What a flow needs from its surroundings; all pointers outlive the flow.
class PayloadCache;

struct FlowEnv {
  net::SysCalls* sys = nullptr;
  SharedBudget* budget = nullptr;
  const std::atomic<bool>* stopping = nullptr;  // set by DataPath::Stop before the loops wake
  PayloadCache* payloads = nullptr;  // the test's shared sender payloads; null = one per flow
};

enum class FlowState {
  kActive,  // keep it in the loop
  kDone,    // a sender that has sent its share of the budget
  kClosed,  // the peer closed the connection (receiver EOF) or the test stopped under it
};

class Flow {
 public:
  Flow(const FlowConfig& config, net::UniqueFd fd, FlowEnv env);
  virtual ~Flow() = default;
  Flow(const Flow&) = delete;
  Flow& operator=(const Flow&) = delete;

  // Called once by the worker when its loop starts; `now` starts the pacer.
  virtual void Begin(MonoTime now) = 0;
  // Handles the epoll events reported for fd(). An error ends the flow and is reported by Join.
  virtual Result<FlowState> OnEvents(uint32_t events) = 0;
  // Called on each tick of the worker's pacing timer when paced() is true.
  virtual Result<FlowState> OnPacingTick(MonoTime now) = 0;

  // The epoll events the flow wants now (EPOLLIN, EPOLLOUT or 0); the worker re-arms on change.
  uint32_t interest() const { return interest_; }
  // Paced senders and UDP request/response clients (their timeouts) get the timer's ticks.
  bool paced() const {
    return (config_.rate_bits_per_second != 0 && config_.sender) ||
           (config_.rr.enabled() && config_.sender && config_.transport == record::Transport::kUdp);
  }
  int fd() const { return fd_.get(); }
  int id() const { return config_.id; }
  bool sender() const { return config_.sender; }
  const FlowConfig& config() const { return config_; }

  FlowCounters Snapshot() const;
  // Request/response flows add their transaction counts to a snapshot (rr_flow.h).
  virtual void FillRr(FlowCounters&) const {}

 protected:
  // Turns a failed syscall into the flow's outcome: a reset or broken pipe once the test is
  // stopping is the normal end of a connection, anything else is an error naming the stream.
  Result<FlowState> Failure(const char* call, int err) const;

  // Publishes the worker-local counters (relaxed stores: the worker is the only writer).
  void PublishBytes() {
    bytes_.store(local_bytes_, std::memory_order_relaxed);
    blocks_.store(local_blocks_, std::memory_order_relaxed);
  }

  const FlowConfig config_;
  net::UniqueFd fd_;
  FlowEnv env_;
  uint32_t interest_ = 0;
  uint64_t local_bytes_ = 0;
  uint64_t local_blocks_ = 0;

  std::atomic<uint64_t> bytes_{0};
  std::atomic<uint64_t> blocks_{0};
  std::atomic<uint64_t> packets_{0};
  std::atomic<uint64_t> lost_{0};
  std::atomic<uint64_t> out_of_order_{0};
  std::atomic<double> jitter_seconds_{0};
};

// Makes the flow for `config`: TCP or UDP, sender or receiver, with its buffers, memfd or
// SO_ZEROCOPY set up. Takes ownership of `fd` (closed on failure too).
Result<std::unique_ptr<Flow>> MakeFlow(const FlowConfig& config, net::UniqueFd fd, FlowEnv env);

}  // namespace nicbench::engine
