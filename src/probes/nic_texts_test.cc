// The ethtool and tc texts of a capture: what WriteNicTexts writes from facts read live,
// CollectNicFacts reads back from the captured tree to the same facts, reasons included.
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "probes/capture.h"
#include "probes/collect_facts.h"
#include "probes/file_source.h"
#include "record/json.h"

namespace nicbench::probes {
namespace {

namespace fs = std::filesystem;
using record::Measured;
using record::Missing;

class TreeDir {
 public:
  TreeDir() {
    char name[] = "/tmp/nicbench-nic-texts-XXXXXX";
    if (mkdtemp(name) != nullptr) path_ = name;
  }
  ~TreeDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TreeDir(const TreeDir&) = delete;
  TreeDir& operator=(const TreeDir&) = delete;
  void Write(const std::string& rel, const std::string& text) const {
    fs::create_directories(fs::path(path_ + "/" + rel).parent_path());
    std::ofstream(path_ + "/" + rel) << text;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A veth as the ioctls and netlink describe it on kernel 6.18, TSO turned off, two channels
// and a tbf root, with what veth does not answer.
record::NicFacts LiveVeth() {
  record::NicFacts nic;
  nic.interface = "veth0";
  nic.driver = std::string("veth");
  nic.driver_version = std::string("1.0");
  nic.firmware_version =
      Measured<std::string>::Unknown(Missing::kNotSupported, "driver reports no firmware version");
  nic.bus_info =
      Measured<std::string>::Unknown(Missing::kNotSupported, "driver reports no bus address");
  nic.speed_mbps = uint64_t{10000};
  nic.duplex = std::string("full");
  nic.autoneg = false;
  nic.offloads = std::vector<record::OffloadState>{{"tcp-segmentation-offload", false, false},
                                                   {"tx-tcp-segmentation", false, false},
                                                   {"large-receive-offload", false, true}};
  nic.rings = Measured<record::RingSizes>::Unknown(Missing::kNotSupported,
                                                   "ETHTOOL_GRINGPARAM: Operation not supported");
  nic.coalescing = Measured<record::Coalescing>::Unknown(Missing::kPermissionDenied,
                                                         "ETHTOOL_GCOALESCE: Permission denied");
  nic.channels = record::ChannelCounts{2, 2, 0, 0, 2, 2, 0, 0};
  nic.driver_stats = std::map<std::string, uint64_t>{{"peer_ifindex", 2}, {"rx_queue_0_drops", 7}};
  nic.qdisc = record::Qdisc{"tbf", 100000000, 24, 32792};
  return nic;
}

const char* const kTextFacts[] = {"driver",     "driver_version", "firmware_version",
                                  "bus_info",   "speed_mbps",     "duplex",
                                  "autoneg",    "offloads",       "rings",
                                  "coalescing", "channels",       "driver_stats",
                                  "qdisc"};

TEST(NicTextsTest, CapturedTreeReadsBackAsLive) {
  TreeDir tree;
  tree.Write("sys/class/net/veth0/type", "1\n");
  tree.Write("sys/class/net/veth0/mtu", "1500\n");
  tree.Write("sys/class/net/veth0/speed", "10000\n");
  const record::NicFacts live = LiveVeth();
  ASSERT_TRUE(WriteNicTexts(tree.path(), live));
  DirFileSource files(tree.path());
  auto back = CollectNicFacts("veth0", files);
  ASSERT_TRUE(back) << back.error().ToString();
  const nlohmann::json a = live, b = *back;
  for (const char* fact : kTextFacts) {
    EXPECT_EQ(a[fact], b[fact]) << fact;
    EXPECT_EQ(a["unknown"].value(fact, ""), b["unknown"].value(fact, "")) << fact;
  }
  EXPECT_EQ(ReadDriverStats("veth0", files).value().at("rx_queue_0_drops"), 7u);
}

// A tree without the texts (a capture from before them) still says what it lacks; a text that
// ethtool left empty (collect.sh) is not supported, with ethtool's own message when kept.
TEST(NicTextsTest, MissingAndEmptyTexts) {
  TreeDir tree;
  tree.Write("sys/class/net/eth0/type", "1\n");
  DirFileSource files(tree.path());
  auto bare = CollectNicFacts("eth0", files);
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->offloads.why(), Missing::kAbsent);
  EXPECT_EQ(bare->offloads.detail(), "not in a captured tree");
  EXPECT_EQ(bare->qdisc.why(), Missing::kAbsent);
  tree.Write("ethtool/eth0/g.txt", "");
  tree.Write("ethtool/eth0/g.err", "netlink error: Operation not supported\n");
  tree.Write("ethtool/eth0/c.txt", "");
  tree.Write("ethtool/eth0/l.txt", "");
  tree.Write("ethtool/eth0/l.err", "Cannot get device channel parameters: Operation not permitted");
  tree.Write("ethtool/eth0/k.txt", "garbage\n");
  tree.Write("tc/eth0/qdisc.txt", "qdisc fq_codel 0: root refcnt 2 limit 10240p\n");
  auto texts = CollectNicFacts("eth0", files);
  ASSERT_TRUE(texts);
  EXPECT_EQ(texts->rings.why(), Missing::kNotSupported);
  EXPECT_EQ(texts->rings.detail(), "netlink error: Operation not supported");
  EXPECT_EQ(texts->coalescing.detail(), "ethtool printed nothing");
  EXPECT_EQ(texts->channels.why(), Missing::kPermissionDenied);
  EXPECT_EQ(texts->offloads.why(), Missing::kError);
  EXPECT_EQ(texts->qdisc.value().kind, "fq_codel");
}

// Loopback has no NIC: only its qdisc is kept and read.
TEST(NicTextsTest, LoopbackKeepsOnlyItsQdisc) {
  TreeDir tree;
  tree.Write("sys/class/net/lo/type", "772\n");
  record::NicFacts lo;
  lo.interface = "lo";
  lo.loopback = true;
  lo.qdisc = record::Qdisc{"noqueue", 0, 0, 0};
  ASSERT_TRUE(WriteNicTexts(tree.path(), lo));
  EXPECT_FALSE(fs::exists(tree.path() + "/ethtool/lo"));
  DirFileSource files(tree.path());
  auto back = CollectNicFacts("lo", files);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->qdisc.value().kind, "noqueue");
  EXPECT_EQ(back->offloads.detail(), "loopback: no NIC");
}

}  // namespace
}  // namespace nicbench::probes
