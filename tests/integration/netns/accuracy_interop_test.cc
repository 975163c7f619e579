// Accuracy scenario 5 (issue 5) and the record of a stand run: a stock iperf3 at either end of
// a stand link, nicbench's ttcp against itself across it, and a `nicbench run --json` on the
// stand that carries the link's shaping (qdisc kind and rate) in both ends' NIC facts and the
// stand's profile. Root only; skipped without iperf3 where iperf3 is needed.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "accuracy_stand.h"

namespace nicbench::accuracy {
namespace {

// Sender's vs receiver's bytes of a short interop run: up to the tbf queue (625 000 B) plus
// what the socket buffers hold can be in flight at either edge of the counted window, ~1.4 MB
// of the ~45 MB a 4 s run moves at 100 Mbit/s; the 0.5% agreement is judged on the longer
// runs of accuracy_tcp_test.cc.
constexpr double kInteropByteAgreement = 0.03;

#define SKIP_UNLESS_IPERF3()                                                                \
  if (!testing::HaveProgram("iperf3"))                                                      \
  GTEST_SKIP() << "iperf3 is not installed (apt-get install iperf3); the interop scenario " \
                  "needs a stock iperf3 at one end"

TEST(AccuracyInterop, NicbenchRunAgainstStockIperf3Server) {
  ACCURACY_SKIP_UNLESS_ROOT();
  SKIP_UNLESS_IPERF3();
  auto stand = UpStand("acci1", stand::Profile::k100BaseTx);
  ASSERT_TRUE(stand) << stand.error().ToString();
  const stand::HostInfo& server = stand->host(2);
  testing::BackgroundProcess iperf3(InHost(server, {"iperf3", "-s", "-1"}));
  ASSERT_TRUE(WaitForListener(server, 5201)) << iperf3.Stop().err;
  auto client = accuracy::Run(
      NicbenchIn(stand->host(1), {"run", server.address, "--json", "-t", "4", "-O", "1"}));
  iperf3.Stop();
  EXPECT_EQ(client.exit_code, 0) << client.err;
  nlohmann::json doc = ParseJson(client);
  ASSERT_TRUE(doc.is_object());
  const double sent = NumberAt(doc, "/end/sum_sent/bytes");
  const double received = NumberAt(doc, "/end/sum_received/bytes");
  EXPECT_GT(received, 1e6);
  EXPECT_LE(RelativeError(received, sent), kInteropByteAgreement) << sent << " vs " << received;
  // A stock peer sends no host facts: unknown with a reason, not zeros.
  EXPECT_TRUE(doc["remote"].is_null()) << doc["remote"].dump().substr(0, 500);
}

TEST(AccuracyInterop, StockIperf3ClientAgainstNicbenchServe) {
  ACCURACY_SKIP_UNLESS_ROOT();
  SKIP_UNLESS_IPERF3();
  auto stand = UpStand("acci2", stand::Profile::k100BaseTx);
  ASSERT_TRUE(stand) << stand.error().ToString();
  const stand::HostInfo& server = stand->host(2);
  // A lasting server (no -1): it serves both tests.
  testing::BackgroundProcess serve(NicbenchIn(server, {"serve"}));
  ASSERT_TRUE(WaitForListener(server, 5201)) << serve.Stop().err;
  for (const char* direction : {"forward", "reverse"}) {
    SCOPED_TRACE(direction);
    std::vector<std::string> args = {"iperf3", "-c", server.address, "-J", "-t", "4", "-O", "1"};
    if (std::string(direction) == "reverse") args.push_back("-R");
    auto client = accuracy::Run(InHost(stand->host(1), args));
    EXPECT_EQ(client.exit_code, 0) << client.err << client.out.substr(0, 1000);
    nlohmann::json doc = ParseJson(client);
    ASSERT_TRUE(doc.is_object());
    EXPECT_FALSE(doc.contains("error")) << doc["error"];
    const double sent = NumberAt(doc, "/end/sum_sent/bytes");
    const double received = NumberAt(doc, "/end/sum_received/bytes");
    EXPECT_GT(received, 1e6);
    EXPECT_LE(RelativeError(received, sent), kInteropByteAgreement) << sent << " vs " << received;
  }
}

TEST(AccuracyInterop, TtcpAgainstItselfBothWays) {
  ACCURACY_SKIP_UNLESS_ROOT();
  auto stand = UpStand("acci3", stand::Profile::k100BaseTx);
  ASSERT_TRUE(stand) << stand.error().ToString();
  for (int receiver : {2, 1}) {
    SCOPED_TRACE(receiver == 2 ? "h1 -> h2" : "h2 -> h1");
    TtcpRun run = RunTtcpPair(*stand, receiver, 3 - receiver, 2048);  // 16 MiB
    EXPECT_EQ(run.bytes, 2048u * 8192u);
    EXPECT_NE(run.transmitter.err.find("ttcp-t: 16777216 bytes in"), std::string::npos)
        << run.transmitter.err;
  }
}

TEST(AccuracyRecord, StandRunCarriesShapingAndProfile) {
  ACCURACY_SKIP_UNLESS_ROOT();
  auto stand = UpStand("accr1", stand::Profile::k100BaseTx);
  ASSERT_TRUE(stand) << stand.error().ToString();
  PairRun run = RunNicbenchPair(*stand, 2, 1, {"-t", "2"});
  ASSERT_TRUE(run.doc.is_object());
  for (const char* end : {"local", "remote"}) {
    SCOPED_TRACE(end);
    const nlohmann::json& nic = run.doc[end]["nic"];
    EXPECT_EQ(nic.value("interface", ""),
              stand->host(std::string(end) == "local" ? 1 : 2).interface);
    ASSERT_TRUE(nic.contains("qdisc") && nic["qdisc"].is_object()) << nic.dump().substr(0, 800);
    EXPECT_EQ(nic["qdisc"].value("kind", ""), "tbf");
    EXPECT_EQ(NumberAt(nic, "/qdisc/rate_bits_per_second"), 100e6);
  }
  const nlohmann::json& profile = run.doc["nicbench"]["stand_profile"];
  EXPECT_TRUE(profile.is_string() && profile.get<std::string>() == "100baseTX")
      << "nicbench.stand_profile is " << profile.dump()
      << ": the record of a run on the stand should name the stand's profile";
}

}  // namespace
}  // namespace nicbench::accuracy
