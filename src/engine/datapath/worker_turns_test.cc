// A worker's many bulk senders taking turns (engine/turn_window.h) over real loopback sockets:
// every sender moves, with readers and without. No timing assertions: the waits only guard
// against a hang.
#include <gtest/gtest.h>

#include <vector>

#include "engine/datapath/data_path.h"
#include "engine/datapath/data_path_test_util.h"
#include "engine/datapath/turn_window.h"

namespace nicbench::engine {
namespace {

using namespace std::chrono_literals;
using testing::Counters;
using testing::SocketPair;
using testing::TcpPair;
using testing::WaitFor;

constexpr int kPairs = 20;  // more than kTurnWindowAbove senders on one worker
static_assert(kPairs > static_cast<int>(kTurnWindowAbove));

FlowConfig Tcp(net::UniqueFd& fd, int id, bool sender) {
  FlowConfig c;
  c.fd = fd.Release();
  c.id = id;
  c.sender = sender;
  c.block_bytes = 128 * 1024;
  return c;
}

// Nobody reads: each sender's socket (small buffers: far less than a turn's bytes fit) fills in
// its first turn, which must pass the turn on (and widen the window) instead of holding it, or
// the senders behind it would never send.
TEST(WorkerTurns, EverySenderSendsWhenSocketsFillAndNobodyReads) {
  net::SocketOptions small;
  small.window_bytes = 16 * 1024;
  std::vector<SocketPair> pairs;
  for (int i = 0; i < kPairs; ++i) pairs.push_back(TcpPair(small));
  auto dp = DataPath::Create(1);
  for (int i = 0; i < kPairs; ++i) ASSERT_TRUE(dp->AddFlow(Tcp(pairs[i].a, i + 1, true)));
  ASSERT_TRUE(dp->Start());
  const bool all_sent = WaitFor(
      [&] {
        for (int i = 0; i < kPairs; ++i) {
          if (Counters(*dp, i + 1).bytes == 0) return false;
        }
        return true;
      },
      20s);
  EXPECT_TRUE(all_sent) << "a sender never had a turn";
  const auto status = dp->Join();
  EXPECT_TRUE(status) << status.error().ToString();
}

// With readers, turns of kTurnBytes go round: every flow is served again and again. Flow i
// runs on worker i mod 2, so the senders share worker 0 and the receivers worker 1.
TEST(WorkerTurns, EveryReceiverCountsSeveralTurnsOfItsSender) {
  std::vector<SocketPair> pairs;
  for (int i = 0; i < kPairs; ++i) pairs.push_back(TcpPair());
  auto dp = DataPath::Create(2);
  for (int i = 0; i < kPairs; ++i) {
    ASSERT_TRUE(dp->AddFlow(Tcp(pairs[i].a, 2 * i + 1, true)));
    ASSERT_TRUE(dp->AddFlow(Tcp(pairs[i].b, 2 * i + 2, false)));
  }
  ASSERT_TRUE(dp->Start());
  const uint64_t several = 3ull * kTurnBytes;
  const bool all_moved = WaitFor(
      [&] {
        for (int i = 0; i < kPairs; ++i) {
          if (Counters(*dp, 2 * i + 2).bytes < several) return false;
        }
        return true;
      },
      60s);
  EXPECT_TRUE(all_moved) << "a flow was starved";
  const auto status = dp->Join();
  ASSERT_TRUE(status) << status.error().ToString();
  for (int i = 0; i < kPairs; ++i) {
    EXPECT_GE(Counters(*dp, 2 * i + 1).bytes, Counters(*dp, 2 * i + 2).bytes) << "flow " << i;
  }
}

}  // namespace
}  // namespace nicbench::engine
