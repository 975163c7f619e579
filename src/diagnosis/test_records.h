// Test support for the diagnosis unit tests: synthetic RunRecords of a healthy baseline that
// each test bends into the case it checks. Header-only, used only by *_test.cc.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "diagnosis/diagnose.h"
#include "record/run_record.h"

namespace nicbench::diagnosis::testing {

// The finding with `id` in `findings`, or nullptr. The pointer is into `findings`: keep the
// vector alive while it is used.
inline const record::Finding* Find(const std::vector<record::Finding>& findings,
                                   const std::string& id) {
  auto it = std::find_if(findings.begin(), findings.end(),
                         [&](const record::Finding& f) { return f.id == id; });
  return it == findings.end() ? nullptr : &*it;
}

// The findings' ids and severities, for a failing assertion's message.
inline std::string Ids(const std::vector<record::Finding>& findings) {
  std::string out;
  for (const auto& f : findings) out += f.id + "(" + diagnosis::SeverityName(f.severity) + ") ";
  return out;
}

// Whether any line of the finding's evidence holds `phrase`.
inline bool AnyEvidence(const record::Finding& f, const std::string& phrase) {
  return std::any_of(f.evidence.begin(), f.evidence.end(),
                     [&](const auto& e) { return e.find(phrase) != std::string::npos; });
}

inline constexpr int kIntervals = 10;
inline constexpr int kCpus = 4;

inline record::NicFacts PhysicalNic(uint64_t speed_mbps = 1000) {
  record::NicFacts nic;
  nic.interface = "eth0";
  nic.driver = std::string("igb");
  nic.speed_mbps = speed_mbps;
  nic.duplex = std::string("full");
  nic.mtu = 1500u;
  nic.irq_mode = std::string("MSI-X");
  nic.pci =
      record::PciIdentity{"8086", "1533", "Intel Corporation", "I210 Gigabit Network Connection"};
  std::vector<record::OffloadState> offloads;
  for (const char* name : {"tcp-segmentation-offload", "generic-segmentation-offload",
                           "generic-receive-offload", "tx-checksumming", "rx-checksumming"}) {
    offloads.push_back({name, true, false});
  }
  nic.offloads = offloads;
  nic.qdisc = record::Qdisc{"fq_codel", 0, 0};
  return nic;
}

inline record::NicFacts LoopbackNic() {
  record::NicFacts nic;
  nic.interface = "lo";
  nic.loopback = true;
  nic.mtu = 65536u;
  return nic;
}

inline record::NicFacts VethNic(uint64_t qdisc_rate = 0) {
  record::NicFacts nic = PhysicalNic(10000);
  nic.interface = "nb-h1-e0";
  nic.driver = std::string("veth");
  nic.pci = record::Measured<record::PciIdentity>::Unknown(record::Missing::kAbsent);
  nic.irq_mode = record::Measured<std::string>::Unknown(record::Missing::kAbsent);
  nic.qdisc =
      qdisc_rate > 0 ? record::Qdisc{"tbf", qdisc_rate, 24} : record::Qdisc{"noqueue", 0, 0};
  return nic;
}

// A quiet CPU: 20% busy (user 5, system 10, softirq 5).
inline record::CpuShare QuietCpu(int cpu) {
  record::CpuShare c;
  c.cpu = cpu;
  c.user = 5;
  c.system = 10;
  c.softirq = 5;
  c.idle = 80;
  return c;
}

inline record::HostInterval QuietSample(int i) {
  record::HostInterval s;
  s.start = i;
  s.end = i + 1;
  std::vector<record::CpuShare> cpus;
  for (int c = 0; c < kCpus; ++c) cpus.push_back(QuietCpu(c));
  s.cpus = cpus;
  record::IrqRate line;
  line.irq = "45";
  line.name = "eth0-TxRx-0";
  line.nic = true;
  line.per_cpu = {2000, 2000, 2000, 2000};
  line.total = 8000;
  line.per_second = 8000;
  s.irqs = std::vector<record::IrqRate>{line};
  s.softnet = std::vector<record::SoftnetDelta>{{0, 1000, 0, 0}};
  s.net_counters = std::map<std::string, int64_t>{{"Tcp.RetransSegs", 0}, {"Udp.RcvbufErrors", 0}};
  s.process = record::ProcessUsage{0.05, 0.10, 100, 1, 0, 0, {}, {}};
  return s;
}

inline record::EndpointRecord MakeEnd(const std::string& role, const std::string& hostname) {
  record::EndpointRecord end;
  end.role = role == "server" ? record::Role::kServer : record::Role::kClient;
  end.software = "nicbench 0.1.0";
  end.host.hostname = hostname;
  end.host.cpu_count = kCpus;
  end.nic = PhysicalNic();
  for (int i = 0; i < kIntervals; ++i) end.samples.push_back(QuietSample(i));
  return end;
}

// Per-interval view: one stream; `sender` says whether the viewing end sends on it.
inline std::vector<record::IntervalRecord> MakeIntervals(double bits_per_second, bool sender) {
  std::vector<record::IntervalRecord> out;
  for (int i = 0; i < kIntervals; ++i) {
    record::IntervalRecord iv;
    iv.start = i;
    iv.end = i + 1;
    record::StreamInterval s;
    s.id = 5;
    s.sender = sender;
    s.start = i;
    s.end = i + 1;
    s.bytes = static_cast<uint64_t>(bits_per_second / 8);
    if (sender) {
      record::TcpInfoSample info;
      info.rtt_us = 200;
      info.snd_mss = 1448;
      info.snd_cwnd = 100;
      info.busy_time_us = static_cast<uint64_t>(i + 1) * 1000000;
      s.tcp_info = info;
    }
    iv.streams.push_back(s);
    out.push_back(iv);
  }
  return out;
}

// A healthy forward TCP test: local client sends to a remote nicbench server at
// `bits_per_second` over 1 Gbit/s NICs, 10 one-second intervals, quiet CPUs.
inline record::RunRecord MakeRun(double bits_per_second = 700e6) {
  record::RunRecord run;
  run.version = "0.1.0";
  run.spec.duration = std::chrono::seconds(kIntervals);
  run.connections.push_back({"198.18.0.1", "198.18.0.2", 40000, 5201});
  run.local = MakeEnd("client", "alpha");
  record::EndpointRecord remote = MakeEnd("server", "beta");
  run.local.intervals = MakeIntervals(bits_per_second, true);
  remote.intervals = MakeIntervals(bits_per_second, false);
  run.remote = remote;
  run.intervals = run.local.intervals;
  record::StreamTotals totals;
  totals.id = 5;
  totals.sender = true;
  totals.bytes_sent = totals.bytes_received =
      static_cast<uint64_t>(bits_per_second / 8 * kIntervals);
  totals.seconds_sent = totals.seconds_received = kIntervals;
  totals.retransmits = uint64_t{0};
  run.streams.push_back(totals);
  run.test_seconds = kIntervals;
  return run;
}

inline record::EndpointRecord& Remote(record::RunRecord& run) { return run.remote.value(); }

// Applies `change` to every sample of `end`.
inline void EachSample(record::EndpointRecord& end,
                       const std::function<void(record::HostInterval&)>& change) {
  for (auto& s : end.samples) change(s);
}

// Sets one CPU of every sample of `end` to the given shares.
inline void SetCpu(record::EndpointRecord& end, int cpu, double user, double system, double irq,
                   double softirq) {
  EachSample(end, [&](record::HostInterval& s) {
    record::CpuShare& c = s.cpus.value()[cpu];
    c.user = user;
    c.system = system;
    c.irq = irq;
    c.softirq = softirq;
    c.idle = std::max(0.0, 100 - user - system - irq - softirq);
  });
}

inline void SetProcessPercent(record::EndpointRecord& end, double percent) {
  EachSample(end, [&](record::HostInterval& s) {
    s.process = record::ProcessUsage{percent / 200, percent / 200, 100, 1, 0, 0, {}, {}};
  });
}

// nicbench's threads at `end` waited `share` seconds per second for a CPU (run-queue delay).
inline void SetRunQueueWait(record::EndpointRecord& end, double share) {
  EachSample(end, [&](record::HostInterval& s) {
    s.run_queue = record::RunQueueDelay{0.5 * (s.end - s.start), share * (s.end - s.start), 3};
  });
}

inline void SetAllowedCpus(record::EndpointRecord& end, const std::vector<int>& cpus) {
  EachSample(end, [&](record::HostInterval& s) {
    if (s.process.known()) s.process.value().allowed_cpus = cpus;
  });
}

}  // namespace nicbench::diagnosis::testing
