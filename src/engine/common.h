// Pieces both ends of a test share: which streams exist and who sends on each (iperf3's
// numbering and order), the socket options of a data stream, the process CPU meter iperf3
// reports, the results JSON built from our totals, the per-stream totals combined with the
// peer's results.
// Used by client.cc and server_conversation.cc. Thread safety: plain functions and objects owned by
// one controller thread.
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "engine/data_path.h"
#include "engine/interval_sampler.h"
#include "net/socket.h"
#include "protocol/results.h"
#include "record/run_record.h"
#include "record/test_spec.h"

namespace nicbench::engine {

// One stream of a test from one end's point of view, in connection order.
struct StreamRole {
  int id = 0;
  bool sender = false;
};

// iperf3's ids (1, 3, 4, 5, ...: 2 is skipped) and roles: forward = client sends; reverse =
// server sends; bidir = the first `parallel` connected streams carry client->server data, the
// next `parallel` server->client.
std::vector<StreamRole> PlanStreams(const record::TestSpec& spec, bool is_client);

// The options a data socket gets from the spec (window, MSS, nodelay, congestion, TOS).
net::SocketOptions DataSocketOptions(const record::TestSpec& spec);

// The receive buffer (SO_RCVBUF) a bulk UDP socket asks for when -w does not set one. The
// kernel's default (net.core.rmem_default, 208 KiB) holds about 90 datagrams of 1400 bytes by
// their truesize: at 300,000 datagrams/s a receiver off its CPU for 0.3 ms loses datagrams the
// path delivered, and the test then measures the receiver's scheduling. On loopback at -b 0 -l
// 1400 the default lost 2.9-3.6% where 1 MiB lost 0.5-0.6% and 4 MiB none (docs/engine.md).
// The kernel caps the request at net.core.rmem_max.
inline constexpr uint32_t kUdpReceiveBufferBytes = 4u << 20;

// The DataPath flow of one connected stream.
// The receive low-water mark (SO_RCVLOWAT) of a timed test's only TCP stream: up to four
// blocks, at most kReceiveWakeBytes, never less than one block. The receiver still reads a
// block per recv(2), but sleeps only when less than this is queued: on loopback at the default
// 128 KiB block one stream moved about 1.3x what a one-block mark moved, at about 0.85x the
// CPU per GB at each end, and on a 1 Gbit/s shaped link the same (docs/engine.md).
inline constexpr uint32_t kReceiveWakeBytes = 512 * 1024;
uint32_t ReceiveLowWaterFor(uint32_t block_bytes);

// `alone_on_worker`: this end gives each of its flows a worker thread of its own (a
// request/response flow with one transaction in flight then runs in blocking calls).
FlowConfig MakeFlowConfig(int fd, const StreamRole& role, const record::TestSpec& spec,
                          bool alone_on_worker);
// True when `threads` (this end's --threads, 0 = the default) gives each of `flows` flows a
// worker thread of its own (WorkerThreadsFor, flows dealt round-robin).
bool EachFlowAlone(int threads, size_t flows);

// The test's sender budget on this end (bytes/blocks; raw totals as DataPath counts them).
SendBudget MakeBudget(const record::TestSpec& spec);

// Process CPU time over wall time, as iperf3's cpu_util (percent of one CPU; may exceed 100
// with several threads busy). With `threads`, the CPU time of the end's own threads instead of
// the whole process's (the main job runs both ends in one process); `threads` must outlive it.
class CpuMeter {
 public:
  void Start(const probes::OwnThreads* threads = nullptr);
  record::CpuUtilization Read() const;

 private:
  // User and system seconds so far.
  std::pair<double, double> Now() const;

  MonoTime start_wall_{};
  const probes::OwnThreads* threads_ = nullptr;
  std::pair<double, double> start_{};
};

// Our EXCHANGE_RESULTS document (without the extension).
protocol::PeerResults MakeLocalResults(const std::vector<FlowTotals>& totals,
                                       const record::CpuUtilization& cpu,
                                       record::Transport transport,
                                       const std::string& congestion_used);

// Per-stream totals as iperf3 prints them: our counts for our side of each stream, the peer's
// counts for the other side (bytes_received of our sender streams is what the peer received).
// A peer stream id we do not have is an error (iperf3's IESTREAMID).
Result<std::vector<record::StreamTotals>> CombineTotals(const std::vector<FlowTotals>& ours,
                                                        const protocol::PeerResults& peer,
                                                        record::Transport transport);

// For the streams the peer sent on (reverse, the reverse half of bidir): the sender's TCP
// figures iperf3 reports (max_snd_cwnd in bytes, min/max/mean RTT) from the peer's own
// per-interval view, which a nicbench peer sends in its extension. Omitted intervals are left
// out, as on the sending end. Streams already known are kept.
void FillPeerSenderStats(std::vector<record::StreamTotals>& streams,
                         const std::vector<record::IntervalRecord>& peer_view);

// The figures of the peer's results header that any iperf3 peer sends: its CPU use, its
// congestion control and, only when `asked_for_output` (--get-server-output), the server's text
// or JSON output: a server that sends it unasked does not get it printed.
record::PeerReport MakePeerReport(const protocol::PeerResults& theirs, bool asked_for_output);

// SO_SNDBUF and SO_RCVBUF as iperf3's start.sndbuf_actual / rcvbuf_actual: of a data socket
// (`fd` gives the address family) as the spec's options leave it before it connects; 0 where
// unreadable.
void ReadSocketBuffers(int fd, const record::TestSpec& spec, record::RunRecord& record);

// Pins the calling thread (and the threads it creates afterwards) to one CPU (-A).
Status PinThisThread(int cpu);

// TCP_INFO of every TCP flow, read now.
TcpInfoByFlow ReadTcpInfos(const DataPath& path, const std::vector<StreamRole>& streams,
                           record::Transport transport);

// For TCP receiver flows: adds the bytes already queued in the socket's receive buffer
// (SIOCINQ) to the final counters, so "received by the end" counts what the kernel accepted
// even if the worker had not read it yet (a receiver wakes once per block, SO_RCVLOWAT, so up
// to a block can wait there). Exact once the DataPath is stopped and joined; on a running path
// a read between the snapshot and the ioctl is missed (never counted twice). UDP: nothing (the
// ioctl gives one datagram's size there, not a byte count of the queue).
void AddQueuedBytes(const DataPath& path, record::Transport transport,
                    std::vector<FlowCounters>& counters);

// Waits (up to `limit`) until every TCP sender flow's send queue is empty (SIOCOUTQ 0: the
// peer's kernel has acknowledged every byte). A test that ends by bytes or blocks calls this
// before TEST_END, because a receiver (a stock iperf3 server among them) stops counting when
// TEST_END arrives and would otherwise miss the bytes still in flight.
void WaitForSendQueues(const DataPath& path, const std::vector<StreamRole>& streams,
                       record::Transport transport, std::chrono::milliseconds limit);

// Watches a running test's data for a stall (iperf3's --rcv-timeout, here on both directions):
// Stalled once no flow's byte count has moved for `limit` (0 = never), or, before the first
// byte has moved at all, for `first_limit` when that is shorter (0 = `limit` alone): a test
// that has never moved anything is no slow link but a peer holding a slot.
class StallWatch {
 public:
  StallWatch(MonoTime start, std::chrono::milliseconds limit,
             std::chrono::milliseconds first_limit = std::chrono::milliseconds(0))
      : limit_(limit), first_limit_(first_limit), last_move_(start) {}
  // When the test counts as stalled if nothing moves before then (MonoTime::max() = never).
  MonoTime deadline() const;
  bool Stalled(MonoTime now, const std::vector<FlowCounters>& counters);
  // The limit that applies now (the first-data one until a byte has moved).
  std::chrono::milliseconds limit() const;

 private:
  std::chrono::milliseconds limit_;
  std::chrono::milliseconds first_limit_;
  MonoTime last_move_;
  uint64_t moved_ = 0;
};

}  // namespace nicbench::engine
