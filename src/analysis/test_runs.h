// Test support for analysis tests and the compare benchmark: a synthetic loopback-like RunRecord
// with both ends reporting, whose goodput, CPU use and NIC facts a test sets. Header-only.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "record/run_record.h"

namespace nicbench::analysis::testing {

struct RunShape {
  record::Direction direction = record::Direction::kForward;
  double bits_per_second = 8e9;  // 1 GB/s
  double busy_percent = 25;      // each of 4 CPUs, both ends: one core in all
  uint64_t nic_irqs_per_second = 8000;
  bool tso = true;
  uint32_t mtu = 1500;
  uint64_t retransmits = 0;
  uint32_t rtt_us = 100;
  // When set, each end's samples carry its namespace's IPv4 bytes (IpExt): the test's own
  // bytes with their headers, plus this much other traffic a second.
  std::optional<double> other_ip_bytes_per_second;
  // With it, each namespace receives 100,000 packets a second (Ip.InReceives), and the host's
  // CPUs receive those (both ends' on a shared host) plus this many more (softnet processed).
  double other_host_packets_per_second = 0;
  // With it and when set, each sample carries the IP bytes of every namespace of its host
  // (host_ip_bytes): the test's namespaces' (both ends' on a shared host) plus this many more.
  std::optional<double> other_host_ip_bytes_per_second;
  bool shared_host = false;  // both ends on one machine, in two namespaces (the stand)
};
inline constexpr int64_t kNamespacePacketsPerSecond = 100000;

inline record::EndpointRecord MakeEnd(const char* role, const RunShape& shape, int seconds) {
  record::EndpointRecord end;
  end.role = std::string_view(role) == "server" ? record::Role::kServer : record::Role::kClient;
  end.software = "nicbench 0.1.0";
  end.host.hostname = shape.shared_host ? std::string("stand") : std::string("h-") + role;
  end.host.cpu_count = 4;
  end.host.kernel = std::string("6.1.0");
  end.nic.interface = "eth0";
  end.nic.driver = std::string("igb");
  end.nic.mtu = shape.mtu;
  end.nic.offloads = std::vector<record::OffloadState>{
      {"tcp-segmentation-offload", shape.tso, false}, {"generic-receive-offload", true, false}};
  end.nic.qdisc = record::Qdisc{"fq_codel", 0, 0};
  end.congestion_used = "cubic";
  for (int i = 0; i < seconds; ++i) {
    record::HostInterval s;
    s.start = i, s.end = i + 1;
    std::vector<record::CpuShare> cpus;
    for (int c = 0; c < 4; ++c) {
      record::CpuShare share;
      share.cpu = c;
      share.system = shape.busy_percent;
      share.idle = 100 - shape.busy_percent;
      cpus.push_back(share);
    }
    s.cpus = cpus;
    // All the busy time is nicbench's own (no softirq counts): the transfer's cost and the
    // host's are the same figure.
    record::ProcessUsage process;
    process.system_seconds = 4 * shape.busy_percent / 100;
    s.process = process;
    record::IrqRate line;
    line.irq = "45", line.name = "eth0-TxRx-0", line.nic = true;
    line.total = shape.nic_irqs_per_second;
    s.irqs = std::vector<record::IrqRate>{line};
    if (shape.other_ip_bytes_per_second) {
      const auto own = static_cast<int64_t>(shape.bits_per_second / 8 * 1.04);
      const auto other = static_cast<int64_t>(*shape.other_ip_bytes_per_second);
      s.net_counters =
          std::map<std::string, int64_t>{{"IpExt.InOctets", own + other},
                                         {"IpExt.OutOctets", 0},
                                         {"Ip.InReceives", kNamespacePacketsPerSecond}};
      const double here = kNamespacePacketsPerSecond * (shape.shared_host ? 2 : 1);
      std::vector<record::SoftnetDelta> softnet;
      for (int c = 0; c < 4; ++c) {
        softnet.push_back(
            {c, static_cast<uint64_t>((here + shape.other_host_packets_per_second) / 4), 0, 0});
      }
      s.softnet = softnet;
      if (shape.other_host_ip_bytes_per_second) {
        const double namespaces = static_cast<double>(own + other) * (shape.shared_host ? 2 : 1);
        s.host_ip_bytes = static_cast<uint64_t>(namespaces + *shape.other_host_ip_bytes_per_second);
      }
    }
    end.samples.push_back(s);
  }
  return end;
}

// `seconds` one-second intervals, one stream.
inline record::RunRecord MakeRun(const RunShape& shape = {}, int seconds = 4) {
  record::RunRecord run;
  run.spec.direction = shape.direction;
  run.test_seconds = seconds;
  run.local = MakeEnd("client", shape, seconds);
  run.remote = MakeEnd("server", shape, seconds);
  const bool client_sends = shape.direction == record::Direction::kForward;
  record::StreamTotals s;
  s.id = 1;
  s.sender = client_sends;
  s.bytes_sent = s.bytes_received = static_cast<uint64_t>(shape.bits_per_second / 8 * seconds);
  s.seconds_sent = s.seconds_received = seconds;
  s.retransmits = shape.retransmits;
  run.streams.push_back(s);
  record::EndpointRecord& sender = client_sends ? run.local : run.remote.value();
  for (int i = 0; i < seconds; ++i) {
    record::IntervalRecord iv;
    iv.start = i, iv.end = i + 1;
    record::StreamInterval st;
    st.id = 1, st.sender = true, st.start = i, st.end = i + 1;
    record::TcpInfoSample info;
    info.rtt_us = shape.rtt_us;
    st.tcp_info = info;
    iv.streams.push_back(st);
    sender.intervals.push_back(iv);
  }
  return run;
}

}  // namespace nicbench::analysis::testing
