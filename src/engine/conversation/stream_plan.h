// How a test's streams are set up, the same at both ends: which streams exist and who sends on
// each (iperf3's numbering and order), the socket options of a data stream, its DataPath flow
// and sender budget, the socket buffer sizes iperf3 reports. Used by client.cc and
// server_session.cc. Thread safety: plain functions.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/datapath/data_path.h"
#include "engine/measure/flow_readings.h"
#include "net/socket.h"
#include "record/run_record.h"
#include "record/test_spec.h"

namespace nicbench::engine {

// What each data stream adds to the set-up deadline, at both ends: connecting (client) and
// accepting (server) a stream takes a round trip or two.
inline constexpr std::chrono::milliseconds kSetupPerStream{50};

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

// SO_SNDBUF and SO_RCVBUF as iperf3's start.sndbuf_actual / rcvbuf_actual: of a data socket
// (`fd` gives the address family) as the spec's options leave it before it connects; 0 where
// unreadable.
void ReadSocketBuffers(int fd, const record::TestSpec& spec, record::RunRecord& record);

// Pins the calling thread (and the threads it creates afterwards) to one CPU (-A).
Status PinThisThread(int cpu);

}  // namespace nicbench::engine
