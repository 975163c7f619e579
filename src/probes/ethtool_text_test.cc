#include "probes/ethtool_text.h"

#include <gtest/gtest.h>

#include "probes/proc_parsers.h"
#include "probes/test_fixture.h"

namespace nicbench::probes {
namespace {

using testing::ReadFixture;

TEST(EthtoolTextTest, RingsOfRealCaptures) {
  auto igb = ParseEthtoolRings(ReadFixture("ethtool/ethtool-g-igb.txt"));
  ASSERT_TRUE(igb) << igb.error().ToString();
  EXPECT_EQ(igb->rx, 256u);
  EXPECT_EQ(igb->tx, 256u);
  EXPECT_EQ(igb->rx_max, 4096u);
  EXPECT_EQ(igb->tx_max, 4096u);
  // netlink ethtool: more lines, "n/a", and a note after a number.
  auto talos = ParseEthtoolRings(ReadFixture("ethtool/ethtool-g-netlink-e1000e-talos.txt"));
  ASSERT_TRUE(talos) << talos.error().ToString();
  EXPECT_EQ(talos->rx, 256u);
  EXPECT_EQ(talos->rx_max, 4096u);
  EXPECT_FALSE(ParseEthtoolRings(ReadFixture("ethtool/ethtool-c-igb.txt")));
}

TEST(EthtoolTextTest, CoalescingOfRealCaptures) {
  auto igb = ParseEthtoolCoalescing(ReadFixture("ethtool/ethtool-c-igb.txt"));
  ASSERT_TRUE(igb) << igb.error().ToString();
  EXPECT_EQ(igb->rx_usecs, 3u);
  EXPECT_FALSE(igb->adaptive_rx);
  EXPECT_FALSE(ParseEthtoolCoalescing(ReadFixture("ethtool/ethtool-g-igb.txt")));
}

// Flow control (issue 28): `ethtool -a` as the kernel's documentation prints it, statistics and
// all, and the text a capture writes from the ioctl's answer.
TEST(EthtoolTextTest, PauseSettings) {
  auto doc = ParseEthtoolPause(ReadFixture("ethtool/ethtool-a-include-statistics-kernel-doc.txt"));
  ASSERT_TRUE(doc) << doc.error().ToString();
  EXPECT_TRUE(doc->autoneg);
  EXPECT_TRUE(doc->rx);
  EXPECT_TRUE(doc->tx);
  auto off = ParseEthtoolPause(
      "Pause parameters for eth0:\nAutonegotiate:  on\nRX:             off\nTX:             off\n"
      "RX negotiated: on\nTX negotiated: on\n");
  ASSERT_TRUE(off) << off.error().ToString();
  EXPECT_TRUE(off->autoneg);
  EXPECT_FALSE(off->rx);
  EXPECT_FALSE(off->tx);
  auto back = ParseEthtoolPause(RenderEthtoolPause({false, true, false}));
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->autoneg);
  EXPECT_TRUE(back->rx);
  EXPECT_FALSE(back->tx);
  EXPECT_FALSE(ParseEthtoolPause(ReadFixture("ethtool/ethtool-g-igb.txt")));
}

TEST(EthtoolTextTest, DriverInfoFeaturesChannels) {
  auto info = ParseEthtoolDriverInfo(
      "driver: virtio_net\nversion: 1.0.0\nfirmware-version: \nbus-info: 0000:00:03.0\n");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->at("driver"), "virtio_net");
  EXPECT_EQ(info->at("bus-info"), "0000:00:03.0");
  EXPECT_EQ(info->at("firmware-version"), "");
  auto features = ParseEthtoolFeatures(
      "Features for eth0:\nrx-checksumming: on [fixed]\ntx-checksumming: on\n"
      "\ttx-checksum-ipv4: off [fixed]\ntcp-segmentation-offload: off\n");
  ASSERT_TRUE(features);
  ASSERT_EQ(features->size(), 4u);
  EXPECT_TRUE((*features)[0].fixed);
  EXPECT_EQ((*features)[2].name, "tx-checksum-ipv4");
  EXPECT_FALSE((*features)[3].on);
  auto channels = ParseEthtoolChannels(
      "Channel parameters for eth0:\nPre-set maximums:\nRX:\t\tn/a\nTX:\t\tn/a\nOther:\t\tn/a\n"
      "Combined:\t8\nCurrent hardware settings:\nRX:\t\tn/a\nTX:\t\tn/a\nOther:\t\tn/a\n"
      "Combined:\t1\n");
  ASSERT_TRUE(channels);
  EXPECT_EQ(channels->combined, 1u);
  EXPECT_EQ(channels->combined_max, 8u);
  EXPECT_FALSE(ParseEthtoolDriverInfo("bus-info: x\n"));
  EXPECT_FALSE(ParseEthtoolFeatures(""));
  EXPECT_FALSE(ParseEthtoolChannels("Pre-set maximums:\n"));
}

// What `nicbench collect -o` writes from the ioctls reads back to the same values.
TEST(EthtoolTextTest, RenderedTextsReadBack) {
  record::RingSizes rings{512, 256, 4096, 2048};
  auto r = ParseEthtoolRings(RenderEthtoolRings(rings));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->rx, 512u);
  EXPECT_EQ(r->tx, 256u);
  EXPECT_EQ(r->rx_max, 4096u);
  EXPECT_EQ(r->tx_max, 2048u);
  record::Coalescing c{50, 8, 100, 16, true, false};
  auto cc = ParseEthtoolCoalescing(RenderEthtoolCoalescing(c));
  ASSERT_TRUE(cc);
  EXPECT_EQ(cc->rx_usecs, 50u);
  EXPECT_EQ(cc->rx_frames, 8u);
  EXPECT_EQ(cc->tx_usecs, 100u);
  EXPECT_EQ(cc->tx_frames, 16u);
  EXPECT_TRUE(cc->adaptive_rx);
  EXPECT_FALSE(cc->adaptive_tx);
  record::ChannelCounts ch;
  ch.combined = 4;
  ch.combined_max = 16;
  ch.rx = 1;
  auto chr = ParseEthtoolChannels(RenderEthtoolChannels(ch));
  ASSERT_TRUE(chr);
  EXPECT_EQ(chr->combined, 4u);
  EXPECT_EQ(chr->combined_max, 16u);
  EXPECT_EQ(chr->rx, 1u);
  auto f = ParseEthtoolFeatures(RenderEthtoolFeatures(
      {{"tcp-segmentation-offload", true, false}, {"large-receive-offload", false, true}}));
  ASSERT_TRUE(f);
  EXPECT_TRUE((*f)[0].on);
  EXPECT_TRUE((*f)[1].fixed);
  auto s = ParseEthtoolStatistics(
      RenderEthtoolStatistics({{"rx_missed_errors", 7}, {"[3]: rx_discards", 2}}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->at("rx_missed_errors"), 7u);
  EXPECT_EQ(s->at("[3]: rx_discards"), 2u);
  record::NicFacts nic;
  nic.driver = std::string("e1000e");
  nic.bus_info = std::string("0000:03:00.0");
  auto i = ParseEthtoolDriverInfo(RenderEthtoolDriverInfo(nic));
  ASSERT_TRUE(i);
  EXPECT_EQ(i->at("driver"), "e1000e");
  EXPECT_EQ(i->at("bus-info"), "0000:03:00.0");
}

}  // namespace
}  // namespace nicbench::probes

namespace nicbench::probes {
namespace {

// `ethtool IF` (6.1) of a veth on kernel 6.18, and a driver that knows no link.
TEST(EthtoolTextTest, SettingsOfAVethAndOfALinkDown) {
  auto veth = ParseEthtoolSettings(
      "Settings for st36v0:\n\tSupported ports: [  ]\n\tSupported link modes:   Not reported\n"
      "\tSupports auto-negotiation: No\n\tSpeed: 10000Mb/s\n\tDuplex: Full\n"
      "\tAuto-negotiation: off\n\tPort: Twisted Pair\n\tLink detected: yes\n");
  ASSERT_TRUE(veth) << veth.error().ToString();
  EXPECT_EQ(veth->speed_mbps.value(), 10000u);
  EXPECT_EQ(veth->duplex.value(), "full");
  EXPECT_FALSE(veth->autoneg.value());
  auto down = ParseEthtoolSettings(
      "Settings for eth1:\n\tSpeed: Unknown!\n\tDuplex: Unknown! (255)\n\tAuto-negotiation: on\n");
  ASSERT_TRUE(down);
  EXPECT_EQ(down->speed_mbps.why(), record::Missing::kNotSupported);
  EXPECT_EQ(down->speed_mbps.detail(), "driver reports speed unknown");
  EXPECT_EQ(down->duplex.detail(), "driver reports duplex unknown");
  EXPECT_TRUE(down->autoneg.value());
  EXPECT_FALSE(ParseEthtoolSettings("Features for eth0:\nrx-checksumming: on\n"));
}

}  // namespace
}  // namespace nicbench::probes
