// UDP with batched system calls and segmentation offload against a stock receiver: `nicbench
// run -u` with and without --udp-offload against Debian's `iperf3 -s`, and against `nicbench
// serve` (whose end then receives with UDP_GRO). The receiver must count every datagram the
// sender sent, exactly, whatever the sender batched. Rate-limited, with a block count, so the
// totals are fixed; a loss would show as a count that is off, which is the point.
#include <signal.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"
#include "support/wait.h"

namespace nicbench {
namespace {

using nlohmann::json;

constexpr uint64_t kDatagrams = 1000;
// 5 Mbit/s of 1400-byte datagrams is 446 a second: the default receive buffer (about 90 such
// datagrams) covers a receiver that is descheduled for 200 ms.
const std::vector<std::string> kArgs = {
    "-u", "-b", "5M", "-l", "1400", "-k", std::to_string(kDatagrams)};

json Parse(const std::string& text) {
  json doc = json::parse(text, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << text;
  return doc;
}

struct Counts {
  uint64_t sent = 0;      // the sender's datagrams
  uint64_t received = 0;  // the receiver's highest sequence number
  uint64_t lost = 0;
  uint64_t bytes = 0;  // received
};

// -J of the test's client with the receiver's view in sum_received (iperf3 3.12's shape).
Counts Read(const json& doc) {
  Counts c;
  c.sent = doc["end"]["sum_sent"]["packets"].get<uint64_t>();
  c.received = doc["end"]["sum_received"]["packets"].get<uint64_t>();
  c.lost = doc["end"]["sum_received"]["lost_packets"].get<uint64_t>();
  c.bytes = doc["end"]["sum_received"]["bytes"].get<uint64_t>();
  return c;
}

void ExpectEveryDatagram(const Counts& c) {
  EXPECT_EQ(c.sent, kDatagrams);
  EXPECT_EQ(c.received, kDatagrams);
  EXPECT_EQ(c.lost, 0u);
  EXPECT_EQ(c.bytes, kDatagrams * 1400);
}

// nicbench run against a stock `iperf3 -s -1 -J`: returns the server's document.
json AgainstIperfServer(bool offload, json* ours, const std::vector<std::string>& more = {}) {
  const int port = testing::FreeTcpPort();
  testing::BackgroundProcess server(
      {"iperf3", "-s", "-1", "-J", "-p", std::to_string(port), "-B", "127.0.0.1"});
  EXPECT_TRUE(testing::WaitListening(port)) << server.StderrSoFar();
  std::vector<std::string> argv = {"run", "127.0.0.1", "-p", std::to_string(port),
                                   "-J",  "--no-store"};
  argv.insert(argv.end(), kArgs.begin(), kArgs.end());
  if (offload) argv.push_back("--udp-offload");
  argv.insert(argv.end(), more.begin(), more.end());
  testing::ProcessResult r = testing::RunNicbench(argv);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  *ours = Parse(r.out);
  return Parse(server.Stop(SIGTERM).out);
}

TEST(UdpOffloadInteropTest, StockIperfServerCountsTheSameDatagramsWithAndWithoutOffload) {
  if (!testing::HaveProgram("iperf3")) GTEST_SKIP() << "iperf3 is not installed";
  for (bool offload : {false, true}) {
    SCOPED_TRACE(offload ? "--udp-offload" : "default");
    json ours;
    const json theirs = AgainstIperfServer(offload, &ours);
    // The stock server's own count of what it received, per datagram.
    const json& sum = theirs["end"]["sum"];
    EXPECT_EQ(sum["packets"].get<uint64_t>(), kDatagrams) << theirs.dump();
    EXPECT_EQ(sum["lost_packets"].get<uint64_t>(), 0u);
    // (3.12's server-side sum has no out_of_order, its stream has; both say 0 bytes in -J, so
    // the bytes come from the results it sent the client, in ExpectEveryDatagram.)
    EXPECT_EQ(theirs["end"]["streams"][0]["udp"]["out_of_order"].get<uint64_t>(), 0u);
    ExpectEveryDatagram(Read(ours));
  }
}

TEST(UdpOffloadInteropTest, GroReceiverCountsAStockSendersDatagrams) {
  if (!testing::HaveProgram("iperf3")) GTEST_SKIP() << "iperf3 is not installed";
  // -R: the stock server sends one datagram per send until our TEST_END reaches it (a paced
  // 3.12 sender does not stop at -k itself), our end receives with UDP_GRO. Every datagram our
  // end read must be counted once, as bytes and in the sequence: its own intervals' packets
  // (the highest sequence number it saw) times the size are its bytes. A datagram the sender
  // sent while our TEST_END was on its way is neither (the end is the end), so the sender's
  // count may be a datagram or two past ours.
  json ours;
  AgainstIperfServer(true, &ours, {"-R"});
  const Counts c = Read(ours);
  uint64_t seen = 0;
  for (const json& interval : ours["intervals"]) seen += interval["sum"]["packets"].get<uint64_t>();
  EXPECT_GE(seen, kDatagrams);
  EXPECT_EQ(c.bytes, seen * 1400);
  EXPECT_LE(seen, c.sent);
  EXPECT_EQ(c.lost, 0u);
}

TEST(UdpOffloadInteropTest, NicbenchServerReceivesWithGroAndCountsExactly) {
  testing::ServeChild server = testing::StartServe();
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "-R (the server sends with UDP_SEGMENT)"
                         : "forward (the server receives with UDP_GRO)");
    std::vector<std::string> argv = {
        "run", "127.0.0.1", "-p", std::to_string(server.port), "-J", "--no-store", "--udp-offload"};
    argv.insert(argv.end(), kArgs.begin(), kArgs.end());
    if (reverse) argv.push_back("-R");
    testing::ProcessResult r = testing::RunNicbench(argv);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const json doc = Parse(r.out);
    ExpectEveryDatagram(Read(doc));
  }
  server.process->Stop(SIGTERM);
}

TEST(UdpOffloadInteropTest, OffloadOnTcpIsAUsageError) {
  testing::ProcessResult r =
      testing::RunNicbench({"run", "127.0.0.1", "-p", "1", "--udp-offload", "--no-store"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--udp-offload applies to UDP tests only"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace nicbench
