#include "probes/far_capture.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "probes/test_fixture.h"
#include "support/run_binary.h"

namespace nicbench::probes {
namespace {

namespace fs = std::filesystem;
using testing::ReadFixture;

// A capture directory of the shape collect.sh writes, removed at the end of the test.
class CaptureDir {
 public:
  CaptureDir() {
    char name[] = "/tmp/nicbench-far-capture-XXXXXX";
    if (mkdtemp(name) != nullptr) path_ = name;
  }
  ~CaptureDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  CaptureDir(const CaptureDir&) = delete;
  CaptureDir& operator=(const CaptureDir&) = delete;

  void Write(const std::string& rel, const std::string& text) const {
    fs::create_directories(fs::path(path_ + "/" + rel).parent_path());
    std::ofstream(path_ + "/" + rel) << text;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

const record::IrqRate* Line(const record::HostInterval& s, const std::string& name) {
  for (const auto& line : s.irqs.value()) {
    if (line.name == name) return &line;
  }
  return nullptr;
}

// Seed 2's stormed server as a capture: its own vmstat -i and top lines; the second vmstat is
// constructed from the post's per-second rates over the 3 s between the samples (em0:rx0
// 898/s, em0:tx0 1013/s, hpet0 339/s), and the ifconfig line for em0 is constructed (the post
// shows none).
TEST(FarCaptureTest, FreebsdSeedTwoServer) {
  CaptureDir dir;
  dir.Write("nicbench-capture", "nicbench-capture 1\nos FreeBSD\ninterface em0\nseconds 3\n");
  dir.Write("freebsd/ifconfig-a.txt",
            "em0: flags=8843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST> metric 0 mtu 1500\n"
            "\toptions=4019b<RXCSUM,TXCSUM,VLAN_MTU,VLAN_HWTAGGING,VLAN_HWCSUM,TSO4>\n"
            "\tmedia: Ethernet autoselect (1000baseT <full-duplex>)\n\tstatus: active\n");
  dir.Write("freebsd/sysctl-kern.txt", "kern.hostname: nas\nkern.osrelease: 9.3-RELEASE\n");
  dir.Write("freebsd/sysctl-hw.txt", "hw.ncpu: 2\nhw.model: Intel(R) Pentium(R) CPU\n");
  dir.Write("freebsd/sysctl-dev.txt",
            "dev.em.0.%parent: pci1\ndev.em.0.mac_stats.missed_packets: 10\n");
  dir.Write("later/freebsd/sysctl-dev.txt", "dev.em.0.mac_stats.missed_packets: 25\n");
  dir.Write("freebsd/vmstat-i.txt", ReadFixture("freebsd/vmstat-i-em0-nas4free-stormed.txt"));
  dir.Write("later/freebsd/vmstat-i.txt",
            "interrupt                          total       rate\n"
            "irq4: uart0                        64467          4\n"
            "irq20: hpet0 uhci0+              5716774        339\n"
            "irq257: em0:rx0                 15139113        898\n"
            "irq258: em0:tx0                 17079211       1013\n");
  dir.Write("later/freebsd/top-SHPb.txt", ReadFixture("freebsd/top-SHPb-em0-nas4free-stormed.txt"));
  auto capture = ReadFarCapture(dir.path());
  ASSERT_TRUE(capture) << capture.error().ToString();
  EXPECT_EQ(capture->os, "FreeBSD");
  const record::EndpointRecord& end = capture->end;
  EXPECT_EQ(end.host.hostname.value(), "nas");
  EXPECT_EQ(end.host.cpu_count.value(), 2);
  EXPECT_EQ(end.nic.driver.value(), "em");
  EXPECT_EQ(end.nic.speed_mbps.value(), 1000u);
  EXPECT_EQ(end.nic.duplex.value(), "full");
  EXPECT_FALSE(end.nic.rings.known());  // per-driver sysctls: unknown, not zero
  EXPECT_EQ(end.nic.driver_stats.value().at("mac_stats.missed_packets"), 10u);
  EXPECT_EQ(end.nic.driver_stats_after.value().at("mac_stats.missed_packets"), 25u);
  ASSERT_EQ(end.samples.size(), 1u);
  const record::HostInterval& s = end.samples[0];
  EXPECT_DOUBLE_EQ(s.end - s.start, 3.0);
  ASSERT_TRUE(s.cpus.known());
  EXPECT_DOUBLE_EQ(s.cpus.value()[0].irq, 100.0);
  EXPECT_DOUBLE_EQ(s.cpus.value()[1].system, 26.3);
  ASSERT_TRUE(s.irqs.known());
  const record::IrqRate* rx = Line(s, "em0:rx0");
  ASSERT_NE(rx, nullptr);
  EXPECT_TRUE(rx->nic);
  EXPECT_EQ(rx->nic_queue, "rx0");
  EXPECT_EQ(rx->irq, "257");
  EXPECT_DOUBLE_EQ(rx->per_second, 898.0);
  EXPECT_DOUBLE_EQ(Line(s, "em0:tx0")->per_second, 1013.0);
  EXPECT_FALSE(Line(s, "hpet0 uhci0+")->nic);
  EXPECT_EQ(Line(s, "uart0"), nullptr);  // did not move
  ASSERT_EQ(end.nic.irq_vectors.value().size(), 2u);
  EXPECT_FALSE(s.softnet.known());
  EXPECT_FALSE(s.process.known());
}

// A Linux capture: the build VM's tree (tests/testdata/roots/vm-6.18) as the first reading,
// its /proc/stat and /proc/interrupts taken a second later (the -t1 fixtures) as the second,
// and the virtio_net ethtool texts of the team's collection; rx_queue_0_packets moved by 5000.
TEST(FarCaptureTest, LinuxTreeWithEthtoolTexts) {
  CaptureDir dir;
  fs::copy(nicbench::testing::TestdataDir() + "/roots/vm-6.18", dir.path(),
           fs::copy_options::recursive | fs::copy_options::copy_symlinks |
               fs::copy_options::overwrite_existing);
  dir.Write("nicbench-capture", "nicbench-capture 1\nos Linux\ninterface eth0\nseconds 1\n");
  dir.Write("proc/stat", ReadFixture("proc/stat-vm-6.18-2cpu-t0.txt"));
  dir.Write("proc/interrupts", ReadFixture("proc/interrupts-vm-6.18-2cpu-t0.txt"));
  dir.Write("later/proc/stat", ReadFixture("proc/stat-vm-6.18-2cpu-t1.txt"));
  dir.Write("later/proc/interrupts", ReadFixture("proc/interrupts-vm-6.18-2cpu-t1.txt"));
  dir.Write("ethtool/eth0/g.txt", ReadFixture("ethtool/ethtool-g-virtio_net.txt"));
  dir.Write("ethtool/eth0/c.txt", "");  // virtio_net on this kernel: ethtool printed nothing
  dir.Write("ethtool/eth0/S.txt", "rx_queue_0_packets: 10282181\n");
  dir.Write("later/ethtool/eth0/S.txt", "rx_queue_0_packets: 10287181\n");
  auto capture = ReadFarCapture(dir.path());
  ASSERT_TRUE(capture) << capture.error().ToString();
  const record::EndpointRecord& end = capture->end;
  EXPECT_EQ(capture->os, "Linux");
  EXPECT_TRUE(end.host.kernel.known());
  EXPECT_EQ(end.nic.interface, "eth0");
  ASSERT_TRUE(end.nic.rings.known());
  EXPECT_EQ(end.nic.rings.value().rx, 256u);
  EXPECT_FALSE(end.nic.coalescing.known());
  EXPECT_EQ(end.nic.coalescing.why(), record::Missing::kNotSupported);
  EXPECT_EQ(end.nic.driver_stats_after.value().at("rx_queue_0_packets") -
                end.nic.driver_stats.value().at("rx_queue_0_packets"),
            5000u);
  ASSERT_EQ(end.samples.size(), 1u);
  const record::HostInterval& s = end.samples[0];
  EXPECT_DOUBLE_EQ(s.end, 1.0);
  ASSERT_TRUE(s.cpus.known());
  EXPECT_EQ(s.cpus.value().size(), 2u);
  ASSERT_TRUE(s.irqs.known());
  // eth0 (virtio2, 0000:00:03.0) was idle between the two readings; virtio3-rx moved by one.
  const record::IrqRate* rx = nullptr;
  for (const auto& line : s.irqs.value()) {
    EXPECT_FALSE(line.nic) << line.name;
    if (line.name == "virtio3-rx") rx = &line;
  }
  ASSERT_NE(rx, nullptr);
  EXPECT_EQ(rx->total, 1u);
  EXPECT_FALSE(s.process.known());  // the reader's own rusage is not the far end's
}

// Seed 1's FreeBSD end: msk0 (parent mskc0) at 100baseTX, the Marvell 88E8072 from pciconf.
TEST(FarCaptureTest, FreebsdSeedOneFacts) {
  CaptureDir dir;
  dir.Write("nicbench-capture", "nicbench-capture 1\nos FreeBSD\ninterface msk0\nseconds 3\n");
  dir.Write("freebsd/ifconfig-a.txt", ReadFixture("freebsd/ifconfig-msk0-freebsd8-stable.txt"));
  dir.Write("freebsd/pciconf-lv.txt", ReadFixture("freebsd/pciconf-lv-mskc0-freebsd8-stable.txt"));
  dir.Write("freebsd/sysctl-dev.txt", "dev.msk.0.%parent: mskc0\n");
  auto capture = ReadFarCapture(dir.path());
  ASSERT_TRUE(capture) << capture.error().ToString();
  const record::NicFacts& nic = capture->end.nic;
  EXPECT_EQ(nic.speed_mbps.value(), 100u);
  EXPECT_EQ(nic.mtu.value(), 1500u);
  ASSERT_TRUE(nic.pci.known());
  EXPECT_EQ(nic.pci.value().vendor_id, "11ab");
  EXPECT_EQ(nic.pci.value().device_id, "436c");
  EXPECT_EQ(nic.pci.value().device_name, "Marvell 8072 Ethernet Nic (88E8072)");
  EXPECT_EQ(nic.bus_info.value(), "pci0:134:0:0");
  bool tso = false;
  for (const auto& o : nic.offloads.value()) {
    if (o.name == "tcp-segmentation-offload") tso = o.on;
  }
  EXPECT_TRUE(tso);
  // No vmstat or top in this capture: the sample's figures are unknown, never zero.
  ASSERT_EQ(capture->end.samples.size(), 1u);
  EXPECT_FALSE(capture->end.samples[0].cpus.known());
  EXPECT_FALSE(capture->end.samples[0].irqs.known());
}

// Seed 2's em0 with its `pciconf -lvc` lines as the capture's pciconf -lv and -lc: the PCI
// identity, the interrupt mode (MSI, one message) and the PCIe link (x1 at 2.5 GT/s, as capable),
// so the rules that read them (legacy IRQ mode, PCIe below capability) see a FreeBSD far end.
TEST(FarCaptureTest, FreebsdPciconfCapabilities) {
  CaptureDir dir;
  dir.Write("nicbench-capture", "nicbench-capture 1\nos FreeBSD\ninterface em0\nseconds 3\n");
  dir.Write("freebsd/ifconfig-a.txt",
            "em0: flags=8843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST> metric 0 mtu 1500\n"
            "\tmedia: Ethernet autoselect (1000baseT <full-duplex>)\n\tstatus: active\n");
  const std::string lvc = ReadFixture("freebsd/pciconf-lvc-em0-nas4free.txt");
  dir.Write("freebsd/pciconf-lv.txt", lvc);
  dir.Write("freebsd/pciconf-lc.txt", lvc);
  auto capture = ReadFarCapture(dir.path());
  ASSERT_TRUE(capture) << capture.error().ToString();
  const record::NicFacts& nic = capture->end.nic;
  ASSERT_TRUE(nic.pci.known());
  EXPECT_EQ(nic.pci.value().device_id, "10d3");
  ASSERT_TRUE(nic.pci.value().link.known());
  EXPECT_EQ(nic.pci.value().link.value().current.width, 1u);
  EXPECT_DOUBLE_EQ(nic.pci.value().link.value().max.speed_gts, 2.5);
  ASSERT_TRUE(nic.pci.value().msi.known());
  EXPECT_TRUE(nic.pci.value().msi.value().enabled);
  ASSERT_TRUE(nic.pci.value().msix.known());
  EXPECT_FALSE(nic.pci.value().msix.value().enabled);
  EXPECT_EQ(nic.irq_mode.value(), "MSI");
}

TEST(FarCaptureTest, BadCapturesAreClearErrors) {
  auto missing = ReadFarCapture("/nonexistent/nicbench-capture-dir");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().ToString().find("/nonexistent/nicbench-capture-dir"),
            std::string::npos);
  CaptureDir plain;
  plain.Write("proc/stat", "cpu 1 2 3 4\n");
  EXPECT_FALSE(IsFarCapture(plain.path()));
  auto not_capture = ReadFarCapture(plain.path());
  ASSERT_FALSE(not_capture);
  EXPECT_NE(not_capture.error().ToString().find("not a capture"), std::string::npos);
  CaptureDir other;
  other.Write("nicbench-capture", "nicbench-capture 1\nos Darwin\ninterface en0\n");
  auto darwin = ReadFarCapture(other.path());
  ASSERT_FALSE(darwin);
  EXPECT_NE(darwin.error().ToString().find("neither Linux nor FreeBSD"), std::string::npos);
  CaptureDir no_iface;
  no_iface.Write("nicbench-capture", "nicbench-capture 1\nos FreeBSD\ninterface \n");
  EXPECT_FALSE(ReadFarCapture(no_iface.path()));
  CaptureDir wrong_iface;
  wrong_iface.Write("nicbench-capture", "nicbench-capture 1\nos FreeBSD\ninterface em1\n");
  wrong_iface.Write("freebsd/ifconfig-a.txt",
                    ReadFixture("freebsd/ifconfig-msk0-freebsd8-stable.txt"));
  auto em1 = ReadFarCapture(wrong_iface.path());
  ASSERT_FALSE(em1);
  EXPECT_NE(em1.error().ToString().find("no interface 'em1'"), std::string::npos);
}

}  // namespace
}  // namespace nicbench::probes
