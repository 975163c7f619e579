#include "probes/nic_device.h"

#include <gtest/gtest.h>

#include "probes/test_fixture.h"
#include "support/run_binary.h"

namespace nicbench::probes {
namespace {

using testing::ReadFixture;

// The NIC lines of a fixture under `nic`, as "irq=queue" strings in file order.
std::vector<std::string> NicLines(const std::string& fixture, const NicDevice& nic) {
  auto irqs = ParseInterrupts(ReadFixture("proc/" + fixture));
  EXPECT_TRUE(irqs) << irqs.error().ToString();
  std::vector<std::string> out;
  if (!irqs) return out;
  for (const InterruptLine& line : irqs->lines) {
    if (auto queue = MatchNicIrq(nic, line)) out.push_back(line.irq + "=" + *queue);
  }
  return out;
}

NicDevice Named(const std::string& iface) {
  NicDevice nic;
  nic.interface = iface;
  return nic;
}

TEST(MatchNicIrqTest, IxgbeTxRxQueuesByName) {
  auto lines = NicLines("interrupts-ixgbe-12cpu.txt", Named("eth0"));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "65=");  // ixgbe's link/other vector carries the bare interface name
  EXPECT_EQ(lines[1], "66=TxRx-0");
  // eth1's lines never match eth0, nor eth10 eth1.
  for (const std::string& line : NicLines("interrupts-ixgbe-igb-32cpu.txt", Named("eth1"))) {
    EXPECT_EQ(line.find("eth10"), std::string::npos) << line;
  }
}

TEST(MatchNicIrqTest, IgbSeparateRxTxAndOtherVector) {
  auto lines = NicLines("interrupts-igb-rx-tx-4cpu.txt", Named("eth0"));
  EXPECT_NE(std::find(lines.begin(), lines.end(), "58=rx-0"), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), "57="), lines.end());  // the "other" vector
  bool has_tx = false;
  for (const auto& l : lines) has_tx |= l.find("=tx-") != std::string::npos;
  EXPECT_TRUE(has_tx);
}

TEST(MatchNicIrqTest, I40ePrefixedNames) {
  auto lines = NicLines("interrupts-i40e-igb-e1000e-4cpu.txt", Named("eth0"));
  EXPECT_EQ(lines, (std::vector<std::string>{"33=TxRx-0", "34=TxRx-1", "35=TxRx-2", "36=TxRx-3"}));
  auto eth3 = NicLines("interrupts-i40e-igb-e1000e-4cpu.txt", Named("eth3"));
  EXPECT_EQ(eth3.front(), "61=");
  EXPECT_EQ(eth3[1], "62=TxRx-0");
}

TEST(MatchNicIrqTest, Mlx5ByBusAddressInName) {
  NicDevice nic = Named("enp1s0f0");
  nic.pci_address = "0000:01:00.0";
  auto lines = NicLines("interrupts-mlx5-4cpu.txt", nic);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "32=mlx5_comp2"), lines.end());
  for (const std::string& line : lines) {
    int irq = std::stoi(line);
    EXPECT_TRUE(irq >= 27 && irq <= 33) << line;  // never the 0000:01:00.1 function
  }
}

TEST(MatchNicIrqTest, Mlx4CutShortFoundByMsiNumber) {
  NicDevice nic = Named("eth6");
  nic.pci_address = "0000:04:00.0";
  nic.msi_irqs = {{"109", "msix"}};
  auto lines = NicLines("interrupts-mlx4-be2net-tg3-16cpu.txt", nic);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "109=mlx4-comp-0"), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), "113=0"), lines.end());  // eth6-0
}

TEST(MatchNicIrqTest, VirtioByDeviceNameAndChipAddress) {
  NicDevice nic = Named("eth0");
  nic.device_name = "virtio0";
  auto old = NicLines("interrupts-virtio-1cpu.txt", nic);
  EXPECT_EQ(old, (std::vector<std::string>{"26=config", "27=input.0", "28=output.0"}));
  NicDevice vm = Named("eth0");
  vm.device_name = "virtio2";
  vm.pci_address = "0000:00:03.0";
  EXPECT_EQ(NicLines("interrupts-vm-6.18-2cpu-t0.txt", vm),
            (std::vector<std::string>{"37=config", "38=input.0", "39=output.0"}));
  NicDevice kvm = Named("eth0");
  kvm.device_name = "virtio0";
  auto shared = NicLines("interrupts-kvm-2cpu.txt", kvm);
  EXPECT_NE(std::find(shared.begin(), shared.end(), "25=virtqueues"), shared.end())
      << ::testing::PrintToString(shared);
}

TEST(MatchNicIrqTest, WifiFoundOnlyByMsiNumber) {
  InterruptLine line;
  line.irq = "44";
  line.numeric = true;
  line.chip = "PCI-MSI";
  line.name = "iwlwifi";
  NicDevice nic = Named("wlan0");
  EXPECT_FALSE(MatchNicIrq(nic, line));
  nic.msi_irqs = {{"44", "msi"}};
  EXPECT_EQ(MatchNicIrq(nic, line).value(), "iwlwifi");
}

TEST(MatchNicIrqTest, SingleVectorNicNamedAfterInterface) {
  auto lines = NicLines("interrupts-sysstat-laptop-8cpu.txt", Named("enp6s0"));
  EXPECT_EQ(lines, (std::vector<std::string>{"33="}));
}

TEST(LocateNicDeviceTest, CapturedVirtioTree) {
  DirFileSource files(nicbench::testing::TestdataDir() + "/roots/vm-6.18");
  NicDevice nic = LocateNicDevice(files, "eth0");
  EXPECT_EQ(nic.device_name, "virtio2");
  EXPECT_EQ(nic.pci_address, "0000:00:03.0");
  EXPECT_EQ(nic.msi_irqs.size(), 3u);
  EXPECT_EQ(nic.msi_irqs.at("38"), "msix");
  NicDevice missing = LocateNicDevice(files, "eth9");
  EXPECT_TRUE(missing.pci_address.empty());
  EXPECT_TRUE(missing.msi_irqs.empty());
}

TEST(IsPciAddressTest, Forms) {
  EXPECT_TRUE(IsPciAddress("0000:03:00.0"));
  EXPECT_FALSE(IsPciAddress("virtio2"));
  EXPECT_FALSE(IsPciAddress("0000:03:00-0"));
}

}  // namespace
}  // namespace nicbench::probes
