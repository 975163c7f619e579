// DataPath: moves the bytes of one test. Worker threads, one epoll loop each, flows spread over
// the threads round-robin (neper's shape). A flow is one connected data socket with a role
// (sender or receiver) and a small state machine. Stop is an eventfd watched by every loop,
// never a flag polled from a signal handler. Counters are per-flow atomics written by the owning
// worker only and read by the controller at interval boundaries, so the hot path takes no lock.
//
// Thread safety: AddFlow/Start/Stop/Join/ are called by one controller thread; Snapshot may be
// called from the controller at any time after Start.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/latency_histogram.h"

#include "base/result.h"
#include "net/socket.h"
#include "record/test_spec.h"

namespace nicbench::net {
class SysCalls;
}  // namespace nicbench::net

namespace nicbench::probes {
class OwnThreads;
}  // namespace nicbench::probes

namespace nicbench::engine {

class FileTransfer;  // engine/file_io.h

struct FlowConfig {
  int fd = -1;  // connected socket; DataPath takes ownership and closes it
  int id = 0;   // iperf3 stream id (1, 3, 4, ...)
  bool sender = false;
  record::Transport transport = record::Transport::kTcp;
  uint32_t block_bytes = 128 * 1024;
  uint64_t rate_bits_per_second = 0;  // 0 = as fast as possible
  uint32_t pacing_timer_us = 1000;
  uint32_t burst = 1;
  record::ZeroCopy zero_copy = record::ZeroCopy::kOff;
  bool skip_rx_copy = false;
  uint32_t receive_low_water = 0;  // TCP receiver: SO_RCVLOWAT in bytes; 0 = the kernel's (1)
  bool udp_counters_64bit = false;
  // UDP: segmentation offload, UDP_SEGMENT on a sender and UDP_GRO on a receiver
  // (engine/flow_udp.h); the datagrams on the wire are the same.
  bool udp_offload = false;
  bool repeating_payload = false;
  // TCP sender: SO_MAX_PACING_RATE, kernel pacing (fq qdisc, or TCP's own since 4.13) on top of
  // or instead of rate_bits_per_second. 0 = unset.
  uint64_t fq_rate_bits_per_second = 0;
  // -F: this end's file (TCP only); the flow opens it, and reports its figures there at Join.
  std::shared_ptr<FileTransfer> file;
  // The receiver at the other end is nicbench, which reads every byte before it closes (a stock
  // iperf3 server closes its streams at TEST_END and drops what it has not read yet). A -F
  // sender then sends the file's pages with sendfile(2), as with -Z, instead of copying them
  // through its block: a much faster sender leaves more in a stock server's socket at TEST_END.
  bool peer_drains = false;
  // A request/response flow (engine/rr_flow.h) when rr.enabled(): the client end is the sender.
  record::RrSpec rr;
  // The test's only flow (so alone on its worker): a TCP, UDP or CRR flow with one transaction
  // in flight then runs its transactions in blocking calls, as netperf does, instead of one
  // epoll wait per message or connection (rr_flow.h, rr_crr.cc).
  bool rr_alone = false;
  // CRR: what each new connection of the flow gets, as the data streams got it: the test's
  // socket options (the server's per-flow listener passes them on to what it accepts), and on
  // the client, with -B, a bind to the data connection's local address.
  net::SocketOptions crr_options;
  bool crr_bind_local = false;
  // CRR between nicbench ends: the test's token (protocol Extension::crr_token). The client
  // begins each connection with it, before the request; the server's listener answers and counts
  // only connections that begin with it. Empty = none (the peer is an older nicbench): the
  // listener still takes connections from the test's client address only.
  std::string crr_token;
  // A TCP RR flow whose two ends made the clock exchanges (protocol/clock_exchange.h, a kept
  // probe of run --under-load): the server begins each response with its receive and send times,
  // the client records each transaction's one-way delays, up = t2 - t1 - offset and down =
  // t4 - t3 + offset, with clock_offset_ns (server clock minus client clock) the estimate it
  // chose. Needs response_bytes >= protocol::kStampBytes, and the epoll path (not rr_alone).
  bool rr_stamps = false;
  int64_t clock_offset_ns = 0;
};

// Shared end conditions across all sender flows of a test (bytes/blocks, counted after omit is
// the controller's business: these are raw totals). 0 = unlimited.
struct SendBudget {
  uint64_t bytes = 0;
  uint64_t blocks = 0;
};

// Cumulative counters of one flow since Start (never reset; the controller takes deltas).
struct FlowCounters {
  int id = 0;
  bool sender = false;
  uint64_t bytes = 0;
  uint64_t blocks = 0;  // sender: whole blocks sent; receiver: reads that returned data
  // UDP receiver (RFC 1889 jitter, loss and reordering as iperf3 counts them):
  uint64_t packets = 0;  // sender: packets sent; receiver: highest sequence seen
  uint64_t lost = 0;
  uint64_t out_of_order = 0;
  double jitter_seconds = 0;
  // Request/response flows (zero and null otherwise): transactions completed (client) or
  // answered (server); UDP requests without a response in time, and responses that came after
  // it; the client's cumulative transaction and (CRR) connect times.
  bool rr = false;  // a request/response flow
  uint64_t transactions = 0;
  uint64_t rr_lost = 0, rr_late = 0;
  std::shared_ptr<const LatencyHistogram> latency, connect_latency;
  // FlowConfig::rr_stamps, the client: the cumulative one-way delays, request and response.
  std::shared_ptr<const LatencyHistogram> up_latency, down_latency;
};

// Up to this many flows at one end, the default gives each flow a worker thread of its own,
// as iperf3 gives each stream one: a flow alone on its worker runs in blocking calls
// (Flow::BlocksWhenAlone), with no epoll_wait beside its sends or receives, and two such
// flows on one CPU take turns in the scheduler instead of in one thread's loop. On loopback
// with 2 CPUs, `-P 4 -Z` on 4 threads per end moved 1.07x what it moved on 2, and each
// receiving server thread made the system calls per GB iperf3's do (docs/engine.md).
inline constexpr int kThreadPerFlowMax = 4;

// The worker threads a DataPath of `flows` flows runs: `requested` if set (> 0); else one per
// flow up to kThreadPerFlowMax flows, one per online CPU beyond; never more than the flows.
int WorkerThreadsFor(int requested, size_t flows);

class DataPath {
 public:
  // threads: number of worker threads (each gets flows round-robin); 0 = WorkerThreadsFor's
  // default.
  static std::unique_ptr<DataPath> Create(int threads);
  // The same, with the data-path syscalls going through `sys` (a net::FakeSysCalls in tests).
  // `sys` must outlive the DataPath.
  static std::unique_ptr<DataPath> Create(int threads, net::SysCalls* sys);
  virtual ~DataPath() = default;

  // Takes ownership of config.fd (closed on failure too), makes it non-blocking and prepares
  // the flow's buffers. Fails on a bad config (UDP block too small for the header) or a setup
  // syscall; MSG_ZEROCOPY unsupported is not a failure: the flow falls back to ordinary send
  // with a warning on stderr.
  virtual Status AddFlow(const FlowConfig& config) = 0;  // REQUIRES: before Start
  virtual void SetBudget(const SendBudget& budget) = 0;  // REQUIRES: before Start
  // The end that decides a byte/block test sets it for its receivers too: DoneFd() then also
  // becomes readable when they have received `budget` (iperf3 ends on sent OR received).
  virtual void SetReceiveBudget(const SendBudget& budget) = 0;  // REQUIRES: before Start
  // The end's own threads: each worker enters it as it starts and leaves it as it ends, so that
  // the end's CPU time is its threads' (probes/own_threads.h). REQUIRES: before Start.
  virtual void AccountThreads(std::shared_ptr<probes::OwnThreads> threads) = 0;
  virtual Status Start() = 0;
  // Fd that becomes readable when every sender flow has met the budget or failed, so the
  // controller's own loop can wait on it. Valid after Start. A DataPath with no sender flows
  // and no receive budget never signals it (a receiving end learns the end from its peer).
  virtual int DoneFd() const = 0;
  virtual std::vector<FlowCounters> Snapshot() const = 0;
  // True once any flow has failed (the error itself comes from Join). Lets a controller end a
  // test early when, say, the peer reset a receiving stream. Any thread, any time.
  virtual bool Failed() const = 0;
  virtual void Stop() = 0;  // wakes every loop through the eventfd; idempotent
  // Stops (if Stop was not called yet) and waits for the workers. Returns the first worker failure
  // (a peer reset during the test is reported here, never lost).
  virtual Status Join() = 0;
  // The socket of a flow, for getsockopt(TCP_INFO) by the controller. -1 if unknown.
  virtual int FlowFd(int id) const = 0;
};

}  // namespace nicbench::engine
