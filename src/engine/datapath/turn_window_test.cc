#include "engine/datapath/turn_window.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <vector>

namespace nicbench::engine {
namespace {

TEST(TurnWindow, TheFirstWidthSendersStartAndTheRestWait) {
  TurnWindow w(2, 4);
  EXPECT_TRUE(w.Enrol(0));
  EXPECT_TRUE(w.Enrol(1));
  EXPECT_FALSE(w.Enrol(2));
  EXPECT_FALSE(w.Enrol(3));
  EXPECT_TRUE(w.Sending(0));
  EXPECT_TRUE(w.Sending(1));
  EXPECT_FALSE(w.Sending(2));
  EXPECT_EQ(w.waiting(), 2u);
}

using Slots = std::vector<size_t>;

TEST(TurnWindow, TurnsGoRoundRobinSoEverySenderGetsItsShare) {
  TurnWindow w(2, 5);
  for (size_t i = 0; i < 5; ++i) w.Enrol(i);
  EXPECT_EQ(w.Pass(0, false), Slots{2});
  EXPECT_FALSE(w.Sending(0));
  EXPECT_TRUE(w.Sending(2));
  EXPECT_EQ(w.Pass(1, false), Slots{3});
  EXPECT_EQ(w.Pass(2, false), Slots{4});
  EXPECT_EQ(w.Pass(3, false), Slots{0});  // the line is back at the first
  EXPECT_EQ(w.Pass(1, false), Slots{}) << "a sender outside has no turn to pass";
  // Over many turns, each ended by the sender inside that has sent longest, every sender
  // gets the same number of turns, within one.
  std::deque<size_t> inside = {4, 0};
  std::map<size_t, int> turns;
  for (int round = 0; round < 1000; ++round) {
    const Slots next = w.Pass(inside.front(), false);
    ASSERT_EQ(next.size(), 1u);
    inside.pop_front();
    inside.push_back(next[0]);
    ++turns[next[0]];
  }
  for (const auto& [slot, n] : turns) EXPECT_NEAR(n, 200, 1) << "slot " << slot;
  EXPECT_EQ(turns.size(), 5u);
}

TEST(TurnWindow, FullSocketsWidenTheWindowToEverySenderAndQuotasNarrowItBack) {
  TurnWindow w(1, 3);
  for (size_t i = 0; i < 3; ++i) w.Enrol(i);
  EXPECT_EQ(w.Pass(0, true), (Slots{1, 2})) << "width 2: two admitted for the one passing";
  EXPECT_EQ(w.width(), 2u);
  EXPECT_EQ(w.Pass(1, true), (Slots{0, 1}));
  EXPECT_EQ(w.width(), 3u);
  EXPECT_EQ(w.Pass(2, true), Slots{2}) << "at every sender: each keeps sending";
  EXPECT_EQ(w.width(), 3u);
  EXPECT_EQ(w.Pass(2, false), Slots{});
  EXPECT_EQ(w.width(), 2u);
  EXPECT_FALSE(w.Sending(2));
  EXPECT_EQ(w.Pass(0, false), Slots{});
  EXPECT_EQ(w.width(), 1u);
  EXPECT_EQ(w.Pass(1, false), Slots{2}) << "narrowed to one";
  EXPECT_EQ(w.Pass(2, false), Slots{0});
  EXPECT_EQ(w.width(), 1u);
}

TEST(TurnWindow, AloneASenderKeepsItsTurn) {
  TurnWindow w(4, 1);
  EXPECT_TRUE(w.Enrol(7));
  EXPECT_EQ(w.Pass(7, false), Slots{7});
  EXPECT_TRUE(w.Sending(7));
}

TEST(TurnWindow, ASenderThatLeavesMakesRoomAndAWaitingOneIsSkipped) {
  TurnWindow w(1, 3);
  w.Enrol(0);
  w.Enrol(1);
  w.Enrol(2);
  EXPECT_EQ(w.Leave(1), Slots{}) << "waiting: nobody is admitted for it";
  EXPECT_EQ(w.Leave(0), Slots{2}) << "1 left: 2 is next";
  EXPECT_EQ(w.Leave(0), Slots{}) << "leaving twice changes nothing";
  EXPECT_EQ(w.Pass(2, false), Slots{2});
  EXPECT_EQ(w.Leave(2), Slots{}) << "the last one leaves an empty window";
  EXPECT_EQ(w.waiting(), 0u);
}

}  // namespace
}  // namespace nicbench::engine
