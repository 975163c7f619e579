#include "engine/conversation/stream_plan.h"

#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

namespace nicbench::engine {
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

}  // namespace nicbench::engine
