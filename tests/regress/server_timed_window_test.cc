// Bug: in a timed test the server counted received bytes until TEST_END arrived. On a shaped
// link TEST_END queues behind the data (50 ms on a stand's 100baseTX link), so the receiver's
// total covered a longer time than the sender's and the two ends disagreed by 0.6-0.8% on an
// 8 s test. The server now closes its counted window on its own clock after omit + duration.
//
// This client plays the protocol over raw sockets and keeps sending for a second past the test's
// duration before it sends TEST_END, as a client behind a deep queue would appear to the server.
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "protocol/control_channel.h"
#include "protocol/params.h"
#include "protocol/results.h"
#include "protocol/wire.h"
#include "server_test_util.h"

namespace nicbench::regress {
namespace {

using namespace std::chrono_literals;
using protocol::State;

void ExpectState(int fd, State expected) {
  auto state = protocol::ReadState(fd, 10s, protocol::StateName(expected));
  ASSERT_TRUE(state) << state.error().ToString();
  ASSERT_EQ(protocol::StateName(*state), protocol::StateName(expected));
}

// Writes one block every 10 ms for `span`; returns the bytes written. The pauses are the
// scenario (data spread over the test's duration and past it), not a wait for an event.
uint64_t SendFor(int fd, std::chrono::milliseconds span, const std::vector<char>& block) {
  uint64_t sent = 0;
  const auto until = std::chrono::steady_clock::now() + span;
  while (std::chrono::steady_clock::now() < until) {
    if (!protocol::WriteAll(fd, block.data(), block.size(), 10s, "data")) break;
    sent += block.size();
    std::this_thread::sleep_for(10ms);
  }
  return sent;
}

TEST(ServerTimedWindow, ReceiverStopsCountingAtTheTestDurationNotAtTestEnd) {
  ServeChild serve = StartServe();
  const int control = ConnectRaw(serve.port);
  ASSERT_GE(control, 0);
  const std::string cookie = protocol::MakeCookie();
  ASSERT_TRUE(protocol::SendCookie(control, cookie));
  ExpectState(control, State::kParamExchange);

  record::TestSpec spec;
  spec.duration = 1s;
  spec.block_bytes = 16 * 1024;
  ASSERT_TRUE(protocol::SendJson(control, protocol::EncodeParams(spec)));
  ExpectState(control, State::kCreateStreams);
  const int data = ConnectRaw(serve.port);
  ASSERT_GE(data, 0);
  ASSERT_TRUE(protocol::SendCookie(data, cookie));
  ExpectState(control, State::kTestStart);
  ExpectState(control, State::kTestRunning);

  const std::vector<char> block(spec.block_bytes, 'n');
  const uint64_t in_time = SendFor(data, 1000ms, block);
  const uint64_t late = SendFor(data, 1000ms, block);  // TEST_END "delayed" by a second
  ASSERT_GT(late, 0u);
  ASSERT_TRUE(protocol::SendState(control, State::kTestEnd));
  ExpectState(control, State::kExchangeResults);

  protocol::PeerResults ours;
  ours.sender_has_retransmits = 0;
  ours.streams.push_back({1, in_time, 0, 0, 0, 0, 0, 1.0});
  ASSERT_TRUE(protocol::SendJson(control, protocol::EncodeResults(ours)));
  auto doc = protocol::ReadJson(control, 10s, protocol::kMaxResultsBytes, "server results");
  ASSERT_TRUE(doc) << doc.error().ToString();
  auto theirs = protocol::DecodeResultsJson(*doc);
  ASSERT_TRUE(theirs) << theirs.error().message;
  ASSERT_EQ(theirs->streams.size(), 1u);
  // Before the fix: about 2 s and every byte, late ones included.
  EXPECT_LT(theirs->streams[0].end_time - theirs->streams[0].start_time, 1.5) << doc->dump();
  EXPECT_LT(theirs->streams[0].bytes, in_time + late / 2) << doc->dump();
  EXPECT_GT(theirs->streams[0].bytes, 0u);

  ExpectState(control, State::kDisplayResults);
  ASSERT_TRUE(protocol::SendState(control, State::kIperfDone));
  close(data);
  close(control);
}

}  // namespace
}  // namespace nicbench::regress
