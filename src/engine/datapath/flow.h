// Flow: one data socket of a test with its role, as a small state machine driven by the worker
// that owns it (engine/worker.h). The worker hands it epoll events and pacing ticks; the flow
// does the I/O, keeps its counters, and says which events it wants next. Internal to the engine;
// DataPath (data_path.h) is the public face.
//
// Thread safety: every method except Snapshot() runs on the owning worker's thread. Snapshot()
// reads the counters, which the worker publishes with relaxed atomic stores, from any thread.
#pragma once

#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "base/clock.h"
#include "base/result.h"
#include "engine/datapath/data_path.h"
#include "engine/datapath/flow_budget.h"
#include "net/sys_calls.h"
#include "net/unique_fd.h"

namespace nicbench::engine {

// What a flow needs from its surroundings; all pointers outlive the flow.
class PayloadCache;
class WorkerBuffers;

struct FlowEnv {
  net::SysCalls* sys = nullptr;
  SharedBudget* budget = nullptr;
  const std::atomic<bool>* stopping = nullptr;  // set by DataPath::Stop before the loops wake
  PayloadCache* payloads = nullptr;  // the test's shared sender payloads; null = one per flow
};

// Bytes a flow may move per wakeup before the worker looks at its other fds (the stop eventfd,
// other flows). Large enough that epoll_wait costs little per byte, small enough that a stop
// or a sibling flow waits at most a few milliseconds.
inline constexpr uint32_t kMaxWakeupBytes = 4u << 20;

// The flags of a flow's own sends: never wait (the worker waits in epoll), and a peer that is
// gone is an error to report, not a SIGPIPE.
inline constexpr int kSendFlags = MSG_DONTWAIT | MSG_NOSIGNAL;

// The per-wakeup bytes for a worker with `flows` flows: a turn over all of them moves about
// 32 MiB (at least one block each), so with 500 flows on a thread each gets a block per turn
// and every flow is served every few tens of milliseconds, instead of 4 MiB each and a turn of
// 2 GB (which left a 5 s test's flows with one or two turns each: the slowest moved half an
// even share).
inline uint32_t WakeupBytesFor(size_t flows) {
  constexpr uint64_t kTurnBytes = 32u << 20;
  return static_cast<uint32_t>(
      std::min<uint64_t>(kMaxWakeupBytes, kTurnBytes / std::max<size_t>(flows, 1)));
}

// A flow running blocking calls (Flow::RunBlocking, and the request/response flows' lone path)
// makes its socket blocking with send and receive timeouts of this much, so a blocked call
// still sees DataPath::Stop soon.
inline constexpr int kAloneWaitMs = 50;
Status BlockWithTimeout(int fd, int wait_ms = kAloneWaitMs);
// The send and receive timeouts alone (SO_SNDTIMEO, SO_RCVTIMEO), for a socket made blocking.
Status SetWaits(int fd, int wait_ms);

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

  // Called by the worker the flow is dealt to, before its thread starts: the flow may borrow
  // the worker's shared buffers (flow_payload.h). A flow never attached keeps its own.
  virtual Status Attach(WorkerBuffers&) { return Ok(); }
  // Bytes the flow may move per wakeup before its worker turns to the other flows (see
  // WakeupBytesFor). Set by the worker before its thread starts; read at Begin.
  void set_wakeup_bytes(uint32_t bytes) { wakeup_bytes_ = bytes; }
  // Called once by the worker when its loop starts; `now` starts the pacer.
  virtual void Begin(MonoTime now) = 0;
  // Handles the epoll events reported for fd(). An error ends the flow and is reported by Join.
  virtual Result<FlowState> OnEvents(uint32_t events) = 0;
  // Called on each tick of the worker's pacing timer when paced() is true.
  virtual Result<FlowState> OnPacingTick(MonoTime now) = 0;

  // A flow alone on its worker may run its whole test in blocking system calls instead of the
  // epoll loop (true here): one call per wait instead of an epoll_wait beside a non-blocking
  // call that often finds the queue nearly empty, and no epoll entry on the socket's wait queue
  // for the kernel to call back on every packet (on loopback, on the peer's CPU).
  virtual bool BlocksWhenAlone() const { return false; }
  // The blocking run, called once by the worker's thread after Begin instead of its loop; the
  // socket is not in the worker's epoll set. Returns kActive once *env.stopping is set (a flow
  // waits at most kAloneWaitMs in one call, so Stop takes effect that soon), or the flow's end.
  virtual Result<FlowState> RunBlocking() { return FlowState::kActive; }

  // A bulk sender that may wait for its turn among many (engine/turn_window.h): its worker
  // may leave it unarmed for a while and it sends as soon as it is armed again.
  virtual bool TakesTurns() const { return false; }
  // Bytes moved so far (the worker's own count; the worker's thread only).
  uint64_t moved_bytes() const { return local_bytes_; }

  // Called once after the workers have stopped (DataPath::Join): a -F flow syncs its file and
  // reports its figures.
  virtual void Finish() {}

  // The epoll events the flow wants now (EPOLLIN, EPOLLOUT or 0); the worker re-arms on change.
  uint32_t interest() const { return interest_; }
  // Paced senders, UDP request/response clients (their timeouts) and paced request/response
  // clients (--rr-rate) get the timer's ticks.
  bool paced() const {
    return (config_.rate_bits_per_second != 0 && config_.sender) ||
           (config_.rr.enabled() && config_.sender &&
            config_.transport == record::Transport::kUdp) ||
           (config_.rr.rate_per_second != 0 && config_.sender);
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
  // A sender woken with EPOLLERR: the socket's pending error (SO_ERROR, which clears it) as
  // Failure("send"), or kActive when there is none.
  Result<FlowState> CheckSocketError() const;
  // The end of a TCP receiver's reads in one wakeup: `r` is a recv that moved no bytes
  // (r.value <= 0). Publishes the bytes read so far, then: the peer's end of stream closes the
  // flow, EAGAIN waits for the next wakeup, another error is Failure("recv"); nullopt on EINTR
  // (read again).
  std::optional<Result<FlowState>> EndOfReads(const net::SysResult& r);

  // Publishes the worker-local counters (relaxed stores: the worker is the only writer), and a
  // receiver's news to the receive budget when the test ends on one (flow_budget.h), after the
  // stores, so the controller woken by it reads the counters that met it. A flow with more to
  // publish (UDP's sequence counts) stores that first.
  void PublishBytes() {
    const uint64_t new_bytes = local_bytes_ - bytes_.load(std::memory_order_relaxed);
    const uint64_t new_blocks = local_blocks_ - blocks_.load(std::memory_order_relaxed);
    bytes_.store(local_bytes_, std::memory_order_relaxed);
    blocks_.store(local_blocks_, std::memory_order_relaxed);
    if (!config_.sender && env_.budget != nullptr && env_.budget->receive_tracked() &&
        (new_bytes | new_blocks) != 0) {
      env_.budget->AddReceived(new_bytes, new_blocks);
    }
  }

  // Whole blocks per wakeup: wakeup_bytes_ / block, at least one.
  uint32_t BlocksPerWakeup() const {
    return std::max<uint32_t>(wakeup_bytes_ / std::max<uint32_t>(config_.block_bytes, 1), 1);
  }

  const FlowConfig config_;
  net::UniqueFd fd_;
  uint32_t wakeup_bytes_ = kMaxWakeupBytes;
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
