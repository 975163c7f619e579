#include "engine/conversation/peer_results.h"

#include <gtest/gtest.h>

namespace nicbench::engine {
namespace {

TEST(CombineTotals, TakesThePeersSideOfEachStream) {
  FlowTotals ours;
  ours.id = 1;
  ours.sender = true;
  ours.bytes = 1000;
  ours.seconds = 1.0;
  ours.retransmits = 2;
  protocol::PeerResults peer;
  protocol::PeerStream s;
  s.id = 1;
  s.bytes = 990;
  s.end_time = 1.01;
  peer.streams.push_back(s);
  auto totals = CombineTotals({ours}, peer, record::Transport::kTcp);
  ASSERT_TRUE(totals);
  EXPECT_EQ((*totals)[0].bytes_sent, 1000u);
  EXPECT_EQ((*totals)[0].bytes_received, 990u);
  EXPECT_DOUBLE_EQ((*totals)[0].seconds_received, 1.01);
  EXPECT_EQ((*totals)[0].retransmits.value(), 2u);
}

TEST(CombineTotals, UnknownPeerStreamIdIsAnError) {
  FlowTotals ours;
  ours.id = 1;
  protocol::PeerResults peer;
  protocol::PeerStream s;
  s.id = 9;
  peer.streams.push_back(s);
  EXPECT_FALSE(CombineTotals({ours}, peer, record::Transport::kTcp));
}

TEST(MakeLocalResults, ReceiverOnlyHasNoRetransmits) {
  FlowTotals t;
  t.id = 1;
  t.sender = false;
  t.bytes = 5;
  auto results = MakeLocalResults({t}, {}, record::Transport::kTcp, "cubic");
  EXPECT_EQ(results.sender_has_retransmits, -1);
  EXPECT_EQ(results.streams[0].retransmits, -1);
  EXPECT_EQ(results.streams[0].bytes, 5u);
}

}  // namespace
}  // namespace nicbench::engine
