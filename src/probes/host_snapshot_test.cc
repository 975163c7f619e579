#include "probes/host_snapshot.h"

#include <gtest/gtest.h>

#include "probes/test_fixture.h"
#include "support/run_binary.h"

namespace nicbench::probes {
namespace {

using testing::ReadFixture;

HostSnapshot FromFixtures(const std::string& stat, const std::string& interrupts) {
  HostSnapshot snap;
  snap.stat = ParseProcStat(ReadFixture("proc/" + stat));
  snap.interrupts = ParseInterrupts(ReadFixture("proc/" + interrupts));
  snap.softirqs = ParseSoftirqs(ReadFixture("proc/softirqs-hyperv-rhcos-4.18-2cpu.txt"));
  snap.softnet = ParseSoftnetStat(ReadFixture("proc/softnet_stat-vm-6.18-2cpu-15col.txt"));
  auto counters = ParseSnmp(ReadFixture("proc/snmp-vm-6.18.txt"));
  if (counters) counters->merge(*ParseSnmp(ReadFixture("proc/netstat-vm-6.18.txt")));
  snap.net_counters = counters;
  snap.usage = rusage{};
  return snap;
}

TEST(DiffSnapshotsTest, RealVmPairSharesAndIrqs) {
  HostSnapshot t0 = FromFixtures("stat-vm-6.18-2cpu-t0.txt", "interrupts-vm-6.18-2cpu-t0.txt");
  HostSnapshot t1 = FromFixtures("stat-vm-6.18-2cpu-t1.txt", "interrupts-vm-6.18-2cpu-t1.txt");
  ASSERT_TRUE(t0.stat && t1.stat && t0.interrupts && t1.interrupts);
  NicDevice nic;
  nic.interface = "eth0";
  nic.device_name = "virtio2";
  nic.pci_address = "0000:00:03.0";
  record::HostInterval out = DiffSnapshots(t0, t1, 1.0, 2.0, &nic);
  EXPECT_EQ(out.start, 1.0);
  ASSERT_TRUE(out.cpu_total.known());
  const record::CpuShare& total = out.cpu_total.value();
  double sum = total.user + total.nice + total.system + total.idle + total.iowait + total.irq +
               total.softirq + total.steal;
  EXPECT_NEAR(sum, 100.0, 1e-6);
  ASSERT_TRUE(out.cpus.known());
  EXPECT_EQ(out.cpus.value().size(), 2u);
  ASSERT_TRUE(out.irqs.known());
  const auto& irqs = out.irqs.value();
  ASSERT_FALSE(irqs.empty());
  for (size_t i = 1; i < irqs.size(); ++i) EXPECT_GE(irqs[i - 1].total, irqs[i].total);
  for (const record::IrqRate& rate : irqs) {
    EXPECT_GT(rate.total, 0u) << rate.irq;
    EXPECT_DOUBLE_EQ(rate.per_second, static_cast<double>(rate.total));  // 1 s interval
    if (rate.irq == "38" || rate.irq == "39") {
      EXPECT_TRUE(rate.nic);
    } else {
      EXPECT_FALSE(rate.nic) << rate.irq;
    }
  }
  ASSERT_TRUE(out.context_switches.known());
  EXPECT_GT(out.context_switches.value(), 0u);
  ASSERT_TRUE(out.net_counters.known());
  EXPECT_EQ(out.net_counters.value().count("Tcp.RetransSegs"), 1u);     // kept even when 0
  EXPECT_EQ(out.net_counters.value().count("TcpExt.TCPTimeouts"), 0u);  // zero TcpExt dropped
}

TEST(DiffSnapshotsTest, LinesThatAppearVanishOrChangeOwner) {
  const char* before =
      "           CPU0       CPU1\n"
      " 30:        100        200   PCI-MSI 1-edge      eth0-TxRx-0\n"
      " 31:         50         50   PCI-MSI 2-edge      eth0-TxRx-1\n"
      " 32:         70          0   PCI-MSI 3-edge      nvme0q1\n"
      "ERR:          3\n";
  const char* after =
      "           CPU0       CPU1\n"
      " 30:        160        200   PCI-MSI 1-edge      eth0-TxRx-0\n"
      " 32:          5          0   PCI-MSI 3-edge      xhci_hcd\n"
      " 33:          9          1   PCI-MSI 4-edge      eth0-TxRx-2\n"
      "ERR:          4\n";
  HostSnapshot a, b;
  a.interrupts = ParseInterrupts(before);
  b.interrupts = ParseInterrupts(after);
  NicDevice nic;
  nic.interface = "eth0";
  record::HostInterval out = DiffSnapshots(a, b, 0.0, 0.5, &nic);
  ASSERT_TRUE(out.irqs.known());
  const auto& irqs = out.irqs.value();
  ASSERT_EQ(irqs.size(), 4u);
  EXPECT_EQ(irqs[0].irq, "30");  // busiest first
  EXPECT_EQ(irqs[0].total, 60u);
  EXPECT_EQ(irqs[0].per_cpu, (std::vector<uint64_t>{60, 0}));
  EXPECT_DOUBLE_EQ(irqs[0].per_second, 120.0);
  EXPECT_TRUE(irqs[0].nic);
  EXPECT_EQ(irqs[0].nic_queue, "TxRx-0");
  EXPECT_EQ(irqs[1].irq, "33");  // appeared: counted from zero
  EXPECT_EQ(irqs[1].total, 10u);
  EXPECT_EQ(irqs[1].nic_queue, "TxRx-2");
  EXPECT_EQ(irqs[2].irq, "32");  // same number, new owner: counted from zero, not negative
  EXPECT_EQ(irqs[2].total, 5u);
  EXPECT_FALSE(irqs[2].nic);
  EXPECT_EQ(irqs[3].irq, "ERR");
  EXPECT_EQ(irqs[3].total, 1u);
  // 31 vanished and is not reported; the stat members were never read and say so.
  EXPECT_FALSE(out.cpu_total.known());
  EXPECT_EQ(out.cpu_total.why(), record::Missing::kError);
}

TEST(DiffSnapshotsTest, UnreadableFileIsUnknownWithReason) {
  HostSnapshot a, b;
  a.stat = ParseProcStat("cpu  1 0 1 10 0 0 0 0\ncpu0 1 0 1 10 0 0 0 0\n");
  b.stat = Fail("open /proc/stat", EACCES);
  b.softnet = Fail("open /proc/net/softnet_stat", ENOENT);
  a.softnet = ParseSoftnetStat("1 0 0 0 0 0 0 0 0\n");
  record::HostInterval out = DiffSnapshots(a, b, 0, 1, nullptr);
  EXPECT_FALSE(out.cpus.known());
  EXPECT_EQ(out.cpus.why(), record::Missing::kPermissionDenied);
  EXPECT_FALSE(out.softnet.known());
  EXPECT_EQ(out.softnet.why(), record::Missing::kNotSupported);
  EXPECT_NE(out.softnet.detail().find("softnet_stat"), std::string::npos);
}

TEST(DiffSnapshotsTest, BackwardsCountersGiveZeroNotWrap) {
  HostSnapshot a, b;
  a.stat = ParseProcStat("cpu  10 0 10 100 50 0 0 0\ncpu0 10 0 10 100 50 0 0 0\nctxt 10\n");
  b.stat = ParseProcStat("cpu  20 0 20 180 40 0 0 0\ncpu0 20 0 20 180 40 0 0 0\nctxt 15\n");
  a.softnet = ParseSoftnetStat("10 5 1 0 0 0 0 0 0\n");
  b.softnet = ParseSoftnetStat("20 4 3 0 0 0 0 0 0\n");
  record::HostInterval out = DiffSnapshots(a, b, 0, 1, nullptr);
  ASSERT_TRUE(out.cpu_total.known());
  EXPECT_DOUBLE_EQ(out.cpu_total.value().iowait, 0.0);  // the iowait quirk: went down
  EXPECT_DOUBLE_EQ(out.cpu_total.value().idle, 80.0);
  EXPECT_DOUBLE_EQ(out.cpu_total.value().user, 10.0);
  EXPECT_EQ(out.context_switches.value(), 5u);
  ASSERT_TRUE(out.softnet.known());
  EXPECT_EQ(out.softnet.value()[0].processed, 0x10u);
  EXPECT_EQ(out.softnet.value()[0].dropped, 0u);
  EXPECT_EQ(out.softnet.value()[0].time_squeeze, 2u);
}

TEST(ReadHostSnapshotTest, CapturedTreeReadsEveryFile) {
  DirFileSource files(nicbench::testing::TestdataDir() + "/roots/vm-6.18");
  std::string buffer;
  HostSnapshot snap = ReadHostSnapshot(files, buffer);
  EXPECT_TRUE(snap.stat);
  EXPECT_TRUE(snap.interrupts);
  EXPECT_TRUE(snap.softirqs);
  EXPECT_TRUE(snap.softnet);
  ASSERT_TRUE(snap.net_counters);
  EXPECT_EQ(snap.net_counters->count("TcpExt.TCPTimeouts"), 1u);  // netstat merged in
  DirFileSource empty("/nonexistent-nicbench-root");
  HostSnapshot none = ReadHostSnapshot(empty, buffer);
  ASSERT_FALSE(none.stat);
  EXPECT_EQ(none.stat.error().sys_errno, ENOENT);
}

}  // namespace
}  // namespace nicbench::probes
