// The protocol layer alone against the stock iperf3 3.12 server: this test plays a client over
// raw sockets with src/protocol's functions (no engine), so it proves the wire format, the state
// sequence and the results codec against the real peer. Skipped when iperf3 is not installed.
#include <arpa/inet.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "protocol/control_channel.h"
#include "protocol/params.h"
#include "protocol/results.h"
#include "protocol/wire.h"
#include "support/run_binary.h"
#include "support/wait.h"

namespace nicbench::protocol {
namespace {

using namespace std::chrono_literals;

int ConnectLoopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

void ExpectState(int fd, State expected) {
  auto state = ReadState(fd, 10s, StateName(expected));
  ASSERT_TRUE(state) << state.error().ToString();
  ASSERT_EQ(StateName(*state), StateName(expected));
}

// Waits until the receiving process has read every byte sent on `fd`: a stock server stops
// counting when TEST_END arrives on the other socket, so the data must be in its count first.
void DrainSendQueue(int fd) {
  EXPECT_TRUE(testing::WaitUntil([&] {
    int queued = 0;
    return ioctl(fd, SIOCOUTQ, &queued) == 0 && queued == 0 && testing::PeerUnreadBytes(fd) == 0;
  })) << "the stock server did not read what was sent";
}

class ProtocolAgainstIperf3 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::HaveProgram("iperf3")) GTEST_SKIP() << "iperf3 is not installed";
  }
};

TEST_F(ProtocolAgainstIperf3, OneTcpStreamByteCountsAgreeExactly) {
  const int port = testing::FreeTcpPort();
  testing::BackgroundProcess server(
      {"iperf3", "-s", "-1", "-p", std::to_string(port), "-B", "127.0.0.1"});
  ASSERT_TRUE(testing::WaitListening(port)) << server.StderrSoFar();

  const int control = ConnectLoopback(port);
  ASSERT_GE(control, 0);
  const std::string cookie = MakeCookie();
  ASSERT_TRUE(SendCookie(control, cookie));
  ExpectState(control, State::kParamExchange);

  record::TestSpec spec;
  spec.duration = 1s;
  ASSERT_TRUE(SendJson(control, EncodeParams(spec)));
  ExpectState(control, State::kCreateStreams);

  const int data = ConnectLoopback(port);
  ASSERT_GE(data, 0);
  ASSERT_TRUE(SendCookie(data, cookie));
  ExpectState(control, State::kTestStart);
  ExpectState(control, State::kTestRunning);

  const auto started = std::chrono::steady_clock::now();
  std::vector<char> block(record::EffectiveBlockBytes(spec), 'n');
  uint64_t sent = 0;
  for (int i = 0; i < 40; ++i) {  // 40 x 128 KiB = 5 MiB
    ASSERT_TRUE(WriteAll(data, block.data(), block.size(), 10s, "data"));
    sent += block.size();
  }
  DrainSendQueue(data);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_TRUE(SendState(control, State::kTestEnd));
  ExpectState(control, State::kExchangeResults);

  PeerResults ours;
  ours.sender_has_retransmits = 0;  // a sender that does not read tcp_info
  ours.streams.push_back({1, sent, 0, 0, 0, 0, 0, seconds});
  ASSERT_TRUE(SendJson(control, EncodeResults(ours)));
  auto doc = ReadJson(control, 10s, kMaxResultsBytes, "server results");
  ASSERT_TRUE(doc) << doc.error().ToString();
  auto theirs = DecodeResultsJson(*doc);
  ASSERT_TRUE(theirs) << theirs.error().message << "\n" << doc->dump();
  ASSERT_EQ(theirs->streams.size(), 1u);
  EXPECT_EQ(theirs->streams[0].id, 1);
  EXPECT_EQ(theirs->streams[0].bytes, sent);
  // The server only received: 3.12 prints its -1 as 18446744073709551615, decoded back to -1.
  EXPECT_EQ(theirs->sender_has_retransmits, -1);
  EXPECT_EQ(theirs->streams[0].retransmits, -1);

  ExpectState(control, State::kDisplayResults);
  ASSERT_TRUE(SendState(control, State::kIperfDone));
  close(data);
  close(control);
  server.Stop(SIGTERM);
}

TEST_F(ProtocolAgainstIperf3, BusyServerAnswersAccessDenied) {
  const int port = testing::FreeTcpPort();
  testing::BackgroundProcess server(
      {"iperf3", "-s", "-1", "-p", std::to_string(port), "-B", "127.0.0.1"});
  ASSERT_TRUE(testing::WaitListening(port)) << server.StderrSoFar();
  // A test must be running: before that the server is busy reading this client's parameters,
  // and during CREATE_STREAMS a new connection is taken for a data stream.
  const int control = ConnectLoopback(port);
  ASSERT_GE(control, 0);
  const std::string cookie = MakeCookie();
  ASSERT_TRUE(SendCookie(control, cookie));
  ExpectState(control, State::kParamExchange);
  record::TestSpec spec;
  spec.duration = 1s;
  ASSERT_TRUE(SendJson(control, EncodeParams(spec)));
  ExpectState(control, State::kCreateStreams);
  const int data = ConnectLoopback(port);
  ASSERT_GE(data, 0);
  ASSERT_TRUE(SendCookie(data, cookie));
  ExpectState(control, State::kTestStart);
  ExpectState(control, State::kTestRunning);

  const int intruder = ConnectLoopback(port);
  ASSERT_GE(intruder, 0);
  ExpectState(intruder, State::kAccessDenied);
  close(intruder);
  close(data);
  close(control);
  server.Stop(SIGTERM);
}

}  // namespace
}  // namespace nicbench::protocol
