// Found by the server_conversation fuzz target: a UDP sender (64-bit counters) whose sequence
// numbers jump past 2^63 made the receiving server's loss count larger than INT64_MAX; the
// results carried it cast to a negative "errors", which the client's reader refuses ("is out of
// range"), so the test's whole result was lost. The counts now saturate at INT64_MAX.
#include <gtest/gtest.h>

#include <limits>

#include "engine/conversation/peer_results.h"
#include "protocol/results.h"

namespace nicbench::regress {
namespace {

TEST(UdpLossPastInt64, ResultsWithHugeCountsStillDecode) {
  engine::FlowTotals receiver;
  receiver.id = 1;
  receiver.sender = false;
  receiver.packets = std::numeric_limits<uint64_t>::max();
  receiver.lost = (uint64_t{1} << 63) + 5;
  const protocol::PeerResults ours =
      engine::MakeLocalResults({receiver}, {}, record::Transport::kUdp, "");
  auto decoded =
      protocol::DecodeResultsJson(nlohmann::json::parse(protocol::EncodeResults(ours).dump()));
  ASSERT_TRUE(decoded.has_value()) << decoded.error().ToString();
  ASSERT_EQ(decoded->streams.size(), 1u);
  EXPECT_EQ(decoded->streams[0].errors, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(decoded->streams[0].packets, std::numeric_limits<int64_t>::max());
}

}  // namespace
}  // namespace nicbench::regress
