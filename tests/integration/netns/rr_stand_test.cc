// Request/response tests across an unshaped stand link (veth between two namespaces): every
// mode, both ends' counts, and the server's own record of the transactions it answered.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "accuracy_stand.h"

namespace nicbench::accuracy {
namespace {

using nlohmann::json;

void ExpectRr(const PairRun& run, uint64_t transactions) {
  ASSERT_TRUE(run.doc.contains("end")) << run.client.out << run.client.err;
  const json& rr = run.doc["end"]["rr"];
  ASSERT_TRUE(rr.is_object()) << run.client.out;
  EXPECT_EQ(rr["local"]["transactions"].get<uint64_t>(), transactions);
  EXPECT_EQ(rr["peer_transactions"].get<uint64_t>(), transactions);
  EXPECT_EQ(rr["local"]["latency"]["count"].get<uint64_t>(), transactions);
  EXPECT_GT(rr["local"]["latency"]["p50_us"].get<double>(), 0.0);
  // The server's own document (serve -J) counts the same transactions.
  ASSERT_TRUE(run.server_doc.is_object()) << run.server.out;
  EXPECT_EQ(run.server_doc["end"]["rr"]["local"]["transactions"].get<uint64_t>(), transactions);
}

TEST(RrStand, EveryModeAcrossAVethLink) {
  ACCURACY_SKIP_UNLESS_ROOT();
  auto stand = UpStand("rrst1", stand::Profile::kUnlimited);
  ASSERT_TRUE(stand) << stand.error().ToString();
  ExpectRr(RunNicbenchPair(*stand, 2, 1, {"--rr", "-n", "2000"}), 2000);
  ExpectRr(RunNicbenchPair(*stand, 2, 1, {"--rr", "-u", "-n", "1000", "-l", "14,14"}), 1000);
  ExpectRr(RunNicbenchPair(*stand, 2, 1, {"--crr", "-n", "300", "--rr-burst", "2"}), 300);
  ExpectRr(RunNicbenchPair(*stand, 2, 1,
                           {"--rr", "-n", "4000", "-P", "4", "--rr-burst", "3", "-l", "100,1000"}),
           4000);
}

TEST(RrStand, TimedTestKeepsTcpInfoOfTheFlow) {
  ACCURACY_SKIP_UNLESS_ROOT();
  auto stand = UpStand("rrst2", stand::Profile::kUnlimited);
  ASSERT_TRUE(stand) << stand.error().ToString();
  PairRun run = RunNicbenchPair(*stand, 2, 1, {"--rr", "-t", "2"});
  ASSERT_TRUE(run.doc.contains("end")) << run.client.out;
  const json& sender = run.doc["end"]["streams"][0]["sender"];
  EXPECT_GT(sender["mean_rtt"].get<double>(), 0.0) << sender.dump();
  EXPECT_GT(run.doc["end"]["rr"]["local"]["transactions"].get<uint64_t>(), 0u);
}

}  // namespace
}  // namespace nicbench::accuracy
