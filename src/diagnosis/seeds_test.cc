// The three seed posts (/work/shared/seeds, summarised in tests/testdata/README.md) as records
// built from the posts' own figures, and what nicbench must conclude from each.
#include <algorithm>

#include <gtest/gtest.h>

#include "analysis/cost.h"
#include "diagnosis/diagnose.h"
#include "diagnosis/test_records.h"

namespace nicbench::diagnosis {
namespace {

using namespace testing;  // NOLINT: the test record helpers
using record::RunRecord;

// A host sample with `cpus` CPUs, each with the given busy shares, and the NIC's IRQ lines.
record::HostInterval Sample(int i, const std::vector<record::CpuShare>& cpus,
                            const std::vector<std::pair<std::string, uint64_t>>& lines) {
  record::HostInterval s;
  s.start = i;
  s.end = i + 1;
  s.cpus = cpus;
  std::vector<record::IrqRate> irqs;
  int irq = 256;
  for (const auto& [name, per_second] : lines) {
    record::IrqRate r;
    r.irq = std::to_string(++irq);
    r.name = name;
    r.nic = true;
    r.per_cpu = std::vector<uint64_t>(cpus.size(), 0);
    r.per_cpu[0] = per_second;
    r.total = per_second;
    r.per_second = static_cast<double>(per_second);
    irqs.push_back(r);
  }
  s.irqs = irqs;
  s.process = record::ProcessUsage{0.05, 0.10, 100, 1, 0, 0, {}, {}};
  return s;
}

record::CpuShare Cpu(int n, double system, double irq, double idle) {
  record::CpuShare c;
  c.cpu = n;
  c.system = system;
  c.irq = irq;
  c.idle = idle;
  return c;
}

// Seed 3 (freebsd-current, "Call for re(4) TSO/VLAN testers", 2006-11-13): an RTL8169 (re0) on
// a single-core Sempron sends at 520 Mbit/s to a receiver that "was probably limiting"; with TSO
// off the CPU is 0% idle at 32K interrupts/s, with TSO on 25% idle at 16K. re(4) used 64 TX
// descriptors; "8169 family can have up to 1024".
RunRecord Seed3(bool tso) {
  RunRecord run = MakeRun(520e6);
  run.remote = record::Measured<record::EndpointRecord>::Unknown(record::Missing::kNotReported);
  auto& nic = run.local.nic;
  nic.interface = "re0";
  nic.driver = std::string("re");
  nic.pci = record::PciIdentity{"10ec", "8169", "Realtek Semiconductor",
                                "RTL8169 Gigabit Ethernet Adapter"};
  nic.rings = record::RingSizes{256, 64, 1024, 1024};
  nic.offloads = std::vector<record::OffloadState>{{"tcp-segmentation-offload", tso, false}};
  run.local.host.cpu_count = 1;
  const double idle = tso ? 25 : 0;
  for (int i = 0; i < kIntervals; ++i) {
    run.local.samples[i] =
        Sample(i, {Cpu(0, 100 - idle - 10, 10, idle)}, {{"re0", tso ? 16000 : 32000}});
  }
  return run;
}

TEST(Seed3, TsoOffInterruptsAPacketOrTwoEach) {
  const auto off = Diagnose(Seed3(false));
  const record::Finding* f = Find(off, "nic-interrupt-rate");
  ASSERT_NE(f, nullptr) << Ids(off);
  EXPECT_NE(f->title.find("32000 NIC interrupts a second for 520 Mbit/s"), std::string::npos)
      << f->title;
  EXPECT_TRUE(AnyEvidence(*f, "tcp-segmentation-offload off"));
  const auto on = Diagnose(Seed3(true));
  EXPECT_EQ(Find(on, "nic-interrupt-rate"), nullptr) << Ids(on);
}

TEST(Seed3, TsoRunIsCheaperPerGigabyte) {
  const auto off = analysis::CostOf(Seed3(false), analysis::Role::kClient);
  const auto on = analysis::CostOf(Seed3(true), analysis::Role::kClient);
  ASSERT_TRUE(off.nic_interrupts_per_gigabyte.known());
  ASSERT_TRUE(on.nic_interrupts_per_gigabyte.known());
  EXPECT_NEAR(on.nic_interrupts_per_gigabyte.value() / off.nic_interrupts_per_gigabyte.value(), 0.5,
              0.01);
  ASSERT_TRUE(off.host_cpu_seconds_per_gigabyte.known());
  ASSERT_TRUE(on.host_cpu_seconds_per_gigabyte.known());
  EXPECT_NEAR(on.host_cpu_seconds_per_gigabyte.value() / off.host_cpu_seconds_per_gigabyte.value(),
              0.75, 0.01);
}

TEST(Seed3, SixtyFourTxDescriptorsRaiseTheRingFinding) {
  for (bool tso : {false, true}) {
    const auto findings = Diagnose(Seed3(tso));
    const record::Finding* f = Find(findings, "nic-tx-ring-small");
    ASSERT_NE(f, nullptr) << Ids(findings);
    EXPECT_NE(f->title.find("64 descriptors"), std::string::npos) << f->title;
    EXPECT_NE(f->next_step.find("ethtool -G re0 tx 1024"), std::string::npos);
  }
  RunRecord big = Seed3(true);
  big.local.nic.rings = record::RingSizes{256, 1024, 1024, 1024};
  EXPECT_EQ(Find(Diagnose(big), "nic-tx-ring-small"), nullptr);
}

// Seed 2 (nas4free forum, "Realtek, Atheros, Intel, the thing about speed"): an 82574L (em0,
// MSI-X, 2 cores) receives at 915 Mbit/s with both cores idle and em0:rx0/tx0 at 988/1172
// interrupts/s; hours later CPU 0 is at 100% interrupt (CPU 1 26.3% system) while em0:rx0/tx0
// run at 898/1013 per second, "from interrupts point of view nothing was changed", and the
// server "almost hangs". The post gives no goodput for the hung phase: 40 Mbit/s stands for it.
RunRecord Seed2(bool hangs, uint64_t hung_rx_irqs = 898) {
  RunRecord run = MakeRun(915e6);
  auto& nas = Remote(run);
  nas.nic.interface = "em0";
  nas.nic.driver = std::string("em");
  nas.host.cpu_count = 2;
  for (int i = 0; i < kIntervals; ++i) {
    const bool hung = hangs && i >= kIntervals / 2;
    nas.samples[i] = hung ? Sample(i, {Cpu(0, 0, 100, 0), Cpu(1, 26.3, 0.4, 73.4)},
                                   {{"em0:rx0", hung_rx_irqs}, {"em0:tx0", 1013}})
                          : Sample(i, {Cpu(0, 0, 0, 100), Cpu(1, 0, 0, 98.8)},
                                   {{"em0:rx0", 988}, {"em0:tx0", 1172}});
    if (!hung) continue;
    const uint64_t bytes = static_cast<uint64_t>(40e6 / 8);
    for (auto* intervals : {&run.intervals, &run.local.intervals, &nas.intervals}) {
      (*intervals)[i].streams[0].bytes = bytes;
    }
  }
  return run;
}

TEST(Seed2, TheRxHandlerSpinsWhileItsRateIsUnchanged) {
  const auto findings = Diagnose(Seed2(true));
  const record::Finding* f = Find(findings, "irq-handler-livelock");
  ASSERT_NE(f, nullptr) << Ids(findings);
  EXPECT_NE(f->title.find("cpu0"), std::string::npos);
  EXPECT_TRUE(AnyEvidence(*f, "2160 interrupts/s early, 1911/s late")) << f->evidence[1];
  EXPECT_TRUE(AnyEvidence(*f, "irq+softirq 0% in the first 3 counted intervals, 100%"));
  EXPECT_EQ(Find(findings, "irq-storm"), nullptr);
}

TEST(Seed2, TheSameServerBeforeTheHangRaisesNothing) {
  const auto findings = Diagnose(Seed2(false));
  EXPECT_EQ(Find(findings, "irq-handler-livelock"), nullptr) << Ids(findings);
  EXPECT_EQ(Find(findings, "irq-storm"), nullptr);
}

TEST(Seed2, ARateThatRoseManyFoldIsAStormInstead) {
  const auto findings = Diagnose(Seed2(true, 40000));
  EXPECT_NE(Find(findings, "irq-storm"), nullptr) << Ids(findings);
  EXPECT_EQ(Find(findings, "irq-handler-livelock"), nullptr);
}

// Seed 1 (freebsd-stable, msk(4) and ttcp, 2010-01-24): a 100baseTX link; ttcp moves 11538
// KB/s (94.5 Mbit/s) one way and 1726 KB/s (14.1 Mbit/s) the other, where the receiving
// notebook's CPU "sky-rocketed to 100% (system)".
RunRecord Seed1(double bits_per_second, bool receiver_busy) {
  RunRecord run = MakeRun(bits_per_second);
  for (auto* end : {&run.local, &Remote(run)}) {
    end->nic.interface = "msk0";
    end->nic.driver = std::string("msk");
    end->nic.speed_mbps = uint64_t{100};
  }
  // FreeBSD's top books the driver's receive work as system time; Linux books the same work as
  // softirq, beside ttcp's own 22% of system time in read().
  if (receiver_busy) SetCpu(Remote(run), 0, 0, 22, 2, 75);
  return run;
}

TEST(Seed1, LinkRateInTheGoodDirectionAReceiverProblemInTheOther) {
  const RunRecord good = Seed1(11538.31 * 1024 * 8, false);
  const RunRecord bad = Seed1(1726.28 * 1024 * 8, true);
  const auto good_findings = Diagnose(good);
  EXPECT_NE(Find(good_findings, "link-rate-limited"), nullptr) << Ids(good_findings);
  const auto bad_findings = Diagnose(bad);
  EXPECT_NE(Find(bad_findings, "receiver-cpu-bound"), nullptr) << Ids(bad_findings);
  for (const char* nic_id : {"nic-ring-overruns", "nic-interrupt-rate", "nic-tx-ring-small",
                             "far-below-link-rate", "link-rate-limited"}) {
    EXPECT_EQ(Find(bad_findings, nic_id), nullptr) << nic_id;
  }
  const auto pair = DiagnosePair(good, bad);
  const record::Finding* asym = Find(pair, "asymmetric-directions");
  ASSERT_NE(asym, nullptr) << Ids(pair);
  EXPECT_TRUE(AnyEvidence(*asym, "receiver-cpu-bound"));
}

}  // namespace
}  // namespace nicbench::diagnosis
