// Interop with the stock iperf3 (Debian 3.12): a stock client against `nicbench serve`, and
// `nicbench run` against a stock `iperf3 -s`. Byte counts are compared with iperf3's own -J
// output wherever the protocol makes them exact (-n: both ends report exactly the bytes asked).
#include <signal.h>

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"
#include "support/wait.h"

namespace nicbench {
namespace {

using nlohmann::json;

class InteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::HaveProgram("iperf3")) GTEST_SKIP() << "iperf3 is not installed";
  }
};

json Parse(const std::string& text) {
  json doc = json::parse(text, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << text;
  return doc;
}

// The stock iperf3 client with `args` against a nicbench server; returns iperf3's -J document.
json IperfClientAgainstNicbench(const std::vector<std::string>& args) {
  testing::ServeChild server = testing::StartServe();
  std::vector<std::string> argv = {"iperf3", "-c", "127.0.0.1", "-p", std::to_string(server.port),
                                   "-J"};
  argv.insert(argv.end(), args.begin(), args.end());
  testing::ProcessResult r = testing::RunProcess(argv);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json doc = Parse(r.out);
  EXPECT_FALSE(doc.contains("error")) << doc.dump();
  testing::ProcessResult s = server.process->Stop(SIGTERM);
  EXPECT_NE(s.err.find(": ok,"), std::string::npos) << s.err;
  return doc;
}

struct BothSides {
  json ours;    // nicbench run -J
  json theirs;  // iperf3 -s -1 -J
};

// `favoured`: the server receives a -n test, see testing::FavouredWhenRoot.
BothSides NicbenchAgainstIperfServer(const std::vector<std::string>& args, bool favoured = false) {
  const int port = testing::FreeTcpPort();
  std::vector<std::string> server_argv = {
      "iperf3", "-s", "-1", "-J", "-p", std::to_string(port), "-B", "127.0.0.1"};
  if (favoured) server_argv = testing::FavouredWhenRoot(std::move(server_argv));
  testing::BackgroundProcess server(server_argv);
  // iperf3 -J prints nothing until the test ends: wait for the port instead.
  EXPECT_TRUE(testing::WaitListening(port)) << server.StderrSoFar();
  std::vector<std::string> argv = {"run", "127.0.0.1", "-p", std::to_string(port), "-J"};
  argv.insert(argv.end(), args.begin(), args.end());
  testing::ProcessResult r = testing::RunNicbench(argv);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  BothSides both;
  both.ours = Parse(r.out);
  testing::ProcessResult s = server.Stop(SIGTERM);
  both.theirs = Parse(s.out);
  EXPECT_TRUE(both.ours["remote"].is_null()) << "a stock iperf3 peer has no remote view";
  return both;
}

uint64_t Bytes(const json& doc, const char* sum) {
  return doc["end"][sum]["bytes"].get<uint64_t>();
}

TEST_F(InteropTest, IperfClientTcp) {
  json doc = IperfClientAgainstNicbench({"-t", "1"});
  EXPECT_GT(Bytes(doc, "sum_sent"), 0u);
  EXPECT_GT(Bytes(doc, "sum_received"), 0u);
}

TEST_F(InteropTest, IperfClientReverse) {
  json doc = IperfClientAgainstNicbench({"-t", "1", "-R"});
  EXPECT_GT(Bytes(doc, "sum_received"), 0u);
}

TEST_F(InteropTest, IperfClientBidirTwoStreams) {
  json doc = IperfClientAgainstNicbench({"-t", "1", "--bidir", "-P", "2"});
  EXPECT_EQ(doc["end"]["streams"].size(), 4u);
  EXPECT_GT(Bytes(doc, "sum_received"), 0u);
  EXPECT_GT(doc["end"]["sum_received_bidir_reverse"]["bytes"].get<uint64_t>(), 0u);
}

TEST_F(InteropTest, IperfClientUdp) {
  json doc = IperfClientAgainstNicbench({"-t", "1", "-u", "-b", "100M"});
  EXPECT_GT(doc["end"]["sum"]["packets"].get<uint64_t>(), 0u);
}

TEST_F(InteropTest, IperfClientBytesExact) {
  json doc = IperfClientAgainstNicbench({"-n", "10M"});
  EXPECT_EQ(Bytes(doc, "sum_sent"), 10485760u);
  EXPECT_EQ(Bytes(doc, "sum_received"), 10485760u);  // what our server reported received
}

TEST_F(InteropTest, IperfClientParallelOmit) {
  json doc = IperfClientAgainstNicbench({"-t", "1", "-P", "4", "-O", "1"});
  EXPECT_EQ(doc["end"]["streams"].size(), 4u);
  EXPECT_GT(Bytes(doc, "sum_received"), 0u);
}

TEST_F(InteropTest, NicbenchAgainstIperfServerTcp) {
  BothSides both = NicbenchAgainstIperfServer({"-t", "1"});
  EXPECT_EQ(Bytes(both.ours, "sum_received"), Bytes(both.theirs, "sum_received"));
}

TEST_F(InteropTest, NicbenchAgainstIperfServerReverse) {
  BothSides both = NicbenchAgainstIperfServer({"-t", "1", "-R"});
  EXPECT_EQ(Bytes(both.ours, "sum_sent"), Bytes(both.theirs, "sum_sent"));
}

TEST_F(InteropTest, NicbenchAgainstIperfServerBidir) {
  BothSides both = NicbenchAgainstIperfServer({"-t", "1", "--bidir", "-P", "2"});
  EXPECT_EQ(both.ours["end"]["streams"].size(), 4u);
  EXPECT_EQ(both.theirs["end"]["streams"].size(), 4u);
}

TEST_F(InteropTest, NicbenchAgainstIperfServerUdp) {
  BothSides both = NicbenchAgainstIperfServer({"-t", "1", "-u", "-b", "100M"});
  EXPECT_GT(both.ours["end"]["sum"]["packets"].get<uint64_t>(), 0u);
}

TEST_F(InteropTest, NicbenchAgainstIperfServerBytesExact) {
  BothSides both = NicbenchAgainstIperfServer({"-n", "10M"}, /*favoured=*/true);
  EXPECT_EQ(Bytes(both.ours, "sum_sent"), 10485760u);
  EXPECT_EQ(Bytes(both.theirs, "sum_received"), 10485760u);
  EXPECT_EQ(Bytes(both.ours, "sum_received"), Bytes(both.theirs, "sum_received"));
}

TEST_F(InteropTest, NicbenchAgainstIperfServerParallelOmit) {
  BothSides both = NicbenchAgainstIperfServer({"-t", "1", "-P", "4", "-O", "1"});
  EXPECT_EQ(both.ours["end"]["streams"].size(), 4u);
  EXPECT_EQ(Bytes(both.ours, "sum_received"), Bytes(both.theirs, "sum_received"));
}

}  // namespace
}  // namespace nicbench
