#include "probes/proc_parsers.h"

#include <gtest/gtest.h>

#include "probes/test_fixture.h"

namespace nicbench::probes {
namespace {

using testing::ReadFixture;

const InterruptLine* FindLine(const Interrupts& interrupts, const std::string& irq) {
  for (const InterruptLine& line : interrupts.lines) {
    if (line.irq == irq) return &line;
  }
  return nullptr;
}

TEST(ParseProcStatTest, TenColumnsWithSteal) {
  auto stat = ParseProcStat(ReadFixture("proc/stat-steal-8cpu-vm-insights.txt"));
  ASSERT_TRUE(stat) << stat.error().ToString();
  EXPECT_EQ(stat->cpus.size(), 8u);
  EXPECT_EQ(stat->total.user, 32270961u);
  EXPECT_EQ(stat->total.steal, 18738206u);
  EXPECT_TRUE(stat->total.has_steal);
  EXPECT_TRUE(stat->total.has_guest);
  EXPECT_EQ(stat->cpus[1].cpu, 1);
  EXPECT_EQ(stat->cpus[1].steal, 2660186u);
  EXPECT_EQ(stat->ctxt, 17852681u);
  EXPECT_EQ(stat->intr_total, 21359029u);
}

TEST(ParseProcStatTest, EightColumnsWithoutGuest) {
  auto stat = ParseProcStat(ReadFixture("proc/stat-arm-sep4020-1cpu-8col.txt"));
  ASSERT_TRUE(stat) << stat.error().ToString();
  ASSERT_EQ(stat->cpus.size(), 1u);
  EXPECT_TRUE(stat->total.has_steal);
  EXPECT_FALSE(stat->total.has_guest);
  EXPECT_EQ(stat->total.softirq, 1007u);
  EXPECT_EQ(stat->total.Total(), 96u + 2629 + 14389 + 102 + 1007);
  EXPECT_EQ(stat->ctxt, 25774u);
}

TEST(ParseProcStatTest, SevenColumnsWithoutSteal) {
  // Constructed in the 2.6.9 layout (no steal, no guest); no real capture of one was found.
  auto stat = ParseProcStat("cpu  10 1 20 300 4 5 6\ncpu0 10 1 20 300 4 5 6\nctxt 99\n");
  ASSERT_TRUE(stat) << stat.error().ToString();
  EXPECT_FALSE(stat->total.has_steal);
  EXPECT_EQ(stat->total.steal, 0u);
  EXPECT_EQ(stat->total.Total(), 346u);
  EXPECT_FALSE(stat->intr_total.has_value());
}

TEST(ParseProcStatTest, GuestIsNotCountedTwice) {
  auto stat = ParseProcStat("cpu  100 0 0 100 0 0 0 0 40 0\n");
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->total.guest, 40u);
  EXPECT_EQ(stat->total.Total(), 200u);
}

TEST(ParseProcStatTest, RejectsJunk) {
  EXPECT_FALSE(ParseProcStat("cpu  1 2 x 4 5 6 7\n"));
  EXPECT_FALSE(ParseProcStat("intr 5\n"));  // no aggregate line
  EXPECT_FALSE(ParseProcStat("cpu  1 2\n"));
}

TEST(ParseInterruptsTest, ThirtyTwoCpusOldJoinedChipNames) {
  auto irqs = ParseInterrupts(ReadFixture("proc/interrupts-ixgbe-igb-32cpu.txt"));
  ASSERT_TRUE(irqs) << irqs.error().ToString();
  EXPECT_EQ(irqs->cpu_count, 32);
  const InterruptLine* queue = FindLine(*irqs, "92");
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(queue->per_cpu.size(), 32u);
  EXPECT_EQ(queue->chip, "IR-PCI-MSI-edge");
  EXPECT_EQ(queue->hwirq, "");
  EXPECT_EQ(queue->name, "eth0-TxRx-0");
  EXPECT_TRUE(queue->numeric);
  const InterruptLine* err = FindLine(*irqs, "ERR");
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(err->per_cpu.size(), 1u);  // ERR and MIS have one count, not one per CPU
  EXPECT_FALSE(err->numeric);
  EXPECT_EQ(err->chip, "");
  const InterruptLine* loc = FindLine(*irqs, "LOC");
  ASSERT_NE(loc, nullptr);
  EXPECT_EQ(loc->per_cpu.size(), 32u);
  EXPECT_EQ(loc->name, "Local timer interrupts");
}

TEST(ParseInterruptsTest, SixteenCpusLargeCountsAndHpet) {
  auto irqs = ParseInterrupts(ReadFixture("proc/interrupts-mlx4-be2net-tg3-16cpu.txt"));
  ASSERT_TRUE(irqs) << irqs.error().ToString();
  EXPECT_EQ(irqs->cpu_count, 16);
  const InterruptLine* mlx4 = FindLine(*irqs, "113");
  ASSERT_NE(mlx4, nullptr);
  EXPECT_EQ(mlx4->per_cpu[0], 1968046966u);
  EXPECT_EQ(mlx4->name, "eth6-0");
  const InterruptLine* hpet = FindLine(*irqs, "72");
  ASSERT_NE(hpet, nullptr);
  EXPECT_EQ(hpet->chip, "HPET_MSI-edge");
  EXPECT_EQ(hpet->name, "hpet2");
}

TEST(ParseInterruptsTest, NewChipFormatWithHwirq) {
  auto irqs = ParseInterrupts(ReadFixture("proc/interrupts-sysstat-laptop-8cpu.txt"));
  ASSERT_TRUE(irqs) << irqs.error().ToString();
  EXPECT_EQ(irqs->cpu_count, 8);
  const InterruptLine* nic = FindLine(*irqs, "33");
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->chip, "PCI-MSI");
  EXPECT_EQ(nic->hwirq, "3145728-edge");
  EXPECT_EQ(nic->name, "enp6s0");
  const InterruptLine* timer = FindLine(*irqs, "0");
  ASSERT_NE(timer, nullptr);
  EXPECT_EQ(timer->chip, "IO-APIC");
  EXPECT_EQ(timer->hwirq, "2-edge");
  EXPECT_EQ(timer->name, "timer");
}

TEST(ParseInterruptsTest, MsixChipWithBusAddress) {
  auto irqs = ParseInterrupts(ReadFixture("proc/interrupts-vm-6.18-2cpu-t0.txt"));
  ASSERT_TRUE(irqs) << irqs.error().ToString();
  EXPECT_EQ(irqs->cpu_count, 2);
  const InterruptLine* input = FindLine(*irqs, "38");
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->chip, "PCI-MSIX-0000:00:03.0");
  EXPECT_EQ(input->hwirq, "1-edge");
  EXPECT_EQ(input->name, "virtio2-input.0");
}

TEST(ParseInterruptsTest, SharedLineKeepsAllActions) {
  auto irqs = ParseInterrupts(ReadFixture("proc/interrupts-mlx5-4cpu.txt"));
  ASSERT_TRUE(irqs) << irqs.error().ToString();
  const InterruptLine* shared = FindLine(*irqs, "18");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->chip, "IO-APIC-fasteoi");
  EXPECT_EQ(shared->name, "uhci_hcd:usb4, radeon");
  EXPECT_EQ(shared->Total(), 302u);
}

TEST(ParseInterruptsTest, OneHundredTwentyEightCpusConstructed) {
  auto irqs = ParseInterrupts(ReadFixture("proc/interrupts-constructed-128cpu.txt"));
  ASSERT_TRUE(irqs) << irqs.error().ToString();
  EXPECT_EQ(irqs->cpu_count, 128);
  EXPECT_EQ(irqs->cpu_ids.back(), 127);
  const InterruptLine* queue = FindLine(*irqs, "131");
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(queue->per_cpu.size(), 128u);
  EXPECT_EQ(queue->per_cpu[31], 1000000u + 31 * 1111);
  EXPECT_EQ(queue->per_cpu[95], 7u);
  EXPECT_EQ(queue->chip, "IR-PCI-MSIX-0000:3b:00.0");
  EXPECT_EQ(queue->hwirq, "32-edge");
  EXPECT_EQ(queue->name, "ice-eth0-TxRx-31");
  EXPECT_EQ(FindLine(*irqs, "MIS")->per_cpu.size(), 1u);
}

TEST(ParseInterruptsTest, ArmGicFormatAndEveryFixtureParses) {
  auto arm = ParseInterrupts(
      "           CPU0       CPU1\n"
      " 11:       1234       5678     GICv3  27 Level     arch_timer\n");
  ASSERT_TRUE(arm) << arm.error().ToString();
  EXPECT_EQ(arm->lines[0].chip, "GICv3");
  EXPECT_EQ(arm->lines[0].hwirq, "27 Level");
  EXPECT_EQ(arm->lines[0].name, "arch_timer");
  for (const char* file : {"interrupts-bnx2-mlx4-12cpu.txt", "interrupts-ixgbe-12cpu.txt",
                           "interrupts-igb-rx-tx-4cpu.txt", "interrupts-i40e-igb-e1000e-4cpu.txt",
                           "interrupts-igb-i211-e1000e-4cpu.txt", "interrupts-virtio-1cpu.txt",
                           "interrupts-kvm-2cpu.txt"}) {
    auto irqs = ParseInterrupts(ReadFixture(std::string("proc/") + file));
    ASSERT_TRUE(irqs) << file << ": " << irqs.error().ToString();
    EXPECT_GT(irqs->lines.size(), 10u) << file;
    for (const InterruptLine& line : irqs->lines) {
      EXPECT_LE(line.per_cpu.size(), static_cast<size_t>(irqs->cpu_count)) << file;
      if (line.numeric) {
        EXPECT_FALSE(line.chip.empty()) << file << " irq " << line.irq;
      }
    }
  }
}

TEST(ParseInterruptsTest, RejectsBadHeaderAndLabel) {
  EXPECT_FALSE(ParseInterrupts(""));
  EXPECT_FALSE(ParseInterrupts("  CPU0 XPU1\n"));
  EXPECT_FALSE(ParseInterrupts("  CPU0\n 12 34 IO-APIC x\n"));
}

TEST(ParseSoftirqsTest, NetRowsPerCpu) {
  auto eight = ParseSoftirqs(ReadFixture("proc/softirqs-i7-8cpu.txt"));
  ASSERT_TRUE(eight) << eight.error().ToString();
  EXPECT_EQ(eight->cpu_count, 8);
  ASSERT_EQ(eight->net_rx.size(), 8u);
  EXPECT_EQ(eight->net_rx[0], 1180153410u);
  EXPECT_EQ(eight->net_tx[1], 4040u);
  auto two = ParseSoftirqs(ReadFixture("proc/softirqs-hyperv-rhcos-4.18-2cpu.txt"));
  ASSERT_TRUE(two) << two.error().ToString();
  EXPECT_EQ(two->net_rx, (std::vector<uint64_t>{232746, 202453}));
  EXPECT_EQ(two->net_tx, (std::vector<uint64_t>{34, 34}));
  EXPECT_TRUE(ParseSoftirqs(ReadFixture("proc/softirqs-dualcore-2cpu.txt")));
}

TEST(ParseSoftnetStatTest, NineColumnsUseRowOrder) {
  auto rows = ParseSoftnetStat(ReadFixture("proc/softnet_stat-rhel5-2.6.18-8cpu-9col.txt"));
  ASSERT_TRUE(rows) << rows.error().ToString();
  ASSERT_EQ(rows->size(), 8u);
  EXPECT_EQ((*rows)[0].processed, 0x9f2u);
  EXPECT_EQ((*rows)[1].cpu, 1);
  EXPECT_EQ((*rows)[0].columns, 9);
  EXPECT_FALSE((*rows)[0].received_rps.has_value());
  auto arm = ParseSoftnetStat(ReadFixture("proc/softnet_stat-arm-sep4020-1cpu-9col.txt"));
  ASSERT_TRUE(arm);
  EXPECT_EQ(arm->size(), 1u);
}

TEST(ParseSoftnetStatTest, TenColumns) {
  auto rows = ParseSoftnetStat(ReadFixture("proc/softnet_stat-8cpu-10col-b.txt"));
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_EQ((*rows)[0].processed, 0xa4a1bcc9u);
  EXPECT_EQ((*rows)[0].time_squeeze, 0x2052u);
  EXPECT_EQ((*rows)[0].received_rps, 0u);
  EXPECT_EQ((*rows)[7].cpu, 7);
  EXPECT_TRUE(ParseSoftnetStat(ReadFixture("proc/softnet_stat-8cpu-10col-a.txt")));
}

TEST(ParseSoftnetStatTest, FifteenColumnsTakeCpuFromColumnTwelve) {
  auto rows = ParseSoftnetStat(ReadFixture("proc/softnet_stat-vm-6.18-2cpu-15col.txt"));
  ASSERT_TRUE(rows) << rows.error().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[1].columns, 15);
  EXPECT_EQ((*rows)[1].cpu, 1);
  // With CPU 1 offline, the row of CPU 2 comes second and says so in column 12.
  auto sparse = ParseSoftnetStat(
      "00000010 00000001 00000002 0 0 0 0 0 0 0 0 0 00000000\n"
      "00000020 00000003 00000004 0 0 0 0 0 0 0 0 0 00000002\n");
  ASSERT_TRUE(sparse);
  EXPECT_EQ((*sparse)[1].cpu, 2);
  EXPECT_EQ((*sparse)[1].dropped, 3u);
  EXPECT_FALSE(ParseSoftnetStat("0 0 0\n"));
  EXPECT_FALSE(ParseSoftnetStat("zz 0 0 0 0 0 0 0 0\n"));
}

TEST(ParseSnmpTest, OldAndNewLayouts) {
  auto old = ParseSnmp(ReadFixture("proc/snmp-rhel5-2.6.18.txt"));
  ASSERT_TRUE(old) << old.error().ToString();
  EXPECT_EQ(old->at("Tcp.MaxConn"), -1);
  EXPECT_EQ(old->at("Tcp.InSegs"), 10020102827);
  EXPECT_EQ(old->at("Tcp.RetransSegs"), 106560);
  EXPECT_EQ(old->count("Tcp.InCsumErrors"), 0u);
  EXPECT_EQ(old->count("Udp.RcvbufErrors"), 0u);
  auto fresh = ParseSnmp(ReadFixture("proc/snmp-linux4x-procfs-fixture.txt"));
  ASSERT_TRUE(fresh) << fresh.error().ToString();
  EXPECT_EQ(fresh->at("Tcp.InCsumErrors"), 0);
  EXPECT_EQ(fresh->at("Tcp.RetransSegs"), 348);
  EXPECT_EQ(fresh->count("Udp.IgnoredMulti"), 1u);
  auto isp = ParseSnmp(ReadFixture("proc/snmp-isp-filter-server-a.txt"));
  ASSERT_TRUE(isp);
  EXPECT_EQ(isp->at("Udp.InDatagrams"), 494467706);
  EXPECT_EQ(isp->count("UdpLite.InDatagrams"), 1u);
  EXPECT_TRUE(ParseSnmp(ReadFixture("proc/snmp-arm-sep4020-2.6.txt")));
  EXPECT_TRUE(ParseSnmp(ReadFixture("proc/snmp-vm-6.18.txt")));
}

TEST(ParseSnmpTest, NetstatLayouts) {
  auto arm = ParseSnmp(ReadFixture("proc/netstat-arm-sep4020-2.6.txt"));
  ASSERT_TRUE(arm) << arm.error().ToString();
  EXPECT_EQ(arm->count("TcpExt.ListenDrops"), 1u);
  EXPECT_EQ(arm->count("IpExt.InOctets"), 0u);
  for (const char* file : {"proc/netstat-rhel5-2.6.18.txt",
                           "proc/netstat-linux4x-procfs-fixture.txt", "proc/netstat-vm-6.18.txt"}) {
    auto counters = ParseSnmp(ReadFixture(file));
    ASSERT_TRUE(counters) << file << ": " << counters.error().ToString();
    EXPECT_EQ(counters->count("TcpExt.TCPTimeouts"), 1u) << file;
  }
}

TEST(ParseSnmpTest, RejectsMismatchedPairs) {
  EXPECT_FALSE(ParseSnmp("Tcp: A B\nUdp: 1 2\n"));
  EXPECT_FALSE(ParseSnmp("Tcp: A B\nTcp: 1\n"));
  EXPECT_FALSE(ParseSnmp("Tcp: A\nTcp: x\n"));
}

TEST(ParseCpuModelTest, X86AndArm) {
  EXPECT_EQ(ParseCpuModel("processor\t: 0\nmodel name\t: AMD EPYC\nflags\t: fpu\n").value(),
            "AMD EPYC");
  EXPECT_EQ(ParseCpuModel("Processor\t: ARM926EJ-S rev 5 (v5l)\nBogoMIPS\t: 88.47\n").value(),
            "ARM926EJ-S rev 5 (v5l)");
  EXPECT_FALSE(ParseCpuModel("processor\t: 0\n"));
  auto live = ParseCpuModel(ReadFixture("roots/vm-6.18/proc/cpuinfo"));
  ASSERT_TRUE(live);
  EXPECT_EQ(*live, "AMD EPYC");
}

TEST(ParseCpuListTest, RangesAndSingles) {
  EXPECT_EQ(ParseCpuList("0-3,8,10-11\n").value(), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(ParseCpuList("5").value(), (std::vector<int>{5}));
  EXPECT_FALSE(ParseCpuList("3-1"));
  EXPECT_FALSE(ParseCpuList("a"));
}

}  // namespace
}  // namespace nicbench::probes
