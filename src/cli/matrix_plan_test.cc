#include "cli/matrix_plan.h"

#include <set>

#include <gtest/gtest.h>

namespace nicbench::cli {
namespace {

std::vector<Vary> Varies(std::initializer_list<const char*> texts) {
  std::vector<Vary> out;
  for (const char* t : texts) out.push_back(*ParseVary(t));
  return out;
}

TEST(MatrixPlan, ParseVaryAndItsErrors) {
  auto v = ParseVary("tso=on,off");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->name, "tso");
  EXPECT_EQ(v->values, (std::vector<std::string>{"on", "off"}));
  EXPECT_FALSE(ParseVary("tso"));
  EXPECT_FALSE(ParseVary("=on"));
  EXPECT_FALSE(ParseVary("tso=on,,off"));
  EXPECT_FALSE(ParseVary("tso=on,on"));
  EXPECT_FALSE(ParseVary("round=1,2"));  // the matrix's own label
}

TEST(MatrixPlan, KnownNamesApplyThemselves) {
  auto varies = Varies({"direction=forward,reverse,bidir", "streams=1,4", "proto=tcp,udp",
                        "-w=64K,1M", "congestion=cubic,reno", "-N=on,off"});
  auto roles = Classify(varies, false, "", "");
  ASSERT_TRUE(roles) << roles.error().message;
  EXPECT_EQ((*roles)[0].kind, VaryKind::kDirection);
  EXPECT_EQ((*roles)[3].kind, VaryKind::kRunOption);
  EXPECT_EQ((*roles)[3].option, "--window");
  EXPECT_EQ((*roles)[4].option, "--congestion");
  EXPECT_EQ((*roles)[5].kind, VaryKind::kRunFlag);
  const Variant v = {{"direction", "reverse"}, {"streams", "4"}, {"proto", "udp"}, {"-w", "1M"},
                     {"congestion", "reno"},   {"-N", "on"}};
  EXPECT_EQ(
      RunArguments("198.18.0.2", {"-t", "3"}, v, *roles),
      (std::vector<std::string>{"198.18.0.2", "-t", "3", "--reverse", "--parallel", "4", "--udp",
                                "--window", "1M", "--congestion", "reno", "--no-delay"}));
}

TEST(MatrixPlan, UdpOffloadVariesAsARunFlag) {
  auto roles = Classify(Varies({"proto=udp", "udp-offload=on,off"}), false, "", "");
  ASSERT_TRUE(roles) << roles.error().message;
  EXPECT_EQ((*roles)[1].kind, VaryKind::kRunFlag);
  EXPECT_EQ(RunArguments("198.18.0.2", {}, {{"proto", "udp"}, {"udp-offload", "on"}}, *roles),
            (std::vector<std::string>{"198.18.0.2", "--udp", "--udp-offload"}));
  EXPECT_EQ(RunArguments("198.18.0.2", {}, {{"proto", "udp"}, {"udp-offload", "off"}}, *roles),
            (std::vector<std::string>{"198.18.0.2", "--udp"}));
}

TEST(MatrixPlan, BadValuesOfKnownNames) {
  EXPECT_FALSE(Classify(Varies({"direction=forward,sideways"}), false, "", ""));
  EXPECT_FALSE(Classify(Varies({"streams=0"}), false, "", ""));
  EXPECT_FALSE(Classify(Varies({"tso=on,maybe"}), true, "", ""));
  EXPECT_FALSE(Classify(Varies({"mtu=20"}), true, "", ""));
  EXPECT_FALSE(Classify(Varies({"profile=2GbE"}), true, "", ""));
  EXPECT_FALSE(Classify(Varies({"queue=fifo,red"}), true, "", ""));
  EXPECT_TRUE(Classify(Varies({"queue=fifo,fq_codel,cake"}), true, "", ""));
  EXPECT_FALSE(Classify(Varies({"tso=on", "tso=off"}), true, "", ""));
}

TEST(MatrixPlan, StandTogglesOnlyOnAStandLinkOtherNamesOnlyInCommands) {
  auto on_stand =
      Classify(Varies({"tso=on,off", "mtu=1500,9000", "profile=1000baseT"}), true, "", "");
  ASSERT_TRUE(on_stand);
  EXPECT_EQ((*on_stand)[0].kind, VaryKind::kStand);
  auto off_stand = Classify(Varies({"tso=on,off"}), false, "", "");
  ASSERT_FALSE(off_stand);
  EXPECT_NE(off_stand.error().message.find("stand link"), std::string::npos);
  // Off a stand, a command that uses {tso} makes it the user's.
  auto setup = Classify(Varies({"tso=on,off"}), false, "ethtool -K eth0 tso {tso}", "");
  ASSERT_TRUE(setup);
  EXPECT_EQ((*setup)[0].kind, VaryKind::kSetup);
  auto unknown = Classify(Varies({"irqmode=msi,msix"}), false, "", "echo {other}");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("--vary irqmode"), std::string::npos);
  EXPECT_TRUE(Classify(Varies({"irqmode=msi,msix"}), false, "", "reload {irqmode}"));
}

TEST(MatrixPlan, CrossProductFirstVarySlowest) {
  auto variants = CrossProduct(Varies({"tso=on,off", "direction=forward,reverse"}));
  ASSERT_EQ(variants.size(), 4u);
  EXPECT_EQ(VariantName(variants[0]), "tso=on direction=forward");
  EXPECT_EQ(VariantName(variants[1]), "tso=on direction=reverse");
  EXPECT_EQ(VariantName(variants[3]), "tso=off direction=reverse");
  EXPECT_EQ(VariantName(CrossProduct(Varies({"-w=1M"}))[0]), "w=1M");
}

TEST(MatrixPlan, ScheduleRunsEveryVariantOncePerRoundAndIsSeeded) {
  auto s = Schedule(4, 5, 42);
  ASSERT_EQ(s.size(), 5u);
  bool some_round_shuffled = false;
  for (const auto& round : s) {
    EXPECT_EQ(std::set<int>(round.begin(), round.end()), (std::set<int>{0, 1, 2, 3}));
    some_round_shuffled = some_round_shuffled || round != std::vector<int>{0, 1, 2, 3};
  }
  EXPECT_TRUE(some_round_shuffled);
  EXPECT_EQ(Schedule(4, 5, 42), s);
  EXPECT_NE(Schedule(4, 5, 43), s);
}

TEST(MatrixPlan, PlaceholdersAndLabels) {
  const Variant v = {{"ring", "512"}, {"-w", "1M"}};
  EXPECT_EQ(Substitute("ethtool -G eth0 rx {ring} tx {ring}; echo {w} {-w}", v),
            "ethtool -G eth0 rx 512 tx 512; echo 1M 1M");
  auto labels = RunLabels(7, 2, 3, v);
  EXPECT_EQ(labels["experiment"], "7");
  EXPECT_EQ(labels["round"], "2");
  EXPECT_EQ(labels["variant"], "3");
  EXPECT_EQ(labels["w"], "1M");
  EXPECT_EQ(labels["ring"], "512");
}

TEST(MatrixPlan, DefinitionRoundTrips) {
  MatrixDefinition d;
  d.host = "198.18.0.2";
  d.varies = Varies({"tso=on,off"});
  d.repeat = 3;
  d.seed = 18446744073709551615ull;
  d.setup = "echo {tso}";
  d.run_options = {"-t", "2"};
  d.schedule = Schedule(2, 3, d.seed);
  auto back = DefinitionFromJson(DefinitionToJson(d));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->seed, d.seed);
  EXPECT_EQ(back->schedule, d.schedule);
  EXPECT_EQ(back->varies[0].values, d.varies[0].values);
  EXPECT_FALSE(DefinitionFromJson(nlohmann::json{{"host", 5}}));
}

}  // namespace
}  // namespace nicbench::cli
