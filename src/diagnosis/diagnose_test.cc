// Table-driven tests of the diagnosis rules: each case bends a healthy synthetic record into
// one situation and states which finding must (or must not) appear.
#include "diagnosis/diagnose.h"

#include "analysis/cost.h"

#include <algorithm>
#include <functional>
#include <ostream>

#include <gtest/gtest.h>

#include "diagnosis/test_records.h"

namespace nicbench::diagnosis {
namespace {

using namespace testing;  // NOLINT: the test record helpers
using record::Missing;
using record::RunRecord;
using record::Severity;

// Spreads `total` DSACKed segments evenly over the sender's cumulative TCP_INFO samples.
void SetDsackDups(RunRecord& run, uint64_t total) {
  for (auto* intervals : {&run.intervals, &run.local.intervals}) {
    const size_t n = intervals->size();
    for (size_t i = 0; i < n; ++i) {
      for (auto& stream : (*intervals)[i].streams) {
        if (!stream.tcp_info.known() || !stream.sender) continue;
        record::TcpInfoSample& info = stream.tcp_info.value();
        info.dsack_dups = static_cast<uint32_t>(total * (i + 1) / n);
        info.reord_seen = static_cast<uint32_t>(10 * (i + 1));
        info.reordering = 300;
      }
    }
  }
}

// 2% of the segments retransmitted, every one of them reported back as a duplicate.
void AllRetransmissionsNeedless(RunRecord& run) {
  const uint64_t retrans = run.streams[0].bytes_sent / 1448 / 50;
  run.streams[0].retransmits = retrans;
  SetDsackDups(run, retrans);
}

bool AnyWarning(const std::vector<record::Finding>& findings) {
  return std::any_of(findings.begin(), findings.end(),
                     [](const auto& f) { return f.severity >= Severity::kWarning; });
}

struct Case {
  const char* name;
  std::function<void(RunRecord&)> setup;
  const char* id;
  bool present;
  // Optional: a phrase the finding's title or evidence must contain.
  const char* phrase = nullptr;
};

// gtest prints a parameter in ctest's listing; the name says it all (the default dumps bytes).
void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

void Loopback(RunRecord& run) {
  run.local.nic = LoopbackNic();
  Remote(run).nic = LoopbackNic();
  Remote(run).host.hostname = std::string("alpha");
}

void ReceiverSoftirqSaturated(RunRecord& run) { SetCpu(Remote(run), 1, 1, 1, 3, 94); }

void ReceiverStarvedOnSharedStand(RunRecord& run) {
  run.local.nic = VethNic();
  Remote(run).nic = VethNic();
  Remote(run).host.hostname = std::string("alpha");  // stand namespaces: one machine
  for (auto* end : {&run.local, &Remote(run)}) SetCpu(*end, 0, 80, 18, 0, 1);
  SetProcessPercent(run.local, 30);
  SetProcessPercent(Remote(run), 45);
  SetRunQueueWait(Remote(run), 0.4);
  for (auto& iv : run.local.intervals) iv.streams[0].tcp_info.value().rwnd_limited_us = 0;
  auto& last = run.local.intervals.back().streams[0].tcp_info.value();
  last.rwnd_limited_us = last.busy_time_us * 8 / 10;
  run.intervals = run.local.intervals;
}

// The stand scenario as measured: server and a busy loop pinned to cpu0, client on cpu1. The
// client's rusage holds softirq work /proc/stat books as softirq, so the host-wide estimate of
// other processes (128% user+system - 110% nicbench = 18%) would miss the busy loop.
// The receiver's NIC interrupts all on cpu0, which is 99% busy in softirq while the others idle.
void IrqsOnOneSaturatedCore(RunRecord& run) {
  SetCpu(Remote(run), 0, 0, 0, 70, 29);
  EachSample(Remote(run), [](record::HostInterval& s) {
    s.irqs.value()[0].per_cpu = {30000, 10, 10, 10};
    s.irqs.value()[0].total = 30030;
  });
}

void ReceiverPinnedWithBusyLoop(RunRecord& run) {
  run.local.nic = VethNic();
  Remote(run).nic = VethNic();
  Remote(run).host.hostname = std::string("alpha");
  for (auto* end : {&run.local, &Remote(run)}) {
    SetCpu(*end, 0, 81, 16, 0, 3);
    SetCpu(*end, 1, 1, 30, 0, 25);
    SetCpu(*end, 2, 0, 0, 0, 0);  // a two-CPU machine: the others idle
    SetCpu(*end, 3, 0, 0, 0, 0);
  }
  SetProcessPercent(run.local, 70);
  SetProcessPercent(Remote(run), 40);
  SetAllowedCpus(run.local, {1});
  SetAllowedCpus(Remote(run), {0});
  SetRunQueueWait(Remote(run), 0.5);
  run.intervals = run.local.intervals;
}

const Case kCases[] = {
    {"healthy run says so", [](RunRecord&) {}, "no-problem-found", true},
    {"healthy run is not link-limited at 70%", [](RunRecord&) {}, "link-rate-limited", false},
    {"100 Mbit/s link at 94 Mbit/s is link-rate limited",
     [](RunRecord& run) {
       run = MakeRun(94e6);
       run.local.nic.speed_mbps = uint64_t{100};
       Remote(run).nic.speed_mbps = uint64_t{100};
     },
     "link-rate-limited", true, "1448/1538"},
    {"100 Mbit/s link is still healthy",
     [](RunRecord& run) {
       run = MakeRun(94e6);
       run.local.nic.speed_mbps = uint64_t{100};
     },
     "no-problem-found", true},
    {"link limit uses the slower end",
     [](RunRecord& run) {
       run = MakeRun(94e6);
       Remote(run).nic.speed_mbps = uint64_t{100};
     },
     "link-rate-limited", true, "remote server (receiver)"},
    {"shaping qdisc on the sender counts skb length plus overhead",
     [](RunRecord& run) {
       run = MakeRun(93e6);
       run.local.nic = VethNic(100000000);
       Remote(run).nic = VethNic(100000000);
     },
     "link-rate-limited", true, "1448/1538"},
    {"a paced test below the link rate is not link limited",
     [](RunRecord& run) {
       run = MakeRun(94e6);
       run.spec.rate_bits_per_second = 50000000;
       run.local.nic.speed_mbps = uint64_t{100};
     },
     "link-rate-limited", false},
    {"speed unknown without permission: says the evidence is missing",
     [](RunRecord& run) {
       run.local.nic.speed_mbps = record::Measured<uint64_t>::Unknown(Missing::kPermissionDenied);
       Remote(run).nic.speed_mbps = record::Measured<uint64_t>::Unknown(Missing::kPermissionDenied);
     },
     "link-speed-unknown", true, "permission denied"},
    {"far below the link with nothing else", [](RunRecord& run) { run = MakeRun(300e6); },
     "far-below-link-rate", true},
    {"far below but explained by a CPU-bound receiver",
     [](RunRecord& run) {
       run = MakeRun(300e6);
       ReceiverSoftirqSaturated(run);
     },
     "far-below-link-rate", false},
    {"receiver core saturated by softirq", ReceiverSoftirqSaturated, "receiver-cpu-bound", true,
     "softirq"},
    {"receiver softirq saturation is not competition", ReceiverSoftirqSaturated,
     "receiver-cpu-bound", true, "mostly"},
    {"sender core saturated by system time",
     [](RunRecord& run) {
       SetCpu(run.local, 2, 10, 85, 0, 3);
       SetProcessPercent(run.local, 95);  // nicbench's own work fills the core
     },
     "sender-cpu-bound", true, "system"},
    {"receiver core shared with a competing process",
     [](RunRecord& run) {
       SetCpu(Remote(run), 0, 60, 38, 0, 1);
       SetProcessPercent(Remote(run), 45);
       SetRunQueueWait(Remote(run), 0.5);
     },
     "receiver-cpu-bound", true, "other processes take ~53%"},
    {"a receiver that mostly sleeps waits little per second, but much of what it asks for",
     [](RunRecord& run) {
       SetCpu(Remote(run), 0, 75, 22, 0, 3);
       SetProcessPercent(Remote(run), 24);
       SetRunQueueWait(Remote(run), 0.045);  // 4.5 / (4.5 + 24) = 16% of its wanted CPU time
     },
     "receiver-cpu-bound", true, "other processes take"},
    {"a short wait of a busy end is not competition",
     [](RunRecord& run) {
       SetCpu(Remote(run), 0, 60, 38, 0, 1);
       SetProcessPercent(Remote(run), 45);
       SetRunQueueWait(Remote(run), 0.03);  // 3 / (3 + 45) = 6%
     },
     "receiver-cpu-bound", false},
    {"a busy core whose other work never delays nicbench is no CPU finding",
     [](RunRecord& run) {
       SetCpu(Remote(run), 0, 60, 38, 0, 1);
       SetProcessPercent(Remote(run), 45);
       SetRunQueueWait(Remote(run), 0.01);
     },
     "receiver-cpu-bound", false},
    {"without run-queue samples competition is not claimed",
     [](RunRecord& run) {
       SetCpu(Remote(run), 0, 60, 38, 0, 1);
       SetProcessPercent(Remote(run), 45);
     },
     "receiver-cpu-bound", false},
    {"a transfer at its link's ceiling is not CPU-bound, even beside a competitor",
     [](RunRecord& run) {
       run = MakeRun(941e6);
       SetCpu(Remote(run), 0, 60, 38, 0, 1);
       SetProcessPercent(Remote(run), 45);
       SetRunQueueWait(Remote(run), 0.5);
     },
     "receiver-cpu-bound", false},
    {"competition names the waiting end in title and evidence",
     [](RunRecord& run) {
       SetCpu(Remote(run), 0, 60, 38, 0, 1);
       SetProcessPercent(Remote(run), 45);
       SetRunQueueWait(Remote(run), 0.5);
     },
     "receiver-cpu-bound", true, "threads at the remote server (receiver) waited for a CPU 500 ms"},
    {"saturation in only 3 of 10 intervals is not CPU-bound",
     [](RunRecord& run) {
       for (int i = 0; i < 3; ++i) {
         auto& c = Remote(run).samples[i].cpus.value()[1];
         c.softirq = 95;
         c.idle = 0;
       }
     },
     "receiver-cpu-bound", false},
    {"CPU samples missing: the CPU rule stays silent",
     [](RunRecord& run) {
       ReceiverSoftirqSaturated(run);
       EachSample(Remote(run), [](record::HostInterval& s) {
         s.cpus = record::Measured<std::vector<record::CpuShare>>::Unknown(Missing::kNotSupported);
       });
     },
     "receiver-cpu-bound", false},
    {"loopback at 100% CPU is an info note",
     [](RunRecord& run) {
       Loopback(run);
       SetCpu(run.local, 0, 30, 69, 0, 1);
       SetProcessPercent(run.local, 98);
     },
     "cpu-bound-software-path", true},
    {"loopback at 100% CPU is not a tool warning",
     [](RunRecord& run) {
       Loopback(run);
       SetProcessPercent(run.local, 99);
       SetProcessPercent(Remote(run), 99);
     },
     "measurement-tool-cpu-bound", false},
    {"loopback has no link-rate finding", Loopback, "link-rate-limited", false},
    {"starved receiver on a shared-host stand is blamed on the receiver",
     ReceiverStarvedOnSharedStand, "receiver-cpu-bound", true, "other processes take"},
    {"receiver pinned beside a busy loop: the core's time beyond nicbench's is the competitor",
     ReceiverPinnedWithBusyLoop, "receiver-cpu-bound", true, "other processes take ~57%"},
    {"competition on a core nicbench is not pinned to needs the host-wide figure too",
     [](RunRecord& run) {
       ReceiverPinnedWithBusyLoop(run);
       SetAllowedCpus(Remote(run), {0, 1});
     },
     "receiver-cpu-bound", false},
    {"starved receiver on a stand is a warning, not the software-path note",
     ReceiverStarvedOnSharedStand, "cpu-bound-software-path", false},
    {"NIC interrupts all on one saturated core while others idle", IrqsOnOneSaturatedCore,
     "irq-concentration", true, "landed on cpu0"},
    {"one flow on one saturated interrupt core: one flow is always one queue, use -P",
     IrqsOnOneSaturatedCore, "irq-concentration", true, "one flow is always one queue"},
    {"spread interrupts are not concentration",
     [](RunRecord& run) { SetCpu(Remote(run), 0, 0, 0, 70, 29); }, "irq-concentration", false},
    {"2% retransmissions warn",
     [](RunRecord& run) {
       run.streams[0].retransmits = uint64_t{run.streams[0].bytes_sent / 1448 / 50};
     },
     "retransmissions", true, "2.00%"},
    {"needless retransmissions (DSACK) are reordering, not loss", AllRetransmissionsNeedless,
     "reordering", true, "needlessly"},
    {"needless retransmissions do not warn as loss", AllRetransmissionsNeedless, "retransmissions",
     false},
    {"DSACKs during the omitted warm-up are not counted",
     [](RunRecord& run) {
       AllRetransmissionsNeedless(run);
       // Everything arrived in the first (omitted) interval: nothing after it.
       for (auto* intervals : {&run.intervals, &run.local.intervals}) {
         for (size_t i = 0; i < intervals->size(); ++i) {
           (*intervals)[i].omitted = i == 0;
           auto& info = (*intervals)[i].streams[0].tcp_info;
           if (info.known()) info.value().dsack_dups = 100000;
         }
       }
     },
     "reordering", false},
    {"retransmissions from host counters when TCP_INFO totals are missing",
     [](RunRecord& run) {
       run.streams[0].retransmits = record::Measured<uint64_t>::Unknown(Missing::kNotReported);
       EachSample(run.local, [](record::HostInterval& s) {
         s.net_counters.value()["Tcp.RetransSegs"] = 2000;
       });
     },
     "retransmissions", true, "Tcp.RetransSegs"},
    {"retransmissions unknown: silent",
     [](RunRecord& run) {
       run.streams[0].retransmits = record::Measured<uint64_t>::Unknown(Missing::kNotReported);
       EachSample(run.local, [](record::HostInterval& s) {
         s.net_counters =
             record::Measured<std::map<std::string, int64_t>>::Unknown(Missing::kPermissionDenied);
       });
     },
     "retransmissions", false},
    {"UDP loss",
     [](RunRecord& run) {
       run.spec.transport = record::Transport::kUdp;
       run.streams[0].packets = 10000;
       run.streams[0].lost = 500;
     },
     "udp-loss", true, "5.0%"},
    {"softnet drops",
     [](RunRecord& run) { Remote(run).samples[4].softnet.value()[0].dropped = 17; },
     "softnet-drops", true, "+17"},
    {"socket receive buffer errors",
     [](RunRecord& run) { Remote(run).samples[2].net_counters.value()["Udp.RcvbufErrors"] = 40; },
     "socket-buffer-drops", true, "Udp.RcvbufErrors +40"},
    {"sender held back by the receive window with -w",
     [](RunRecord& run) {
       run.spec.window_bytes = 65536;
       auto& last = run.local.intervals.back().streams[0].tcp_info.value();
       last.rwnd_limited_us = last.busy_time_us * 9 / 10;
       run.intervals = run.local.intervals;
     },
     "receive-window-limited", true, "-w"},
    {"send buffer limited",
     [](RunRecord& run) {
       auto& last = run.local.intervals.back().streams[0].tcp_info.value();
       last.sndbuf_limited_us = last.busy_time_us * 7 / 10;
     },
     "send-buffer-limited", true},
    {"TSO off", [](RunRecord& run) { Remote(run).nic.offloads.value()[0].on = false; },
     "offloads-off", true, "tcp-segmentation-offload"},
    {"offloads unknown: silent",
     [](RunRecord& run) {
       Remote(run).nic.offloads =
           record::Measured<std::vector<record::OffloadState>>::Unknown(Missing::kNotSupported);
     },
     "offloads-off", false},
    {"veth GRO off by default is not news",
     [](RunRecord& run) {
       run.local.nic = VethNic();
       run.local.nic.offloads.value()[2].on = false;
     },
     "offloads-off", false},
    {"MTU mismatch", [](RunRecord& run) { Remote(run).nic.mtu = 9000u; }, "mtu-mismatch", true},
    {"half duplex", [](RunRecord& run) { Remote(run).nic.duplex = std::string("half"); },
     "half-duplex", true},
    {"gigabit NIC at 100baseTX (the msk case)",
     [](RunRecord& run) {
       run.local.nic.speed_mbps = uint64_t{100};
       run.local.nic.pci = record::PciIdentity{"11ab", "436c", "Marvell Technology Group Ltd.",
                                               "88E8072 PCI-E Gigabit Ethernet Controller"};
     },
     "link-below-nic-speed", true, "88E8072"},
    {"ends at different speeds", [](RunRecord& run) { Remote(run).nic.speed_mbps = uint64_t{100}; },
     "link-speed-differs", true},
    {"legacy INTx", [](RunRecord& run) { run.local.nic.irq_mode = std::string("INTx"); },
     "irq-mode-legacy", true},
    {"test too short",
     [](RunRecord& run) {
       run.test_seconds = 1;
       run.streams[0].seconds_received = run.streams[0].seconds_sent = 1;
     },
     "measurement-too-short", true},
    {"a -n test that ended within -O counted nothing",
     [](RunRecord& run) {
       run.spec.omit = std::chrono::seconds(2);
       run.test_seconds = 0;
       run.streams[0].seconds_received = run.streams[0].seconds_sent = 0;
     },
     "measurement-empty", true, "omitted warm-up"},
    {"nothing counted without omit is not called empty",
     [](RunRecord& run) {
       run.test_seconds = 0;
       run.streams[0].seconds_received = run.streams[0].seconds_sent = 0;
     },
     "measurement-empty", false},
    {"intervals vary wildly",
     [](RunRecord& run) {
       for (size_t i = 0; i < run.intervals.size(); ++i) {
         run.intervals[i].streams[0].bytes = i % 2 ? 120000000 : 5000000;
       }
     },
     "measurement-unsteady", true},
    {"an omitted slow warm-up does not make intervals unsteady",
     [](RunRecord& run) {
       run.intervals[0].omitted = true;
       run.intervals[0].streams[0].bytes = 1000;
     },
     "measurement-unsteady", false},
    {"nicbench at 100% of a core on a real NIC",
     [](RunRecord& run) { SetProcessPercent(run.local, 99); }, "measurement-tool-cpu-bound", true},
    {"stock iperf3 peer: says so",
     [](RunRecord& run) {
       run.remote =
           record::Measured<record::EndpointRecord>::Unknown(Missing::kNotReported, "iperf 3.12");
     },
     "remote-not-reported", true, "iperf 3.12"},
    {"stock iperf3 peer: no receiver CPU rule",
     [](RunRecord& run) {
       ReceiverSoftirqSaturated(run);
       run.remote = record::Measured<record::EndpointRecord>::Unknown(Missing::kNotReported);
     },
     "receiver-cpu-bound", false},
};

class RuleTable : public ::testing::TestWithParam<Case> {};

TEST_P(RuleTable, Finding) {
  const Case& c = GetParam();
  RunRecord run = MakeRun();
  c.setup(run);
  auto findings = Diagnose(run);
  const record::Finding* f = Find(findings, c.id);
  EXPECT_EQ(f != nullptr, c.present) << Ids(findings);
  if (f != nullptr && c.phrase != nullptr) {
    std::string text = f->title;
    for (const auto& e : f->evidence) text += "\n" + e;
    EXPECT_NE(text.find(c.phrase), std::string::npos) << text;
  }
  for (const auto& finding : findings) {
    EXPECT_FALSE(finding.title.empty());
    EXPECT_FALSE(finding.meaning.empty()) << finding.id;
    EXPECT_FALSE(finding.next_step.empty()) << finding.id;
  }
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name;
  for (const char* p = info.param.name; *p; ++p)
    name += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Diagnosis, RuleTable, ::testing::ValuesIn(kCases), CaseName);

TEST(Diagnose, HealthyRunHasNoWarning) {
  auto findings = Diagnose(MakeRun());
  EXPECT_FALSE(AnyWarning(findings)) << Ids(findings);
}

TEST(Diagnose, CleanLoopbackHasNoWarning) {
  RunRecord run = MakeRun(40e9);
  Loopback(run);
  SetCpu(run.local, 0, 20, 79, 0, 1);
  SetCpu(Remote(run), 0, 20, 79, 0, 1);
  SetProcessPercent(run.local, 99);
  SetProcessPercent(Remote(run), 99);
  auto& last = run.local.intervals.back().streams[0].tcp_info.value();
  last.rwnd_limited_us = last.busy_time_us * 9 / 10;
  run.intervals = run.local.intervals;
  auto findings = Diagnose(run);
  EXPECT_FALSE(AnyWarning(findings)) << Ids(findings);
  EXPECT_NE(Find(findings, "cpu-bound-software-path"), nullptr) << Ids(findings);
}

// Several flows on one interrupt core are RSS's to spread: the finding points at queues and
// affinity, and says nothing of one flow being one queue.
TEST(Diagnose, IrqConcentrationOfSeveralFlowsPointsAtRss) {
  RunRecord run = MakeRun();
  IrqsOnOneSaturatedCore(run);
  for (int id = 2; id <= 4; ++id) {
    auto t = run.streams[0];
    t.id = id;
    run.streams.push_back(t);
  }
  run.spec.parallel = 4;
  const auto findings = Diagnose(run);
  const record::Finding* f = Find(findings, "irq-concentration");
  ASSERT_NE(f, nullptr) << Ids(findings);
  EXPECT_NE(f->next_step.find("Use more queues with RSS"), std::string::npos) << f->next_step;
  EXPECT_EQ(f->meaning.find("one flow is always one queue"), std::string::npos) << f->meaning;
}

TEST(Diagnose, SortedMostSevereFirst) {
  RunRecord run = MakeRun();
  ReceiverSoftirqSaturated(run);
  Remote(run).nic.offloads.value()[0].on = false;
  auto findings = Diagnose(run);
  ASSERT_GE(findings.size(), 2u);
  EXPECT_TRUE(std::is_sorted(findings.begin(), findings.end(),
                             [](const auto& a, const auto& b) { return a.severity > b.severity; }));
  EXPECT_EQ(findings.front().id, "receiver-cpu-bound");
  EXPECT_EQ(Find(findings, "no-problem-found"), nullptr);
}

TEST(Diagnose, ReverseTestNamesTheServerAsSender) {
  RunRecord run = MakeRun();
  run.spec.direction = record::Direction::kReverse;
  run.streams[0].sender = false;
  run.local.intervals = MakeIntervals(700e6, false);
  Remote(run).intervals = MakeIntervals(700e6, true);
  run.intervals = run.local.intervals;
  SetCpu(Remote(run), 3, 10, 85, 0, 3);
  SetProcessPercent(Remote(run), 95);
  auto findings = Diagnose(run);
  const record::Finding* f = Find(findings, "sender-cpu-bound");
  ASSERT_NE(f, nullptr) << Ids(findings);
  EXPECT_NE(f->title.find("remote server (sender)"), std::string::npos) << f->title;
  // The evidence describes the same end as the title.
  ASSERT_FALSE(f->evidence.empty());
  EXPECT_EQ(f->evidence[0].rfind("remote server (sender)", 0), 0u) << f->evidence[0];
  for (const std::string& e : f->evidence) {
    EXPECT_EQ(e.find("local client"), std::string::npos) << e;
  }
}

TEST(Diagnose, BidirectionalHasTwoFlows) {
  RunRecord run = MakeRun(94e6);
  run.spec.direction = record::Direction::kBidirectional;
  run.local.nic.speed_mbps = uint64_t{100};
  record::StreamTotals back = run.streams[0];
  back.id = 7;
  back.sender = false;
  run.streams.push_back(back);
  auto findings = Diagnose(run);
  int link = std::count_if(findings.begin(), findings.end(),
                           [](const auto& f) { return f.id == "link-rate-limited"; });
  EXPECT_EQ(link, 2) << Ids(findings);
}

TEST(DiagnosePair, AsymmetryPointsAtTheSlowDirection) {
  RunRecord forward = MakeRun(900e6);
  RunRecord reverse = MakeRun(200e6);
  reverse.spec.direction = record::Direction::kReverse;
  reverse.streams[0].sender = false;
  SetCpu(reverse.local, 1, 2, 20, 30, 47);  // the client receives in reverse
  auto findings = DiagnosePair(forward, reverse);
  const record::Finding* f = Find(findings, "asymmetric-directions");
  ASSERT_NE(f, nullptr) << Ids(findings);
  EXPECT_NE(f->title.find("server to client"), std::string::npos) << f->title;
  std::string text;
  for (const auto& e : f->evidence) text += e + "\n";
  EXPECT_NE(text.find("receiver-cpu-bound"), std::string::npos) << text;
}

TEST(DiagnosePair, SymmetricDirectionsAreQuiet) {
  RunRecord reverse = MakeRun(680e6);
  reverse.spec.direction = record::Direction::kReverse;
  reverse.streams[0].sender = false;
  EXPECT_TRUE(DiagnosePair(MakeRun(700e6), reverse).empty());
}

TEST(DiagnosePair, InterruptRatePerGbitDiffers) {
  RunRecord forward = MakeRun(500e6);
  RunRecord reverse = MakeRun(500e6);
  reverse.spec.direction = record::Direction::kReverse;
  reverse.streams[0].sender = false;
  EachSample(reverse.local, [](record::HostInterval& s) {
    s.irqs.value()[0].per_cpu = {8000, 8000, 8000, 8000};
    s.irqs.value()[0].total = 32000;
  });
  const record::Finding* f = nullptr;
  auto findings = DiagnosePair(forward, reverse);
  f = Find(findings, "interrupt-rate-differs");
  ASSERT_NE(f, nullptr) << Ids(findings);
  EXPECT_NE(f->title.find("4.0x"), std::string::npos) << f->title;
}

TEST(Costs, CpuSecondsPerGigabyteAndInterruptsPerGbit) {
  RunRecord run = MakeRun(8e9);  // 1 GB/s
  for (auto* end : {&run.local, &Remote(run)}) {
    for (int c = 0; c < kCpus; ++c) SetCpu(*end, c, 10, 15, 0, 0);  // 4 x 25% = one core
  }
  auto costs = analysis::Costs(run);
  ASSERT_EQ(costs.size(), 2u);
  ASSERT_TRUE(costs[0].host_cpu_seconds_per_gigabyte.known());
  EXPECT_NEAR(costs[0].host_cpu_seconds_per_gigabyte.value(), 1.0, 1e-9);
  ASSERT_TRUE(costs[0].nic_interrupts_per_gigabyte.known());
  // 8000/s at 8 Gbit/s: 1000 per Gbit/s, 8000 per GB.
  EXPECT_NEAR(analysis::InterruptsPerGbit(costs[0].nic_interrupts_per_gigabyte.value()), 1000.0,
              1e-9);
}

TEST(Costs, LoopbackHasNoInterruptFigure) {
  RunRecord run = MakeRun();
  Loopback(run);
  EachSample(run.local, [](record::HostInterval& s) { s.irqs.value()[0].nic = false; });
  auto costs = analysis::Costs(run);
  EXPECT_FALSE(costs[0].nic_interrupts_per_gigabyte.known());
  EXPECT_TRUE(costs[0].host_cpu_seconds_per_gigabyte.known());
}

record::Finding Named(std::string id, Severity severity) {
  record::Finding f;
  f.id = std::move(id);
  f.severity = severity;
  return f;
}

TEST(AddFindings, MergesMostSevereFirstAndDropsTheHealthyNote) {
  std::vector<record::Finding> own = {Named("own-notice", Severity::kNotice),
                                      Named("no-problem-found", Severity::kInfo)};
  AddFindings(own, {Named("pair-info", Severity::kInfo), Named("pair-warning", Severity::kWarning),
                    Named("pair-notice", Severity::kNotice)});
  std::vector<std::string> ids;
  for (const auto& f : own) ids.push_back(f.id);
  EXPECT_EQ(ids,
            (std::vector<std::string>{"pair-warning", "own-notice", "pair-notice", "pair-info"}));
}

TEST(AddFindings, NothingMoreKeepsTheRunsOwn) {
  std::vector<record::Finding> own = {Named("no-problem-found", Severity::kInfo)};
  AddFindings(own, {});
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].id, "no-problem-found");
}

}  // namespace
}  // namespace nicbench::diagnosis
