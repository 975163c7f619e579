// `nicbench stand` as users run it: exit codes and output of the real binary.
#include <string>

#include <gtest/gtest.h>

#include "support/run_binary.h"
#include "support/text.h"

namespace nicbench {
namespace {

using testing::IsRoot;
using testing::RunNicbench;

using testing::Has;

TEST(StandCliTest, HelpListsTheSubcommands) {
  auto result = RunNicbench({"stand", "--help"});
  EXPECT_EQ(result.exit_code, 0);
  for (const char* sub : {"up", "down", "list", "exec"}) EXPECT_TRUE(Has(result.out, sub)) << sub;
  auto up_help = RunNicbench({"stand", "up", "--help"});
  EXPECT_EQ(up_help.exit_code, 0);
  EXPECT_TRUE(Has(up_help.out, "--profile")) << up_help.out;
}

TEST(StandCliTest, NoSubcommandIsAUsageError) {
  auto result = RunNicbench({"stand"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(Has(result.err, "nicbench stand: ")) << result.err;
  EXPECT_TRUE(result.out.empty());
}

TEST(StandCliTest, BadOptionsAreUsageErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"stand", "up", "--profile", "56k"}, "unknown profile '56k'"},
           {{"stand", "up", "--tso", "maybe"}, "--tso: expected 'on' or 'off'"},
           {{"stand", "up", "--hosts", "1"}, "--hosts must be between 2 and 32"},
           {{"stand", "up", "--mtu", "20"}, "--mtu must be between"},
           {{"stand", "up", "--tso", "on", "--checksum", "off"}, "--tso on needs --checksum on"},
           {{"stand", "up", "--name", "Bad-Name"}, "bad stand name 'Bad-Name'"},
           {{"stand", "up", "--hosts", "two"}, "--hosts"},
           {{"stand", "down", "--name", "x-y"}, "bad stand name"},
           {{"stand", "exec", "sw", "--", "true"}, "unknown host 'sw'"},
           {{"stand", "frobnicate"}, "nicbench stand: "},
       }) {
    auto result = RunNicbench(c.args);
    EXPECT_EQ(result.exit_code, 2) << c.args.back() << ": " << result.err;
    EXPECT_TRUE(Has(result.err, c.message)) << "want '" << c.message << "' in: " << result.err;
  }
}

TEST(StandCliTest, RefusesWithoutRoot) {
  if (IsRoot()) GTEST_SKIP() << "running as root: the refusal can only be seen as a normal user";
  for (auto args : std::vector<std::vector<std::string>>{
           {"stand", "up"}, {"stand", "down"}, {"stand", "exec", "h1", "--", "true"}}) {
    auto result = RunNicbench(args);
    EXPECT_EQ(result.exit_code, 3) << args[1];
    EXPECT_TRUE(Has(result.err,
                    "nicbench stand: needs root (CAP_NET_ADMIN/CAP_SYS_ADMIN) to "
                    "create network namespaces"))
        << result.err;
  }
}

TEST(StandCliTest, UpListExecDown) {
  if (!IsRoot()) GTEST_SKIP() << "needs root (CAP_NET_ADMIN/CAP_SYS_ADMIN) to build a stand";
  auto up =
      RunNicbench({"stand", "up", "--name", "nbc1", "--profile", "100baseTX", "--tso", "off"});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  EXPECT_TRUE(Has(up.out, "stand nbc1 is up: 2 hosts, 100baseTX")) << up.out;
  EXPECT_TRUE(Has(up.out, "nbc1-h2-e0")) << up.out;

  auto list = RunNicbench({"stand", "list"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_TRUE(Has(list.out, "nbc1  100baseTX (100.00 Mbits/sec, tbf)")) << list.out;
  EXPECT_TRUE(Has(list.out, "tso=off")) << list.out;

  auto addr = RunNicbench({"stand", "exec", "--name", "nbc1", "h2", "--", "ip", "-4", "-o", "addr",
                           "show", "dev", "nbc1-h2-e0"});
  EXPECT_EQ(addr.exit_code, 0) << addr.err;
  EXPECT_TRUE(Has(addr.out, "198.1")) << addr.out;
  auto code =
      RunNicbench({"stand", "exec", "--name", "nbc1", "nbc1-h1", "--", "sh", "-c", "exit 7"});
  EXPECT_EQ(code.exit_code, 7);
  auto missing = RunNicbench({"stand", "exec", "--name", "nbc1", "h9", "--", "true"});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_TRUE(Has(missing.err, "namespace nbc1-h9 does not exist")) << missing.err;

  auto down = RunNicbench({"stand", "down", "--name", "nbc1"});
  EXPECT_EQ(down.exit_code, 0) << down.err;
  EXPECT_FALSE(Has(RunNicbench({"stand", "list"}).out, "nbc1"));
}

}  // namespace
}  // namespace nicbench
