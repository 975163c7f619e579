// TestSpec: what a throughput test is asked to do, whether it came from argv (`nicbench run`) or
// from a peer's parameter JSON (`nicbench serve`). One Validate() checks both, so the range rules
// live in one place. Plain value type.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"

namespace nicbench::record {

enum class Transport { kTcp, kUdp };
enum class Direction { kForward, kReverse, kBidirectional };  // forward = client sends
enum class AddressFamily { kAny, kIpv4, kIpv6 };
enum class ZeroCopy { kOff, kSendfile, kMsgZerocopy };  // -Z is sendfile, as iperf3 does
// Request/response tests (docs/rr.md): kRr keeps one connection per flow, kCrr connects,
// requests, reads the response and closes for every transaction (netperf's TCP_CRR).
enum class RrMode { kNone, kRr, kCrr };

// What a request/response test asks for beside the common fields. `parallel` is the number of
// flows; `blocks` (-n/-k) the total number of transactions, 0 = by time.
struct RrSpec {
  RrMode mode = RrMode::kNone;
  uint32_t request_bytes = 1;  // -l REQ[,RESP]
  uint32_t response_bytes = 1;
  uint32_t burst = 1;          // --rr-burst: transactions in flight per flow (netperf's burst)
  uint32_t timeout_ms = 1000;  // --rr-timeout: UDP, a transaction without a response is lost
  // --rr-spin: each wait for a message polls the socket this long before it sleeps (0 = sleeps
  // at once, as netperf does). Both ends poll; it takes a sleeping core's wake-up out of the
  // transaction and costs a busy core while it lasts.
  uint32_t spin_us = 0;
  // --rr-rate: transactions a second, started on a schedule rather than back to back (0 = as
  // fast as the path answers), up to `burst` of them waiting for their answers. A paced test
  // is a probe: its totals keep the whole latency distribution (RrStats::latency_buckets). TCP,
  // one flow.
  uint32_t rate_per_second = 0;
  bool enabled() const { return mode != RrMode::kNone; }
};

struct TestSpec {
  Transport transport = Transport::kTcp;
  Direction direction = Direction::kForward;
  int parallel = 1;  // streams per direction, 1..kMaxParallelStreams
  // End condition: exactly one of these is used; bytes/blocks win over duration when nonzero.
  std::chrono::milliseconds duration{10000};
  uint64_t bytes = 0;                        // -n: total bytes to send (0 = by time)
  uint64_t blocks = 0;                       // -k: total blocks to send (0 = unused)
  std::chrono::milliseconds omit{0};         // -O: warm-up excluded from results
  std::chrono::milliseconds interval{1000};  // -i: report and sample interval (>= 100 ms, 0 = none)

  uint32_t block_bytes = 0;              // -l: 0 = default (TCP 128 KiB, UDP per path MTU)
  uint64_t rate_bits_per_second = 0;     // -b: per stream; 0 = unlimited (UDP default 1 Mbit/s)
  uint32_t pacing_timer_us = 1000;       // how often a paced sender checks its rate
  uint32_t burst = 0;                    // packets per pacing check; 0 = 1
  uint64_t fq_rate_bits_per_second = 0;  // SO_MAX_PACING_RATE (bits/s), 0 = unset
  uint32_t window_bytes = 0;             // -w: SO_SNDBUF/SO_RCVBUF, 0 = kernel default
  uint32_t mss_bytes = 0;                // -M: TCP_MAXSEG, 0 = default
  bool no_delay = false;                 // -N: TCP_NODELAY on data sockets
  std::string congestion;                // -C: congestion control name, empty = default
  int tos = 0;                           // -S: IP_TOS / IPV6_TCLASS
  ZeroCopy zero_copy = ZeroCopy::kOff;
  bool skip_rx_copy = false;  // receive with MSG_TRUNC (no copy to user space)
  bool udp_counters_64bit = false;
  bool udp_offload = false;  // --udp-offload: UDP_SEGMENT sends, UDP_GRO receives
  bool repeating_payload = false;
  bool get_server_output = false;
  std::string title;  // -T
  std::string extra_data;
  bool dont_fragment = false;  // --dont-fragment: UDP datagrams with DF set
  int server_affinity = -1;    // -A N,M: the server's CPU M (-1 = not pinned)
  uint32_t flowlabel = 0;      // -L: IPv6 flow label of the client's streams

  // Client-side addressing (not sent to the peer).
  AddressFamily family = AddressFamily::kAny;
  std::string bind_address;  // -B
  uint16_t client_port = 0;  // --cport, 0 = ephemeral
  // Presentation, not sent: -f, the unit of the text report's rates (k/m/g/t bits/s, K/M/G/T
  // bytes/s, 'a' = adaptive bits/s).
  char format = 'a';
  std::string bind_device;      // --bind-dev: SO_BINDTODEVICE
  uint32_t snd_timeout_ms = 0;  // --snd-timeout: TCP_USER_TIMEOUT of senders
  bool mptcp = false;           // -m: MPTCP instead of TCP
  RrSpec rr;                    // --rr / --crr (nicbench peers only)
};

// Most streams per direction nicbench runs (-P). Each is a socket at each end, so --bidir at
// this count is 4,096 descriptors per end (RLIMIT_NOFILE: nicbench raises its soft limit to the
// hard one at start). iperf3 stops at 128.
inline constexpr int kMaxParallelStreams = 2048;
// What `nicbench serve` accepts unless --max-streams says otherwise: iperf3's maximum, so one
// client cannot take thousands of descriptors of a shared server by default.
inline constexpr int kDefaultServerMaxStreams = 128;

// Limits a server enforces on what peers ask for; a client uses the defaults as sanity bounds.
struct SpecLimits {
  std::chrono::milliseconds max_duration{std::chrono::hours(24)};
  uint64_t max_rate_bits_per_second = 0;  // 0 = no limit
  int max_parallel = kMaxParallelStreams;
  uint32_t max_block_bytes = 16u << 20;  // 16 MiB, iperf3's MAX_BLOCKSIZE-like bound
  uint32_t max_window_bytes = 512u << 20;
  // Request/response tests: flows (-P) up to this many; message sizes up to max_block_bytes.
  int max_rr_flows = 1024;
};

// Which limit a spec broke, so a server can map it to an iperf3 error code.
enum class SpecViolation { kNone, kDuration, kRate, kParallel, kBlockSize, kWindow, kOther };

// Largest UDP request or response (a datagram's payload).
inline constexpr uint32_t kMaxUdpRrMessageBytes = 65507;
inline constexpr uint32_t kMaxRrBurst = 1024;
inline constexpr uint32_t kMaxRrTimeoutMs = 60000;
inline constexpr uint32_t kMaxRrSpinUs = 10000;
inline constexpr uint32_t kMaxRrRate = 10000;

struct SpecError {
  SpecViolation violation = SpecViolation::kOther;
  std::string message;  // one line for people: "-P 5000 is out of range 1..2048"
};

// Checks ranges and combinations. Returns the first problem found.
std::optional<SpecError> Validate(const TestSpec& spec, const SpecLimits& limits = {});

// Effective block size: spec.block_bytes, or the default for the transport.
uint32_t EffectiveBlockBytes(const TestSpec& spec, uint32_t udp_default = 1460);

const char* TransportName(Transport t);  // "TCP" / "UDP"
const char* RrModeName(RrMode m);        // "none" / "rr" / "crr"
// ", each wait polls N us before it sleeps" under --rr-spin, else "" (for a test's description).
std::string RrSpinNote(const RrSpec& rr);

}  // namespace nicbench::record
