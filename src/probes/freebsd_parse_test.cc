#include "probes/freebsd_parse.h"

#include <gtest/gtest.h>

#include "probes/test_fixture.h"

namespace nicbench::probes {
namespace {

using testing::ReadFixture;

// Seed 2 (nas4free-nic-comparison): em0 with MSI-X, rx0 and tx0 at their own vectors.
TEST(FreebsdVmstatTest, SeedTwoLinesAndRates) {
  auto lines = ParseVmstatInterrupts(ReadFixture("freebsd/vmstat-i-em0-nas4free-stormed.txt"));
  ASSERT_TRUE(lines) << lines.error().ToString();
  ASSERT_EQ(lines->size(), 6u);  // the header and "Total" are not lines
  EXPECT_EQ((*lines)[2].irq, "20");
  EXPECT_EQ((*lines)[2].name, "hpet0 uhci0+");
  EXPECT_EQ((*lines)[4].irq, "257");
  EXPECT_EQ((*lines)[4].name, "em0:rx0");
  EXPECT_EQ((*lines)[4].total, 15136419u);
  EXPECT_EQ((*lines)[4].rate, 898u);
  EXPECT_EQ((*lines)[5].rate, 1013u);
}

TEST(FreebsdVmstatTest, OtherTextIsAnError) {
  EXPECT_FALSE(ParseVmstatInterrupts("interrupt total rate\n"));
  EXPECT_FALSE(ParseVmstatInterrupts(ReadFixture("freebsd/ifconfig-msk0-freebsd8-stable.txt")));
}

// Seed 1 (freebsd-stable-msk-ttcp): the link negotiated 100baseTX full duplex, TSO4 enabled.
TEST(FreebsdIfconfigTest, SeedOneMediaAndOptions) {
  auto list = ParseIfconfig(ReadFixture("freebsd/ifconfig-msk0-freebsd8-stable.txt"));
  ASSERT_TRUE(list) << list.error().ToString();
  ASSERT_EQ(list->size(), 1u);
  const IfconfigInterface& msk = list->front();
  EXPECT_EQ(msk.name, "msk0");
  ASSERT_TRUE(msk.mtu);
  EXPECT_EQ(*msk.mtu, 1500u);
  EXPECT_EQ(msk.flags.front(), "UP");
  EXPECT_EQ(msk.options, (std::vector<std::string>{"RXCSUM", "TXCSUM", "VLAN_MTU", "VLAN_HWTAGGING",
                                                   "VLAN_HWCSUM", "TSO4"}));
  EXPECT_EQ(msk.media_subtype, "100baseTX");
  ASSERT_TRUE(msk.speed_mbps);
  EXPECT_EQ(*msk.speed_mbps, 100u);
  EXPECT_EQ(msk.duplex, "full");
  EXPECT_EQ(msk.status, "");  // the post has "satus: active", typed by hand
}

TEST(FreebsdIfconfigTest, TwoInterfacesFixedMediaAndNoCarrier) {
  const char* text =
      "em0: flags=8843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST> metric 0 mtu 9000\n"
      "\toptions=4219b<RXCSUM,TXCSUM,VLAN_MTU,TSO4,WOL_MAGIC>\n"
      "\tmedia: Ethernet 1000baseT <full-duplex>\n"
      "\tstatus: active\n"
      "ix0: flags=8802<BROADCAST,SIMPLEX,MULTICAST> metric 0 mtu 1500\n"
      "\tmedia: Ethernet autoselect\n"
      "\tstatus: no carrier\n";
  auto list = ParseIfconfig(text);
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ(*(*list)[0].speed_mbps, 1000u);
  EXPECT_EQ((*list)[0].status, "active");
  EXPECT_EQ(*(*list)[0].mtu, 9000u);
  EXPECT_FALSE((*list)[1].speed_mbps);  // autoselect, nothing negotiated
  EXPECT_EQ((*list)[1].status, "no carrier");
}

TEST(FreebsdIfconfigTest, MediaSpeeds) {
  EXPECT_EQ(MediaSpeedMbps("10Gbase-SR"), 10000u);
  EXPECT_EQ(MediaSpeedMbps("2500Base-T"), 2500u);
  EXPECT_EQ(MediaSpeedMbps("25GBase-CR"), 25000u);
  EXPECT_EQ(MediaSpeedMbps("10baseT/UTP"), 10u);
  EXPECT_FALSE(MediaSpeedMbps("autoselect"));
  EXPECT_FALSE(ParseIfconfig("nothing here\n"));
}

// Seed 1's pciconf -lv: the Marvell 88E8072 behind msk0 (its parent mskc0).
TEST(FreebsdPciconfTest, SeedOneDevice) {
  auto list = ParsePciconf(ReadFixture("freebsd/pciconf-lv-mskc0-freebsd8-stable.txt"));
  ASSERT_TRUE(list) << list.error().ToString();
  ASSERT_EQ(list->size(), 1u);
  const PciconfDevice& d = list->front();
  EXPECT_EQ(d.name, "mskc0");
  EXPECT_EQ(d.selector, "pci0:134:0:0");
  EXPECT_EQ(d.VendorId(), "11ab");
  EXPECT_EQ(d.DeviceId(), "436c");
  EXPECT_EQ(d.SubsystemVendorId(), "103c");
  EXPECT_EQ(d.SubsystemDeviceId(), "3074");
  EXPECT_EQ(d.class_code, "0x020000");
  EXPECT_EQ(d.revision, "0x10");
  EXPECT_EQ(d.vendor, "Marvell Semiconductor (Was: Galileo Technology Ltd)");
  EXPECT_EQ(d.device, "Marvell 8072 Ethernet Nic (88E8072)");
  EXPECT_EQ(d.class_name, "network");
  EXPECT_EQ(d.subclass, "ethernet");
  EXPECT_FALSE(ParsePciconf("vendor = 'x'\n"));
}

// Seed 2's `pciconf -lvc` of em0: MSI enabled with its one message, MSI-X (5 messages) not
// enabled, a PCI Express x1 link at 2.5 GT/s of x1 at 2.5 (issue 28: the far end's interrupt mode
// and PCIe link, which pciconf -lc was captured for and nothing read).
TEST(FreebsdPciconfTest, SeedTwoCapabilities) {
  auto list = ParsePciconf(ReadFixture("freebsd/pciconf-lvc-em0-nas4free.txt"));
  ASSERT_TRUE(list) << list.error().ToString();
  ASSERT_EQ(list->size(), 1u);
  const PciconfDevice& d = list->front();
  EXPECT_EQ(d.device, "82574L Gigabit Network Connection");
  ASSERT_TRUE(d.msi.has_value());
  EXPECT_EQ(d.msi->messages, 1u);
  EXPECT_TRUE(d.msi->enabled);
  EXPECT_EQ(d.msi->enabled_messages, 1u);
  ASSERT_TRUE(d.msix.has_value());
  EXPECT_EQ(d.msix->messages, 5u);
  EXPECT_FALSE(d.msix->enabled);
  ASSERT_TRUE(d.link.has_value());
  EXPECT_EQ(d.link->current.width, 1u);
  EXPECT_EQ(d.link->max.width, 1u);
  EXPECT_DOUBLE_EQ(d.link->current.speed_gts, 2.5);
  EXPECT_DOUBLE_EQ(d.link->max.speed_gts, 2.5);
  // An enabled MSI-X and a link trained below its maximum, as FreeBSD's cap.c prints them.
  auto other = ParsePciconf(
      "ix0@pci0:3:0:0: class=0x020000 card=0x00038086 chip=0x10fb8086 rev=0x01 hdr=0x00\n"
      "    cap 11[70] = MSI-X supports 64 messages, enabled\n"
      "    cap 10[a0] = PCI-Express 2 endpoint max data 256(512) FLR RO NS\n"
      "                 link x1(x8) speed 5.0(5.0) ASPM disabled(L0s)\n");
  ASSERT_TRUE(other) << other.error().ToString();
  ASSERT_TRUE(other->front().msix.has_value());
  EXPECT_TRUE(other->front().msix->enabled);
  EXPECT_EQ(other->front().msix->enabled_messages, 64u);
  EXPECT_FALSE(other->front().msi.has_value());
  ASSERT_TRUE(other->front().link.has_value());
  EXPECT_EQ(other->front().link->current.width, 1u);
  EXPECT_EQ(other->front().link->max.width, 8u);
}

// Seed 2's two top displays: both cores idle after boot; CPU 0 all interrupt when stormed.
TEST(FreebsdTopTest, SeedTwoCpuLines) {
  auto idle = ParseTopCpus(ReadFixture("freebsd/top-SHPb-em0-nas4free-idle.txt"));
  auto stormed = ParseTopCpus(ReadFixture("freebsd/top-SHPb-em0-nas4free-stormed.txt"));
  ASSERT_TRUE(idle && stormed);
  ASSERT_EQ(stormed->size(), 2u);
  EXPECT_EQ((*stormed)[0].cpu, 0);
  EXPECT_DOUBLE_EQ((*stormed)[0].irq, 100.0);
  EXPECT_DOUBLE_EQ((*stormed)[0].idle, 0.0);
  EXPECT_DOUBLE_EQ((*stormed)[1].system, 26.3);
  EXPECT_DOUBLE_EQ((*stormed)[1].irq, 0.4);
  EXPECT_DOUBLE_EQ((*stormed)[1].idle, 73.4);
  EXPECT_DOUBLE_EQ((*idle)[0].idle, 100.0);
  EXPECT_DOUBLE_EQ((*idle)[1].user, 1.2);
}

TEST(FreebsdTopTest, TheLastDisplayCounts) {
  const std::string first =
      "CPU 0: 1.0% user, 0.0% nice, 1.0% system, 0.0% interrupt, 98.0% idle\n";
  const std::string second =
      "CPU 0: 0.0% user, 0.0% nice, 5.0% system, 90.0% interrupt, 5.0% idle\n";
  auto cpus = ParseTopCpus(first + "\nPID USERNAME\n\n" + second);
  ASSERT_TRUE(cpus);
  ASSERT_EQ(cpus->size(), 1u);
  EXPECT_DOUBLE_EQ(cpus->front().irq, 90.0);
  EXPECT_FALSE(ParseTopCpus("last pid: 1\n"));
}

TEST(FreebsdSysctlTest, NamesAndValues) {
  auto values = ParseSysctl(
      "dev.em.0.%desc: Intel(R) PRO/1000 Network Connection 7.6.1-k\n"
      "dev.em.0.%parent: pci1\n"
      "dev.em.0.mac_stats.missed_packets: 42\n"
      "hw.ncpu: 2\n");
  EXPECT_EQ(values["dev.em.0.%parent"], "pci1");
  EXPECT_EQ(values["dev.em.0.mac_stats.missed_packets"], "42");
  EXPECT_EQ(values["hw.ncpu"], "2");
}

}  // namespace
}  // namespace nicbench::probes
