// The NIC rules on fixtures built from real captures: the driver's counters are a real
// `ethtool -S` capture (tests/testdata/ethtool, each labelled in tests/testdata/README.md) read
// as the "before" snapshot, and the "after" snapshot is the same capture with the counters moved
// as the cause would move them; rings and coalescing come from the same driver's real
// `ethtool -g`/`-c`. Each cause has a twin on the same machine without it, which must raise
// nothing of the kind.
#include <algorithm>
#include <functional>
#include <ostream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "diagnosis/diagnose.h"
#include "diagnosis/test_records.h"
#include "probes/ethtool_text.h"
#include "probes/proc_parsers.h"
#include "probes/test_fixture.h"

namespace nicbench::diagnosis {
namespace {

using namespace testing;  // NOLINT: the test record helpers
using record::RunRecord;
using record::Severity;
using Stats = std::map<std::string, uint64_t>;

Stats Capture(const std::string& file) {
  auto parsed = probes::ParseEthtoolStatistics(probes::testing::ReadFixture("ethtool/" + file));
  EXPECT_TRUE(parsed.has_value()) << file;
  return parsed ? *parsed : Stats{};
}

// `ethtool -g` text: the first RX/TX pair is the maximum, the second the current setting.
record::RingSizes Rings(const std::string& file) {
  const std::string text = probes::testing::ReadFixture("ethtool/" + file);
  std::vector<uint32_t> rx, tx;
  size_t pos = 0;
  while ((pos = text.find('\n', pos)) != std::string::npos) {
    ++pos;
    for (auto [key, out] : {std::pair{"RX:", &rx}, std::pair{"TX:", &tx}}) {
      if (text.compare(pos, 3, key) == 0) {
        out->push_back(static_cast<uint32_t>(std::stoul(text.substr(pos + 3))));
      }
    }
  }
  EXPECT_EQ(rx.size(), 2u) << file;
  EXPECT_EQ(tx.size(), 2u) << file;
  if (rx.size() < 2 || tx.size() < 2) return {};
  return {rx[1], tx[1], rx[0], tx[0]};
}

// An end's NIC as the capture shows it, with the "after" snapshot moved by `moves`.
void NicFromCapture(record::EndpointRecord& end, const char* driver, const std::string& stats,
                    const std::map<std::string, int64_t>& moves) {
  end.nic.driver = std::string(driver);
  const Stats before = Capture(stats);
  Stats after = before;
  for (const auto& [name, delta] : moves) {
    ASSERT_TRUE(after.count(name)) << name << " is not a counter of " << stats;
    after[name] += delta;
  }
  end.nic.driver_stats = before;
  end.nic.driver_stats_after = after;
}

// rx_packets / tx_packets in every sample: what /sys/class/net counted.
void SysPackets(record::EndpointRecord& end, int64_t rx, int64_t tx) {
  EachSample(end, [&](record::HostInterval& s) {
    s.nic_counters = std::map<std::string, int64_t>{{"rx_packets", rx}, {"tx_packets", tx}};
  });
}

// The receiver (remote server) of a 700 Mbit/s test on an e1000e (I217, the capture's host):
// its real counters, ring 256 of 4096 and rx-usecs 3.
void E1000eReceiver(RunRecord& run, const std::map<std::string, int64_t>& moves) {
  auto& end = Remote(run);
  end.nic.rings = Rings("ethtool-g-e1000e.txt");
  NicFromCapture(end, "e1000e", "ethtool-S-e1000e.txt", moves);
  SysPackets(end, 60000, 30000);
}

const std::map<std::string, int64_t> kHealthyE1000e = {
    {"rx_packets", 600000}, {"tx_packets", 300000}, {"rx_bytes", 875000000}};

void RingOverrun(RunRecord& run) {
  auto moves = kHealthyE1000e;
  moves["rx_missed_errors"] = 5000;
  moves["rx_no_buffer_count"] = 6200;
  E1000eReceiver(run, moves);
}

// i40e at the receiver: it sends pause frames (port.link_xoff_tx) while its ring drops.
void ReceiverSendsPauses(RunRecord& run) {
  Remote(run).nic.rings = Rings("ethtool-g-i40e.txt");
  NicFromCapture(Remote(run), "i40e", "ethtool-S-i40e.txt",
                 {{"port.link_xoff_tx", 1200}, {"rx-0.packets", 600000}});
}

// mlx5 receiver, 8 streams: the packets of all of them on queue 0, or spread over 4 queues.
void EightFlows(RunRecord& run, bool one_queue) {
  run.spec.parallel = 8;
  for (auto* intervals : {&run.intervals, &run.local.intervals, &Remote(run).intervals}) {
    for (auto& iv : *intervals) {
      for (int id = 6; id < 13; ++id) {
        auto s = iv.streams[0];
        s.id = id;
        iv.streams.push_back(s);
      }
    }
  }
  for (int id = 6; id < 13; ++id) {
    auto t = run.streams[0];
    t.id = id;
    run.streams.push_back(t);
  }
  std::map<std::string, int64_t> moves;
  for (int q = 0; q < 4; ++q)
    moves[fmt::format("rx{}_packets", q)] = one_queue ? (q == 0 ? 800000 : 20) : 200000;
  NicFromCapture(Remote(run), "mlx5_core", "ethtool-S-mlx5_core.txt", moves);
}

// The same 8 streams between two veths of 4 queues each, as the netns test builds them: the
// receiver's NAPI queues count the packets (ethtool-S-veth.txt), or none moved (no NAPI path).
void EightFlowsOnVeth(RunRecord& run, bool one_queue, bool napi = true) {
  EightFlows(run, one_queue);
  run.local.nic = VethNic();
  Remote(run).nic = VethNic();
  Remote(run).nic.interface = "nb-h2-e0";
  std::map<std::string, int64_t> moves;
  for (int q = 0; q < 4 && napi; ++q) {
    moves[fmt::format("rx_queue_{}_xdp_packets", q)] = one_queue ? (q == 0 ? 1241988 : 0) : 310000;
  }
  NicFromCapture(Remote(run), "veth", "ethtool-S-veth.txt", moves);
}

// The NIC's PCIe link: an 82599ES (lspci-vk capture) 10GbE at 5 GT/s x8 capable, trained x1.
void PcieTrainedX1(RunRecord& run) {
  auto& nic = Remote(run).nic;
  nic.speed_mbps = uint64_t{10000};
  nic.driver = std::string("ixgbe");
  record::PciIdentity id{"8086", "10fb", "Intel Corporation",
                         "82599ES 10-Gigabit SFI/SFP+ Network Connection"};
  id.link = record::PciLinkState{{5.0, 1}, {5.0, 8}};
  nic.pci = id;
  run.local.nic.speed_mbps = uint64_t{10000};
}

// A veth pair on one host whose receiving CPU's backlog overflows, as the netns test builds it:
// each refused packet is a softnet drop, the sender veth's tx_dropped and the receiver veth's
// rx_dropped. `beyond` more receive drops than the backlog's (a peer down, a frame over the MTU).
void VethBacklogDrops(RunRecord& run, int64_t beyond = 0) {
  run.local.nic = VethNic();
  Remote(run).nic = VethNic();
  Remote(run).nic.interface = "nb-h2-e0";
  Remote(run).host.hostname = run.local.host.hostname;
  for (auto* end : {&run.local, &Remote(run)}) {
    const bool sender = end == &run.local;
    EachSample(*end, [&](record::HostInterval& s) {
      s.nic_counters = std::map<std::string, int64_t>{{"rx_packets", sender ? 30000 : 16000},
                                                      {"rx_dropped", sender ? 0 : 44000 + beyond},
                                                      {"tx_packets", sender ? 16000 : 30000},
                                                      {"tx_dropped", sender ? 44000 : 0}};
      s.softnet = std::vector<record::SoftnetDelta>{{0, 16000, 44100, 900}};
    });
  }
}

// An igb receiver whose ring missed frames: a real NIC's drops.
void IgbMisses(RunRecord& run) {
  EachSample(Remote(run), [](record::HostInterval& s) {
    s.nic_counters = std::map<std::string, int64_t>{
        {"rx_packets", 60000}, {"rx_missed_errors", 120}, {"rx_dropped", 0}};
  });
}

// An igb receiver (the host of the ethtool-c-igb.txt capture) at 700 Mbit/s, TSO/GSO/GRO on,
// 90,000 packets a second both ways: its captured coalescing (rx-usecs 3) with the interrupt
// rate the quiet baseline has (8,000/s), or coalescing turned off (rx-usecs 0) and an
// interrupt every packet or two, 60,000/s (the "coalescing 0" case).
void IgbCoalescing(RunRecord& run, bool off) {
  auto& end = Remote(run);
  auto c =
      probes::ParseEthtoolCoalescing(probes::testing::ReadFixture("ethtool/ethtool-c-igb.txt"));
  ASSERT_TRUE(c.has_value());
  ASSERT_EQ(c->rx_usecs, 3u);
  if (off) c->rx_usecs = 0;
  end.nic.coalescing = *c;
  SysPackets(end, 60000, 30000);
  if (!off) return;
  EachSample(end, [](record::HostInterval& s) {
    auto lines = s.irqs.value();
    lines[0].per_cpu = {60000, 0, 0, 0};
    lines[0].total = 60000;
    lines[0].per_second = 60000;
    s.irqs = lines;
  });
}

bool Mentions(const record::Finding& f, const std::string& phrase) {
  if (f.title.find(phrase) != std::string::npos || f.next_step.find(phrase) != std::string::npos) {
    return true;
  }
  return std::any_of(f.evidence.begin(), f.evidence.end(),
                     [&](const std::string& e) { return e.find(phrase) != std::string::npos; });
}

struct NicCase {
  const char* name;
  std::function<void(RunRecord&)> setup;
  const char* id;
  bool present;
  std::vector<const char*> phrases = {};
  Severity severity = Severity::kInfo;  // checked when present and not kInfo
};

void PrintTo(const NicCase& c, std::ostream* out) { *out << c.name; }

const NicCase kNicCases[] = {
    {"e1000e receive ring overruns",
     RingOverrun,
     "nic-ring-overruns",
     true,
     {"rx_missed_errors +5000", "rx_no_buffer_count +6200", "rx ring 256 of at most 4096",
      "ethtool -G eth0 rx 4096"},
     Severity::kWarning},
    {"e1000e without overruns: nothing",
     [](RunRecord& run) { E1000eReceiver(run, kHealthyE1000e); }, "nic-ring-overruns", false},
    {"ring overruns are the lowest layer that dropped",
     RingOverrun,
     "drop-ladder",
     true,
     {"the NIC at the remote server (receiver)", "softnet backlog 0"}},
    {"no drop anywhere: no ladder", [](RunRecord& run) { E1000eReceiver(run, kHealthyE1000e); },
     "drop-ladder", false},
    {"softnet drops alone: the ladder names softnet",
     [](RunRecord& run) {
       E1000eReceiver(run, kHealthyE1000e);
       EachSample(Remote(run), [](record::HostInterval& s) {
         s.softnet = std::vector<record::SoftnetDelta>{{1, 1000, 30, 5}};
       });
     },
     "drop-ladder",
     true,
     {"the softnet backlog at the remote server"}},
    {"veth backlog overflow: the ladder names the softnet backlog, not the veth",
     [](RunRecord& run) { VethBacklogDrops(run); },
     "drop-ladder",
     true,
     // Both stand ends are one machine: its softnet backlog, named once (issue 27, item 4).
     {"the softnet backlog at the host alpha (both ends)", "NIC not measured"}},
    {"veth backlog overflow: no nic-drops, the backlog accounts for the veth's counters",
     [](RunRecord& run) { VethBacklogDrops(run); }, "nic-drops", false},
    {"veth drops beyond the backlog's: the veth's, never the NIC's",
     [](RunRecord& run) { VethBacklogDrops(run, 5000); },
     "nic-drops",
     true,
     {"The veth nb-h2-e0 at the remote server (receiver) counted drops the softnet backlog",
      "rx_dropped +", "/proc/net/softnet_stat dropped +", "ip -s link show nb-h2-e0"},
     Severity::kWarning},
    {"igb ring misses: the NIC's drops, as before",
     IgbMisses,
     "nic-drops",
     true,
     {"The NIC dropped or rejected packets during the test", "rx_missed_errors +"},
     Severity::kWarning},
    {"igb ring misses: the ladder names the NIC",
     IgbMisses,
     "drop-ladder",
     true,
     {"the NIC at the remote server (receiver)"}},
    {"i40e receiver sends pause frames",
     ReceiverSendsPauses,
     "nic-pause-frames",
     true,
     {"port.link_xoff_tx +1200", "ethtool -a eth0", "0 pause frames received, 1200 sent",
      "flow control settings unknown"},
     Severity::kNotice},
    {"i40e receiver sends pause frames, its flow control settings beside them",
     [](RunRecord& run) {
       ReceiverSendsPauses(run);
       Remote(run).nic.pause = record::PauseSettings{true, true, true};
     },
     "nic-pause-frames",
     true,
     {"port.link_xoff_tx +1200",
      "eth0: flow control rx on (stops sending on a pause), tx on (sends pauses), autoneg on"},
     Severity::kNotice},
    {"i40e without pauses: nothing",
     [](RunRecord& run) {
       NicFromCapture(Remote(run), "i40e", "ethtool-S-i40e.txt", {{"rx-0.packets", 600000}});
     },
     "nic-pause-frames", false},
    {"8 flows all on mlx5 queue 0",
     [](RunRecord& run) { EightFlows(run, true); },
     "nic-queue-imbalance",
     true,
     {"All 8 flows", "queue 0", "ethtool -x eth0", "16 queues seen"},
     Severity::kWarning},
    {"8 flows spread over 4 queues: nothing", [](RunRecord& run) { EightFlows(run, false); },
     "nic-queue-imbalance", false},
    {"8 flows all on veth queue 0 (the peer's XPS)",
     [](RunRecord& run) { EightFlowsOnVeth(run, true); },
     "nic-queue-imbalance",
     true,
     {"All 8 flows", "queue 0 took 100%", "4 queues seen", "xps_cpus", "ip -d link show nb-h1-e0"},
     Severity::kWarning},
    {"8 flows spread over 4 veth queues: nothing",
     [](RunRecord& run) { EightFlowsOnVeth(run, false); }, "nic-queue-imbalance", false},
    {"veth without its NAPI path (no per-queue counter moved): nothing",
     [](RunRecord& run) { EightFlowsOnVeth(run, true, false); }, "nic-queue-imbalance", false},
    {"one flow is one queue: nothing",
     [](RunRecord& run) {
       NicFromCapture(Remote(run), "mlx5_core", "ethtool-S-mlx5_core.txt",
                      {{"rx0_packets", 800000}});
     },
     "nic-queue-imbalance", false},
    {"8 flows on one of two interrupt lines (no driver counters)",
     [](RunRecord& run) {
       EightFlows(run, true);
       Remote(run).nic.driver_stats_after =
           record::Measured<Stats>::Unknown(record::Missing::kAbsent);
       EachSample(Remote(run), [](record::HostInterval& s) {
         auto lines = s.irqs.value();
         lines[0].per_second = lines[0].total = 8000;
         auto second = lines[0];
         second.irq = "46";
         second.name = "eth0-TxRx-1";
         second.total = 10;
         second.per_cpu = {10, 0, 0, 0};
         lines.push_back(second);
         s.irqs = lines;
       });
     },
     "nic-queue-imbalance",
     true,
     {"interrupt lines"}},
    {"igb with coalescing 0 and offloads on: an interrupt every packet or two",
     [](RunRecord& run) { IgbCoalescing(run, true); },
     "nic-interrupt-rate",
     true,
     {"60000 NIC interrupts a second for 700 Mbit/s", "rx-usecs 0", "adaptive-rx off",
      "generic-receive-offload on", "ethtool -C eth0 adaptive-rx on"},
     Severity::kNotice},
    {"igb with its captured coalescing: nothing", [](RunRecord& run) { IgbCoalescing(run, false); },
     "nic-interrupt-rate", false},
    {"PCIe x1 of x8 under a 10 Gbit/s line",
     PcieTrainedX1,
     "pcie-link-degraded",
     true,
     {"5 GT/s x1", "capable of 5 GT/s x8", "x8"},
     Severity::kWarning},
    {"PCIe x8 as capable: nothing",
     [](RunRecord& run) {
       PcieTrainedX1(run);
       Remote(run).nic.pci.value().link.value().current.width = 8;
     },
     "pcie-link-degraded", false},
    {"PCIe below capability but enough for the line: nothing",
     [](RunRecord& run) {
       PcieTrainedX1(run);
       Remote(run).nic.speed_mbps = uint64_t{1000};
       run.local.nic.speed_mbps = uint64_t{1000};
     },
     "pcie-link-degraded", false},
};

class NicRuleCase : public ::testing::TestWithParam<NicCase> {};

TEST_P(NicRuleCase, FiresExactlyWhenItShould) {
  const NicCase& c = GetParam();
  RunRecord run = MakeRun();
  c.setup(run);
  const auto findings = Diagnose(run);
  const record::Finding* f = Find(findings, c.id);
  ASSERT_EQ(f != nullptr, c.present) << Ids(findings);
  if (f == nullptr) return;
  for (const char* phrase : c.phrases) {
    EXPECT_TRUE(Mentions(*f, phrase)) << phrase << "\n" << f->title;
  }
  if (c.severity != Severity::kInfo) {
    EXPECT_EQ(f->severity, c.severity);
  }
  EXPECT_FALSE(f->meaning.empty());
  EXPECT_FALSE(f->next_step.empty());
}

INSTANTIATE_TEST_SUITE_P(Fixtures, NicRuleCase, ::testing::ValuesIn(kNicCases));

// The healthy baseline and the stand's veth/loopback shapes raise none of the NIC rules.
TEST(NicRules, SilentWhenTheDataIsUnknownOrHealthy) {
  const char* kIds[] = {"nic-ring-overruns",   "nic-tx-ring-small",    "nic-pause-frames",
                        "nic-interrupt-rate",  "irq-handler-livelock", "irq-storm",
                        "nic-queue-imbalance", "pcie-link-degraded",   "drop-ladder"};
  std::vector<RunRecord> runs(3, MakeRun());
  runs[1].local.nic = VethNic();
  Remote(runs[1]).nic = VethNic();
  runs[2].local.nic = LoopbackNic();
  Remote(runs[2]).nic = LoopbackNic();
  for (const RunRecord& run : runs) {
    const auto findings = Diagnose(run);
    for (const char* id : kIds) {
      EXPECT_EQ(Find(findings, id), nullptr) << id << ": " << Ids(findings);
    }
  }
}

}  // namespace
}  // namespace nicbench::diagnosis
