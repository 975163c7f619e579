// Bad values of the request/response options: each a clear message and exit code 2, before
// any connection is made (the host is a port nobody listens on).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_binary.h"
#include "support/usage_errors.h"

namespace nicbench {
namespace {

TEST(RrCli, BadValuesAreUsageErrors) {
  const std::vector<testing::UsageCase> cases = {
      {{"--rr", "-l", "0"}, "request size must be at least 1 byte"},
      {{"--rr", "-l", "1,0"}, "response size must be at least 1 byte"},
      {{"--rr", "-l", "1,x"}, "-l: response size"},
      {{"--rr", "-l", "32M"}, "exceeds the limit of 16777216 bytes"},
      {{"--rr", "-u", "-l", "70000"}, "exceeds the limit of 65507 bytes"},
      {{"--rr", "--bidir"}, "cannot be used with -R or --bidir"},
      {{"--rr", "-R"}, "cannot be used with -R or --bidir"},
      {{"--crr", "-u"}, "--crr is TCP only"},
      {{"--rr", "--crr"}, "--rr and --crr cannot be used together"},
      {{"--rr", "--rr-burst", "0"}, "--rr-burst 0 out of range 1..1024"},
      {{"--rr", "--rr-burst", "5000"}, "--rr-burst 5000 out of range 1..1024"},
      {{"--rr", "-u", "--rr-burst", "200"}, "1-byte UDP messages"},
      {{"--rr", "-u", "--rr-timeout", "0"}, "--rr-timeout 0 ms out of range"},
      {{"--rr", "-P", "2000"}, "flows (-P) 2000 out of range 1..1024"},
      {{"--rr", "-n", "0"}, "-n: must be at least 1 transaction"},
      {{"--rr", "-b", "10M"}, "do not use -b"},
      {{"--rr-burst", "4"}, "need --rr or --crr"},
      {{"--rr-spin", "50"}, "need --rr or --crr"},
      {{"--rr", "--rr-spin", "10001"}, "--rr-spin 10001 us out of range 0..10000"},
      {{"--rr", "--rr-spin", "-5"}, "--rr-spin"},
      {{"--rr", "--rr-spin", "fast"}, "--rr-spin"},
      {{"--rr", "--rr-rate", "0"}, "--rr-rate: must be at least 1"},
      {{"--rr", "--rr-rate", "20000"}, "--rr-rate 20000 out of range 1..10000"},
      {{"--rr", "--rr-rate", "often"}, "--rr-rate"},
      {{"--rr", "--rr-rate", "10", "-P", "2"}, "--rr-rate paces one TCP flow"},
      {{"--rr", "--rr-rate", "10", "-u"}, "--rr-rate paces one TCP flow"},
      {{"--rr-rate", "10"}, "need --rr or --crr"},
  };
  // Port 1: nobody listens, and nothing may be tried anyway.
  testing::ExpectUsageErrors({"run", "127.0.0.1", "-p", "1"}, cases);
}

TEST(RrCli, NeedsAHost) {
  testing::ProcessResult r = testing::RunNicbench({"run", "--rr"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("need a HOST running `nicbench serve`"), std::string::npos) << r.err;
}

TEST(RrCli, HelpNamesTheOptions) {
  testing::ProcessResult r = testing::RunNicbench({"run", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option :
       {"--rr", "--crr", "--rr-burst", "--rr-timeout", "--rr-spin", "--rr-rate"}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  }
  testing::ProcessResult s = testing::RunNicbench({"serve", "--help"});
  EXPECT_NE(s.out.find("--max-rr-flows"), std::string::npos);
}

}  // namespace
}  // namespace nicbench
