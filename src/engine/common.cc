#include "engine/common.h"

#include <linux/sockios.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "net/tcp_info.h"
#include "probes/own_threads.h"

namespace nicbench::engine {
namespace {

double TimevalSeconds(const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; }

}  // namespace

std::vector<StreamRole> PlanStreams(const record::TestSpec& spec, bool is_client) {
  const int per_direction = spec.parallel;
  const int count =
      spec.direction == record::Direction::kBidirectional ? 2 * per_direction : per_direction;
  std::vector<StreamRole> streams;
  for (int i = 0; i < count; ++i) {
    bool client_sends = false;
    switch (spec.direction) {
      case record::Direction::kForward: client_sends = true; break;
      case record::Direction::kReverse: client_sends = false; break;
      case record::Direction::kBidirectional: client_sends = i < per_direction; break;
    }
    // iperf3 numbers streams 1, 3, 4, ...: id 2 is skipped for compatibility.
    streams.push_back(StreamRole{i == 0 ? 1 : i + 2, is_client ? client_sends : !client_sends});
  }
  return streams;
}

net::SocketOptions DataSocketOptions(const record::TestSpec& spec) {
  net::SocketOptions options;
  options.window_bytes = spec.window_bytes;
  options.mss = spec.mss_bytes;
  options.no_delay = spec.no_delay;
  options.congestion = spec.congestion;
  options.tos = spec.tos;
  options.bind_device = spec.bind_device;
  options.dont_fragment = spec.dont_fragment;
  options.user_timeout_ms = spec.snd_timeout_ms;
  options.mptcp = spec.mptcp;
  // A transaction's message goes out when written, not when the previous one is acknowledged.
  if (spec.rr.enabled()) options.no_delay = true;
  options.flowlabel = spec.flowlabel;  // used by the connecting end only
  if (spec.transport == record::Transport::kUdp && spec.window_bytes == 0 && !spec.rr.enabled()) {
    options.receive_buffer_bytes = kUdpReceiveBufferBytes;
  }
  return options;
}

uint32_t ReceiveLowWaterFor(uint32_t block_bytes) {
  const uint64_t batch = std::min<uint64_t>(4ull * block_bytes, kReceiveWakeBytes);
  return static_cast<uint32_t>(std::max<uint64_t>(block_bytes, batch));
}

bool EachFlowAlone(int threads, size_t flows) {
  return static_cast<size_t>(WorkerThreadsFor(threads, flows)) >= flows;
}

FlowConfig MakeFlowConfig(int fd, const StreamRole& role, const record::TestSpec& spec,
                          bool alone_on_worker) {
  FlowConfig flow;
  flow.fd = fd;
  flow.id = role.id;
  flow.sender = role.sender;
  flow.transport = spec.transport;
  flow.block_bytes = record::EffectiveBlockBytes(spec);
  flow.rate_bits_per_second = spec.rate_bits_per_second;
  flow.pacing_timer_us = spec.pacing_timer_us;
  flow.burst = spec.burst == 0 ? 1 : spec.burst;
  flow.fq_rate_bits_per_second = spec.fq_rate_bits_per_second;
  flow.zero_copy = spec.zero_copy;
  flow.skip_rx_copy = spec.skip_rx_copy;
  // A TCP receiver woken for every segment costs a wakeup (a cross-CPU IPI on loopback) per
  // 64 KiB; woken per ReceiveLowWaterFor (four 128 KiB blocks), far fewer. Only in timed tests:
  // with -n/-k a last partial block would wait for the FIN, and the client ends those tests on the
  // bytes received. And only for a test's one stream: with several, every core is busy and the
  // receivers woken later held the senders back (loopback, 4 runs of 3 s each: one stream 47-54
  // Gbit/s with it against 34-36 without; -P 2 51-52 against 59-68; -P 4 -Z 33-35 against 38-40).
  const bool one_stream = spec.parallel == 1 && spec.direction != record::Direction::kBidirectional;
  if (spec.transport == record::Transport::kTcp && spec.bytes == 0 && spec.blocks == 0 &&
      one_stream) {
    flow.receive_low_water = ReceiveLowWaterFor(flow.block_bytes);
  }
  flow.udp_counters_64bit = spec.udp_counters_64bit;
  flow.udp_offload = spec.udp_offload;
  flow.repeating_payload = spec.repeating_payload;
  flow.rr = spec.rr;
  if (spec.rr.enabled()) flow.receive_low_water = 0;  // a request is 1 byte by default
  // Each flow alone on its worker (one flow, or -P up to kThreadPerFlowMax on a thread each):
  // one blocking call per message, as netperf makes, instead of an epoll_wait beside it.
  // A paced flow (--rr-rate) sends on the worker's timer, which the lone loop never waits on.
  flow.rr_alone =
      spec.rr.enabled() && alone_on_worker && spec.rr.burst == 1 && spec.rr.rate_per_second == 0;
  if (spec.rr.mode == record::RrMode::kCrr) {
    flow.crr_options = DataSocketOptions(spec);
    // A fresh connection's one request is never held back by Nagle: TCP_NODELAY only when
    // asked for, so the default connection costs no setsockopt(2).
    flow.crr_options.no_delay = spec.no_delay;
    flow.crr_bind_local = !spec.bind_address.empty();
  }
  return flow;
}

SendBudget MakeBudget(const record::TestSpec& spec) { return SendBudget{spec.bytes, spec.blocks}; }

std::pair<double, double> CpuMeter::Now() const {
  if (threads_ != nullptr) {
    probes::DirFileSource live;
    std::string buffer;
    if (auto times = threads_->Read(live, buffer)) return probes::SumUserSystem(*times);
  }
  rusage now{};
  getrusage(RUSAGE_SELF, &now);
  return {TimevalSeconds(now.ru_utime), TimevalSeconds(now.ru_stime)};
}

void CpuMeter::Start(const probes::OwnThreads* threads) {
  threads_ = threads;
  start_wall_ = SteadyClock::Instance().Now();
  start_ = Now();
}

record::CpuUtilization CpuMeter::Read() const {
  const auto [user_now, system_now] = Now();
  const double wall = Seconds(SteadyClock::Instance().Now() - start_wall_).count();
  record::CpuUtilization cpu;
  if (wall <= 0) return cpu;
  const double user = std::max(0.0, user_now - start_.first);
  const double system = std::max(0.0, system_now - start_.second);
  cpu.user_percent = 100.0 * user / wall;
  cpu.system_percent = 100.0 * system / wall;
  cpu.total_percent = cpu.user_percent + cpu.system_percent;
  return cpu;
}

// A UDP receiver's counts come from the sender's 64-bit sequence numbers: a sender that jumps
// past 2^63 makes them larger than the wire's signed integers, and a plain cast sent a negative
// "errors" that every reader refuses (ours: "out of range"), so the peer lost the whole result.
namespace {
int64_t SaturatedCount(uint64_t count) {
  return static_cast<int64_t>(
      std::min<uint64_t>(count, static_cast<uint64_t>(std::numeric_limits<int64_t>::max())));
}
}  // namespace

protocol::PeerResults MakeLocalResults(const std::vector<FlowTotals>& totals,
                                       const record::CpuUtilization& cpu,
                                       record::Transport transport,
                                       const std::string& congestion_used) {
  protocol::PeerResults results;
  results.cpu_util_total = cpu.total_percent;
  results.cpu_util_user = cpu.user_percent;
  results.cpu_util_system = cpu.system_percent;
  results.congestion_used = congestion_used;
  bool any_sender = false;
  for (const FlowTotals& t : totals) any_sender = any_sender || t.sender;
  if (!any_sender) {
    results.sender_has_retransmits = -1;
  } else {
    results.sender_has_retransmits = transport == record::Transport::kTcp ? 1 : 0;
  }
  for (const FlowTotals& t : totals) {
    protocol::PeerStream s;
    s.id = t.id;
    s.bytes = t.bytes;
    s.retransmits = t.sender && t.retransmits ? static_cast<int64_t>(*t.retransmits) : -1;
    s.jitter = t.jitter_seconds;
    s.errors = SaturatedCount(t.lost);
    s.packets = SaturatedCount(t.packets);
    s.start_time = 0;
    s.end_time = t.seconds;
    results.streams.push_back(s);
  }
  return results;
}

Result<std::vector<record::StreamTotals>> CombineTotals(const std::vector<FlowTotals>& ours,
                                                        const protocol::PeerResults& peer,
                                                        record::Transport transport) {
  std::map<int, const protocol::PeerStream*> by_id;
  for (const protocol::PeerStream& s : peer.streams) by_id[s.id] = &s;
  for (const auto& [id, stream] : by_id) {
    bool found = std::any_of(ours.begin(), ours.end(),
                             [id = id](const FlowTotals& t) { return t.id == id; });
    if (!found)
      return Fail(fmt::format("the peer's results name stream {} which we do not have", id));
  }
  std::vector<record::StreamTotals> out;
  for (const FlowTotals& t : ours) {
    record::StreamTotals s;
    s.id = t.id;
    s.sender = t.sender;
    const protocol::PeerStream* theirs = by_id.count(t.id) ? by_id[t.id] : nullptr;
    const uint64_t their_bytes = theirs ? theirs->bytes : 0;
    const double their_seconds = theirs ? theirs->end_time - theirs->start_time : 0;
    s.bytes_sent = t.sender ? t.bytes : their_bytes;
    s.bytes_received = t.sender ? their_bytes : t.bytes;
    s.seconds_sent = t.sender ? t.seconds : their_seconds;
    s.seconds_received = t.sender ? their_seconds : t.seconds;
    if (transport == record::Transport::kTcp) {
      if (t.sender && t.retransmits) {
        s.retransmits = *t.retransmits;
      } else if (!t.sender && theirs && theirs->retransmits >= 0) {
        s.retransmits = static_cast<uint64_t>(theirs->retransmits);
      } else {
        s.retransmits = record::Measured<uint64_t>::Unknown(record::Missing::kNotReported);
      }
      if (t.max_snd_cwnd) s.max_snd_cwnd = *t.max_snd_cwnd;
      if (t.min_rtt_us) s.min_rtt_us = *t.min_rtt_us;
      if (t.max_rtt_us) s.max_rtt_us = *t.max_rtt_us;
      if (t.mean_rtt_us) s.mean_rtt_us = *t.mean_rtt_us;
    } else if (t.sender) {
      // The receiver knows loss and jitter; the sender knows how many it sent.
      s.packets = t.packets;
      s.lost = theirs ? static_cast<uint64_t>(std::max<int64_t>(0, theirs->errors)) : 0;
      s.jitter_seconds = theirs ? theirs->jitter : 0;
    } else {
      s.packets = theirs ? static_cast<uint64_t>(std::max<int64_t>(0, theirs->packets)) : t.packets;
      s.lost = t.lost;
      s.out_of_order = t.out_of_order;
      s.jitter_seconds = t.jitter_seconds;
    }
    out.push_back(std::move(s));
  }
  return out;
}

void FillPeerSenderStats(std::vector<record::StreamTotals>& streams,
                         const std::vector<record::IntervalRecord>& peer_view) {
  for (record::StreamTotals& s : streams) {
    if (s.sender || s.max_snd_cwnd.known()) continue;
    uint64_t max_cwnd = 0, rtt_sum = 0, samples = 0;
    uint32_t max_rtt = 0, min_rtt = UINT32_MAX;
    for (const record::IntervalRecord& interval : peer_view) {
      if (interval.omitted) continue;
      for (const record::StreamInterval& i : interval.streams) {
        const record::TcpInfoSample* t = i.tcp_info.get();
        if (i.id != s.id || !i.sender || t == nullptr) continue;
        max_cwnd = std::max<uint64_t>(max_cwnd, uint64_t{t->snd_cwnd} * t->snd_mss);
        max_rtt = std::max(max_rtt, t->rtt_us);
        min_rtt = std::min(min_rtt, t->rtt_us);
        rtt_sum += t->rtt_us;
        ++samples;
      }
    }
    if (samples == 0) continue;
    s.max_snd_cwnd = max_cwnd;
    s.max_rtt_us = max_rtt;
    s.min_rtt_us = min_rtt;
    s.mean_rtt_us = static_cast<uint32_t>(rtt_sum / samples);
  }
}

record::PeerReport MakePeerReport(const protocol::PeerResults& theirs, bool asked_for_output) {
  record::PeerReport peer;
  peer.cpu =
      record::CpuUtilization{theirs.cpu_util_total, theirs.cpu_util_user, theirs.cpu_util_system};
  peer.congestion_used = theirs.congestion_used;
  if (!asked_for_output) return peer;
  peer.server_output_text = theirs.server_output_text;
  if (theirs.server_output_json) peer.server_output_json = theirs.server_output_json->dump();
  return peer;
}

void ReadSocketBuffers(int fd, const record::TestSpec& spec, record::RunRecord& record) {
  // iperf3 reads the sizes before it connects, so they are what -w (or the defaults) made,
  // before receive and send autotuning grow them: a fresh socket of the same kind with the
  // same options tells the same, where the connected one would tell what autotuning did.
  int family = AF_INET;
  if (auto local = net::SocketAddress::Local(fd)) family = local->family();
  const int type = spec.transport == record::Transport::kTcp ? SOCK_STREAM : SOCK_DGRAM;
  net::UniqueFd fresh(socket(family, type | SOCK_CLOEXEC, 0));
  if (!fresh.valid()) return;
  (void)net::ApplySocketOptions(fresh.get(), family, type, DataSocketOptions(spec));
  auto snd = net::GetIntOption(fresh.get(), SOL_SOCKET, SO_SNDBUF, "SO_SNDBUF");
  auto rcv = net::GetIntOption(fresh.get(), SOL_SOCKET, SO_RCVBUF, "SO_RCVBUF");
  record.sndbuf_actual = snd && *snd > 0 ? static_cast<uint32_t>(*snd) : 0;
  record.rcvbuf_actual = rcv && *rcv > 0 ? static_cast<uint32_t>(*rcv) : 0;
}

Status PinThisThread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return Fail(fmt::format("CPU {} is out of range", cpu));
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    return FailErrno(fmt::format("sched_setaffinity(CPU {})", cpu));
  }
  return Ok();
}

TcpInfoByFlow ReadTcpInfos(const DataPath& path, const std::vector<StreamRole>& streams,
                           record::Transport transport) {
  TcpInfoByFlow out;
  if (transport != record::Transport::kTcp) return out;
  for (const StreamRole& role : streams) {
    int fd = path.FlowFd(role.id);
    if (fd < 0) continue;
    auto info = net::ReadTcpInfo(fd);
    if (info) {
      out[role.id] = *info;
    } else {
      out[role.id] = record::Measured<record::TcpInfoSample>::Unknown(record::Missing::kError,
                                                                      info.error().ToString());
    }
  }
  return out;
}

void AddQueuedBytes(const DataPath& path, record::Transport transport,
                    std::vector<FlowCounters>& counters) {
  if (transport != record::Transport::kTcp) return;
  for (FlowCounters& c : counters) {
    if (c.sender) continue;
    int fd = path.FlowFd(c.id);
    int queued = 0;
    if (fd >= 0 && ioctl(fd, SIOCINQ, &queued) == 0 && queued > 0) c.bytes += queued;
  }
}

void WaitForSendQueues(const DataPath& path, const std::vector<StreamRole>& streams,
                       record::Transport transport, std::chrono::milliseconds limit) {
  if (transport != record::Transport::kTcp) return;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (const StreamRole& role : streams) {
    if (!role.sender) continue;
    const int fd = path.FlowFd(role.id);
    int queued = 0;
    while (fd >= 0 && ioctl(fd, SIOCOUTQ, &queued) == 0 && queued > 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

std::chrono::milliseconds StallWatch::limit() const {
  const bool first = moved_ == 0 && first_limit_.count() > 0;
  if (!first) return limit_;
  return limit_.count() > 0 ? std::min(limit_, first_limit_) : first_limit_;
}

MonoTime StallWatch::deadline() const {
  const std::chrono::milliseconds applies = limit();
  return applies.count() > 0 ? last_move_ + applies : MonoTime::max();
}

bool StallWatch::Stalled(MonoTime now, const std::vector<FlowCounters>& counters) {
  uint64_t moved = 0;
  for (const FlowCounters& c : counters) moved += c.bytes;
  if (moved != moved_) {
    moved_ = moved;
    last_move_ = now;
    return false;
  }
  return limit().count() > 0 && now >= deadline();
}

}  // namespace nicbench::engine
