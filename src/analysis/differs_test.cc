#include "analysis/differs.h"

#include <gtest/gtest.h>

#include "analysis/test_runs.h"

namespace nicbench::analysis {
namespace {

using testing::MakeRun;
using testing::RunShape;

std::vector<const record::RunRecord*> Ptrs(const std::vector<record::RunRecord>& runs) {
  std::vector<const record::RunRecord*> out;
  for (const auto& r : runs) out.push_back(&r);
  return out;
}

const FactDifference* Find(const std::vector<FactDifference>& d, const std::string& name) {
  for (const auto& f : d) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

TEST(WhatDiffers, OffloadOnBothEndsAndNothingElse) {
  RunShape off;
  off.tso = false;
  std::vector<record::RunRecord> a = {MakeRun(), MakeRun()}, b = {MakeRun(off), MakeRun(off)};
  auto d = WhatDiffers(Ptrs(a), Ptrs(b));
  ASSERT_EQ(d.size(), 2u);
  const auto* server = Find(d, "server.offload.tcp-segmentation-offload");
  ASSERT_NE(server, nullptr);
  EXPECT_TRUE(server->between);
  EXPECT_FALSE(server->a_mixed || server->b_mixed);
  ASSERT_EQ(server->a.size(), 1u);
  EXPECT_EQ(server->a[0].value, "on");
  EXPECT_EQ(server->a[0].runs, 2);
  EXPECT_EQ(server->b[0].value, "off");
  EXPECT_NE(Find(d, "client.offload.tcp-segmentation-offload"), nullptr);
}

TEST(WhatDiffers, ASetThatMixesTwoMtusIsFlagged) {
  RunShape jumbo;
  jumbo.mtu = 9000;
  std::vector<record::RunRecord> a = {MakeRun(), MakeRun(jumbo), MakeRun()}, b = {MakeRun()};
  auto d = WhatDiffers(Ptrs(a), Ptrs(b));
  const auto* mtu = Find(d, "client.mtu");
  ASSERT_NE(mtu, nullptr);
  EXPECT_TRUE(mtu->a_mixed);
  EXPECT_FALSE(mtu->b_mixed);
  EXPECT_EQ(mtu->a[0].value, "1500");  // most common first
  EXPECT_EQ(mtu->a[0].runs, 2);
  EXPECT_EQ(mtu->a[1].value, "9000");
}

TEST(WhatDiffers, OptionsKernelAndUnknownFacts) {
  std::vector<record::RunRecord> a = {MakeRun()}, b = {MakeRun()};
  b[0].spec.parallel = 4;
  b[0].spec.congestion = "bbr";
  b[0].remote.value().host.kernel = std::string("6.12.0");
  b[0].local.nic.rings =
      record::Measured<record::RingSizes>::Unknown(record::Missing::kNotSupported, "veth");
  auto d = WhatDiffers(Ptrs(a), Ptrs(b));
  ASSERT_NE(Find(d, "options.streams"), nullptr);
  EXPECT_EQ(Find(d, "options.streams")->b[0].value, "4");
  EXPECT_EQ(Find(d, "options.congestion")->b[0].value, "bbr");
  EXPECT_EQ(Find(d, "server.kernel")->b[0].value, "6.12.0");
  EXPECT_EQ(Find(d, "client.kernel"), nullptr);
  // Unknown for another reason is another value: "absent" and "not supported" say different
  // things about the device.
  ASSERT_NE(Find(d, "client.rings"), nullptr);
  EXPECT_EQ(Find(d, "client.rings")->b[0].value, "unknown (not supported: veth)");
  EXPECT_EQ(Find(d, "server.rings"), nullptr);
  EXPECT_TRUE(WhatDiffers(Ptrs(a), Ptrs(a)).empty());
}

TEST(FactsOf, NamesEveryFactFamily) {
  auto facts = FactsOf(MakeRun());
  std::vector<std::string> names;
  for (const auto& f : facts) names.push_back(f.first);
  for (const char* want :
       {"options.direction", "client.kernel", "client.driver-version", "client.firmware-version",
        "client.mtu", "client.rings", "client.coalescing", "client.irq-mode", "client.qdisc",
        "client.congestion", "server.offload.generic-receive-offload"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
}

}  // namespace
}  // namespace nicbench::analysis
