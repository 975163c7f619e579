// Errors people meet first, each said clearly: `nicbench ttcp --help` is help (exit 0; invoked
// as `ttcp` the original's usage error stays), `inspect --peer NAME` resolves the name as `run`
// does, and `serve -J` on a port in use prints a JSON error as `run -J` does.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"

namespace nicbench {
namespace {

TEST(ClearErrors, TtcpHelpIsHelp) {
  testing::ProcessResult r = testing::RunNicbench({"ttcp", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Usage: ttcp -t"), std::string::npos) << r.out;
  // The binary invoked as `ttcp` keeps the original's answer to an unknown option.
  const std::string ttcp =
      testing::NicbenchPath().substr(0, testing::NicbenchPath().rfind('/') + 1) + "ttcp";
  r = testing::RunProcess({ttcp, "--help"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Usage: ttcp"), std::string::npos) << r.err;
}

TEST(ClearErrors, InspectPeerResolvesNamesAsRunDoes) {
  testing::ProcessResult r = testing::RunNicbench({"inspect", "--peer", "localhost", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["nic"]["interface"], "lo") << doc.dump();
  r = testing::RunNicbench({"inspect", "--peer", "no-such-host.invalid"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("cannot resolve 'no-such-host.invalid'"), std::string::npos) << r.err;
}

TEST(ClearErrors, ServeJsonPortInUseIsAJsonError) {
  testing::ServeChild first = testing::StartServe();
  testing::ProcessResult r = testing::RunNicbench(
      {"serve", "-J", "-p", std::to_string(first.port), "--bind", "127.0.0.1"});
  EXPECT_EQ(r.exit_code, 3);
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r.out;
  EXPECT_NE(doc["error"].get<std::string>().find("Address already in use"), std::string::npos);
}

}  // namespace
}  // namespace nicbench
