// Hand-built records for the unit tests of record/json and src/report: TCP, UDP, reverse and
// bidirectional runs, with and without the peer's record, with unknowns. Test-only; header-only.
#pragma once

#include <string>
#include <vector>

#include "record/run_record.h"

namespace nicbench::record::testing {

inline NicFacts MakeNic() {
  NicFacts nic;
  nic.interface = "eth0";
  nic.driver = std::string("e1000e");
  nic.driver_version = std::string("3.2.6-k");
  nic.firmware_version = Measured<std::string>::Unknown(Missing::kNotSupported);
  nic.bus_info = std::string("0000:00:19.0");
  nic.pci = PciIdentity{"8086", "10d3", "Intel Corporation", "82574L Gigabit Network Connection"};
  nic.speed_mbps = uint64_t{100};
  nic.duplex = std::string("full");
  nic.autoneg = true;
  nic.mtu = uint32_t{1500};
  nic.offloads = std::vector<OffloadState>{{"tcp-segmentation-offload", false, false},
                                           {"generic-receive-offload", true, false},
                                           {"rx-checksumming", true, true}};
  nic.rings = RingSizes{256, 256, 4096, 4096};
  nic.coalescing = Measured<Coalescing>::Unknown(Missing::kPermissionDenied, "needs CAP_NET_ADMIN");
  nic.channels = Measured<ChannelCounts>::Unknown(Missing::kNotSupported);
  nic.irq_mode = std::string("MSI-X");
  nic.irq_vectors =
      std::vector<IrqVector>{{"45", "eth0-rx-0", "1", "1"}, {"46", "eth0-tx-0", "0", ""}};
  nic.counters = std::map<std::string, uint64_t>{{"rx_dropped", 3}, {"rx_bytes", 123456789}};
  nic.driver_stats = Measured<std::map<std::string, uint64_t>>::Unknown(Missing::kPermissionDenied,
                                                                        "needs CAP_NET_ADMIN");
  nic.qdisc = Qdisc{"fq_codel", 0};
  nic.numa_node = 1;
  nic.local_cpus = std::string("8-15,24-31");
  return nic;
}

inline HostFacts MakeHost(const std::string& name) {
  HostFacts host;
  host.hostname = name;
  host.kernel = std::string("6.1.0-18-amd64");
  host.cpu_model = Measured<std::string>::Unknown(Missing::kError, "no model name line");
  host.cpu_count = 2;
  host.cpu_frequencies =
      std::vector<CpuFrequency>{{1, "powersave", "intel_pstate", 1200195, 1200000, 3300000}};
  return host;
}

// One host interval: cpu1 busy in softirq (the seed-2 picture), one NIC IRQ line.
inline HostInterval MakeSample(double start, double end) {
  HostInterval h;
  h.start = start;
  h.end = end;
  CpuShare c0{0, 10, 0, 20, 68, 2, 0, 0, 0};
  CpuShare c1{1, 1, 0, 2, 3, 0, 4, 90, 0};
  h.cpus = std::vector<CpuShare>{c0, c1};
  h.cpu_total = CpuShare{-1, 5.5, 0, 11, 35.5, 1, 2, 45, 0};
  IrqRate nic_irq{"45", "eth0-rx-0", "PCI-MSIX", true, "rx-0", {0, 16000}, 16000, 0};
  nic_irq.per_second = 16000 / (end - start);
  IrqRate timer{"LOC", "Local timer interrupts", "", false, "", {250, 250}, 500, 0};
  timer.per_second = 500 / (end - start);
  h.irqs = std::vector<IrqRate>{nic_irq, timer};
  h.net_rx_softirqs = std::vector<uint64_t>{10, 16000};
  h.net_tx_softirqs = Measured<std::vector<uint64_t>>::Unknown(Missing::kNotSupported);
  h.softnet = std::vector<SoftnetDelta>{{0, 100, 0, 0}, {1, 90000, 2, 7}};
  h.context_switches = uint64_t{4000};
  h.interrupts = uint64_t{16500};
  h.net_counters = std::map<std::string, int64_t>{{"Tcp.RetransSegs", 4}, {"Udp.RcvbufErrors", 0}};
  h.process = ProcessUsage{0.01, 0.4, 10, 2, 0, 0, {0, 1}, {1}};
  return h;
}

inline StreamInterval MakeStream(int id, bool sender, double start, double end, uint64_t bytes,
                                 bool tcp) {
  StreamInterval s;
  s.id = id;
  s.sender = sender;
  s.start = start;
  s.end = end;
  s.bytes = bytes;
  if (tcp && sender) {
    s.retransmits = 2;
    TcpInfoSample t;
    t.rtt_us = 520;
    t.rttvar_us = 40;
    t.snd_cwnd = 10;
    t.snd_mss = 1448;
    t.pmtu = 1500;
    t.snd_wnd = 65536;
    t.reordering = 3;
    t.reord_seen = 2;
    t.dsack_dups = 1;
    s.tcp_info = t;
  } else if (tcp) {
    s.tcp_info = Measured<TcpInfoSample>::Unknown(Missing::kAbsent, "receiver");
  } else {
    s.packets = bytes / 1000;
    if (!sender) {
      s.lost = 5;
      s.jitter_seconds = 0.00025;
    }
    s.tcp_info = Measured<TcpInfoSample>::Unknown(Missing::kAbsent, "UDP");
  }
  return s;
}

struct StreamPlan {
  int id;
  bool local_sends;
};

// One stream's totals over the 2 s: 25 MB sent, 24.8 MB received.
inline StreamTotals MakeTotals(const StreamPlan& p, bool tcp) {
  StreamTotals t;
  t.id = p.id;
  t.sender = p.local_sends;
  t.bytes_sent = 25000000;
  t.bytes_received = 24800000;
  t.seconds_sent = 2.0;
  t.seconds_received = 2.0;
  if (tcp) {
    t.retransmits = uint64_t{4};
    t.max_snd_cwnd = uint64_t{14480};
    t.min_rtt_us = uint32_t{480};
    t.max_rtt_us = uint32_t{560};
    t.mean_rtt_us = uint32_t{520};
  } else {
    t.retransmits = Measured<uint64_t>::Unknown(Missing::kAbsent, "UDP");
    t.packets = 25000;
    t.lost = 200;
    t.jitter_seconds = 0.0003;
  }
  return t;
}

// The server's end of the same run: the local end's view with the roles of the streams turned.
inline EndpointRecord MakeRemote(const EndpointRecord& local) {
  EndpointRecord remote = local;
  remote.role = record::Role::kServer;
  remote.host = MakeHost("h2");
  remote.cpu = CpuUtilization{20.0, 1.0, 19.0};
  remote.congestion_used = "bbr";
  for (IntervalRecord& interval : remote.intervals) {
    for (StreamInterval& s : interval.streams) s.sender = !s.sender;
  }
  return remote;
}

// A finished run: 2 intervals of 1 s, `plan` streams, each moving 12.5 MB per second (100
// Mbit/s) as the sender counts it and 12.4 MB as the receiver does.
inline RunRecord MakeRun(Transport transport, Direction direction, std::vector<StreamPlan> plan,
                         bool with_remote) {
  const bool tcp = transport == Transport::kTcp;
  RunRecord run;
  run.version = "0.1.0";
  run.timestamp = "2026-11-30T09:02:48Z";
  run.timestamp_secs = 1796029368;
  run.cookie = "q2bxafskzvm5vzqatnn3xinakwhlwuiac2pt";
  run.spec.transport = transport;
  run.spec.direction = direction;
  run.spec.parallel = direction == Direction::kBidirectional ? static_cast<int>(plan.size()) / 2
                                                             : static_cast<int>(plan.size());
  run.spec.duration = std::chrono::milliseconds(2000);
  if (!tcp) run.spec.rate_bits_per_second = 100000000;
  run.server_host = "198.18.0.2";
  run.server_port = 5201;
  run.connections.push_back({"198.18.0.1", "198.18.0.2", 40000, 5201});
  for (size_t i = 0; i < plan.size(); ++i) {
    run.connections.push_back({"198.18.0.1", "198.18.0.2", static_cast<uint16_t>(40001 + i), 5201});
  }
  run.local.role = record::Role::kClient;
  run.local.software = "nicbench 0.1.0";
  run.local.host = MakeHost("h1");
  run.local.nic = MakeNic();
  run.local.cpu = CpuUtilization{40.5, 2.5, 38.0};
  run.local.congestion_used = "cubic";
  for (int i = 0; i < 2; ++i) {
    IntervalRecord interval;
    interval.start = i;
    interval.end = i + 1;
    for (const StreamPlan& p : plan) {
      interval.streams.push_back(
          MakeStream(p.id, p.local_sends, i, i + 1, p.local_sends ? 12500000 : 12400000, tcp));
    }
    run.intervals.push_back(interval);
    run.local.samples.push_back(MakeSample(i, i + 1));
  }
  run.local.intervals = run.intervals;
  for (const StreamPlan& p : plan) run.streams.push_back(MakeTotals(p, tcp));
  run.test_seconds = 2.0;
  if (with_remote) {
    run.remote = MakeRemote(run.local);
  } else {
    run.remote = Measured<EndpointRecord>::Unknown(Missing::kNotReported, "peer is iperf 3.12");
  }
  return run;
}

inline RunRecord MakeTcpRun(bool with_remote = true) {
  return MakeRun(Transport::kTcp, Direction::kForward, {{1, true}, {3, true}}, with_remote);
}
inline RunRecord MakeUdpRun(bool with_remote = true) {
  return MakeRun(Transport::kUdp, Direction::kForward, {{1, true}}, with_remote);
}
inline RunRecord MakeReverseRun(bool with_remote = false) {
  return MakeRun(Transport::kTcp, Direction::kReverse, {{1, false}}, with_remote);
}
inline RunRecord MakeBidirRun(Transport transport = Transport::kTcp, bool with_remote = true) {
  return MakeRun(transport, Direction::kBidirectional, {{1, true}, {3, false}}, with_remote);
}

// A request/response test over 2 intervals of 1 s, one flow: `mode` rr (TCP or UDP) or crr.
// Interval i: 20000 + 1000 i transactions at the client, latency p50 40 + i us; the server's
// intervals count one transaction more each; the whole test 41000 transactions.
inline RunRecord MakeRrRun(Transport transport = Transport::kTcp, RrMode mode = RrMode::kRr) {
  RunRecord run = MakeRun(transport, Direction::kForward, {{1, true}}, true);
  run.spec.rr.mode = mode;
  run.spec.rate_bits_per_second = 0;
  const bool udp = transport == Transport::kUdp;
  auto stats = [&](uint64_t n, double seconds, double p50) {
    RrStats rr;
    rr.transactions = n;
    rr.seconds = seconds;
    rr.latency = LatencySummary{n, p50 + 5, p50 / 2, p50, p50 + 10, p50 + 30, p50 + 60, p50 + 900};
    if (mode == RrMode::kCrr) {
      rr.connect = LatencySummary{n, 12, 8, 11, 14, 20, 31, 400};
    }
    if (udp) {
      rr.lost = 3;
      rr.late = 1;
    }
    return rr;
  };
  for (size_t i = 0; i < run.intervals.size(); ++i) {
    run.intervals[i].rr = stats(20000 + 1000 * i, 1.0, 40.0 + i);
    run.local.intervals[i].rr = run.intervals[i].rr;
    RrStats answered;
    answered.transactions = 20001 + 1000 * i;
    answered.seconds = 1;
    run.remote.value().intervals[i].rr = answered;
  }
  RrSummary s;
  s.local = stats(41000, 2.0, 40.5);
  if (udp) {
    s.local.lost = 6;
    s.local.late = 2;
  }
  s.peer_transactions = 41002;
  s.local_process_us_per_transaction = 14.25;
  s.remote_process_us_per_transaction = 13.5;
  s.local_host_us_per_transaction = 36.5;
  s.remote_host_us_per_transaction = 36.25;
  run.rr = s;
  return run;
}

inline Finding MakeFinding(Severity severity, const std::string& id) {
  return Finding{id,
                 severity,
                 "Title of " + id,
                 {"goodput 99.2 Mbit/s", "link 100 Mbit/s"},
                 "The link is the limit.",
                 "Check the cable and the switch port."};
}

}  // namespace nicbench::record::testing
