#include "probes/pci_config.h"
#include "support/run_binary.h"

#include <gtest/gtest.h>

namespace nicbench::probes {
namespace {

// The capability words behind real `lspci` lines (../shared/realdata, tests/testdata/README.md):
// lspci-v-r8168-msi-msix.txt "MSI: Enable+ Count=1/1 Maskable- 64bit+" and "MSI-X: Enable-
// Count=4"; lspci-vvnn-82599-ixgbe-truncated.txt "MSI-X: Enable+ Count=64".
TEST(PciConfig, DecodesMsiAndMsixControlAsLspciShowsThem) {
  const record::PciInterruptCap r8168_msi = DecodeMsiControl(0x0081);  // 64-bit, enabled, 1/1
  EXPECT_EQ(r8168_msi.messages, 1u);
  EXPECT_TRUE(r8168_msi.enabled);
  EXPECT_EQ(r8168_msi.enabled_messages, 1u);
  const record::PciInterruptCap r8168_msix = DecodeMsixControl(0x0003);  // table size 4, off
  EXPECT_EQ(r8168_msix.messages, 4u);
  EXPECT_FALSE(r8168_msix.enabled);
  EXPECT_EQ(r8168_msix.enabled_messages, 0u);
  const record::PciInterruptCap ixgbe_msix = DecodeMsixControl(0x803f);
  EXPECT_EQ(ixgbe_msix.messages, 64u);
  EXPECT_TRUE(ixgbe_msix.enabled);
  // MSI with 8 capable (MMC 3) and 4 enabled (MME 2).
  const record::PciInterruptCap msi = DecodeMsiControl((3 << 1) | (2 << 4) | 1);
  EXPECT_EQ(msi.messages, 8u);
  EXPECT_EQ(msi.enabled_messages, 4u);
}

TEST(PciConfig, LinkSpeeds) {
  EXPECT_DOUBLE_EQ(PcieSpeedGts(1), 2.5);
  EXPECT_DOUBLE_EQ(PcieSpeedGts(3), 8);
  EXPECT_DOUBLE_EQ(PcieSpeedGts(5), 32);
  EXPECT_DOUBLE_EQ(PcieSpeedGts(0), 0);
  EXPECT_DOUBLE_EQ(PcieSpeedGts(15), 0);
}

// A captured tree of a real machine (tests/testdata/roots/vm-6.18-pci): a virtio-net function
// with MSI-X and neither MSI nor a PCI Express capability.
TEST(PciConfig, ReadsTheCapturedVirtioFunction) {
  DirFileSource files(nicbench::testing::TestdataDir() + "/roots/vm-6.18-pci");
  record::PciIdentity pci;
  FillPciDetails(files, "0000:00:03.0", pci);
  EXPECT_EQ(pci.subsystem_vendor_id, "1af4");
  EXPECT_EQ(pci.subsystem_device_id, "1041");
  EXPECT_EQ(pci.class_id, "0200");
  EXPECT_EQ(pci.revision, "01");
  EXPECT_FALSE(pci.link.known());
  EXPECT_EQ(pci.link.why(), record::Missing::kAbsent);
  if (!HaveLibpci()) {
    EXPECT_EQ(pci.msix.why(), record::Missing::kNotSupported);
    return;
  }
  EXPECT_EQ(pci.class_name, "Ethernet controller");
  ASSERT_TRUE(pci.msix.known()) << pci.msix.detail();
  EXPECT_EQ(pci.msix.value().messages, 3u);
  EXPECT_TRUE(pci.msix.value().enabled);
  EXPECT_EQ(pci.msi.why(), record::Missing::kAbsent);
}

TEST(PciConfig, NoConfigurationSpaceIsUnknownWithTheReason) {
  DirFileSource files(nicbench::testing::TestdataDir() + "/roots/vm-6.18");  // no config file
  record::PciIdentity pci;
  FillPciDetails(files, "0000:00:03.0", pci);
  ASSERT_FALSE(pci.msix.known());
  if (HaveLibpci()) {
    EXPECT_NE(pci.msix.detail().find("config"), std::string::npos);
  }
}

}  // namespace
}  // namespace nicbench::probes
