// Bug: `-P 500` against a default server failed with "parallel streams 500 out of range
// 1..128" and nothing said that 128 is the server's own --max-streams, which its operator can
// raise. The refusal now names the option.
#include <string>

#include <gtest/gtest.h>

#include "server_test_util.h"

namespace nicbench::regress {
namespace {

TEST(ParallelRefusalNamesMaxStreams, ADefaultServerRefusingFiveHundredStreamsSaysWhy) {
  ServeChild serve = StartServe();
  testing::ProcessResult r = testing::RunNicbench(
      {"run", "127.0.0.1", "-p", std::to_string(serve.port), "-P", "500", "-t", "1"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("1..128"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--max-streams"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace nicbench::regress
