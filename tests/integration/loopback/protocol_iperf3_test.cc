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

namespace nicbench::protocol {
namespace {

using namespace std::chrono_literals;

// True once 127.0.0.1:port is in LISTEN state. We must not probe with a connection: a server
// started with -1 would take the probe for its one test.
bool IsListening(int port) {
  std::ifstream tcp("/proc/net/tcp");
  const std::string local = fmt::format("0100007F:{:04X}", port);
  std::string line;
  while (std::getline(tcp, line)) {
    // "  sl  local_address rem_address   st ...": LISTEN is state 0A.
    if (line.find(local) != std::string::npos && line.find(" 0A ") != std::string::npos) {
      return true;
    }
  }
  return false;
}

bool WaitListening(int port) {
  for (int i = 0; i < 500; ++i) {
    if (IsListening(port)) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

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

// Waits until the kernel has no unacknowledged bytes on `fd`, then gives the receiving process a
// moment to read them: a stock server stops counting when TEST_END arrives on the other socket.
void DrainSendQueue(int fd) {
  for (int i = 0; i < 500; ++i) {
    int queued = 0;
    if (ioctl(fd, SIOCOUTQ, &queued) != 0 || queued == 0) break;
    std::this_thread::sleep_for(10ms);
  }
  std::this_thread::sleep_for(300ms);
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
  ASSERT_TRUE(WaitListening(port)) << server.StderrSoFar();

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
  ASSERT_TRUE(WaitListening(port)) << server.StderrSoFar();
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
