// What a CRR transaction puts on the wire, watched with a packet socket on `lo`: the server's
// response and its FIN travel in one segment (MSG_MORE, then close), so the client is woken once
// per connection for both. Needs CAP_NET_RAW (root); skipped with a message otherwise.
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "net/socket.h"
#include "support/accept.h"
#include "support/run_binary.h"

namespace nicbench {
namespace {

// Each test serves on an address of `lo` that no other test uses (the two here run side by side
// under `ctest -j`), so its capture holds only its own packets.
constexpr char kLoneAddress[] = "127.0.81.7";
constexpr char kEpollAddress[] = "127.0.81.8";
constexpr char kQuietAddress[] = "127.0.81.9";

// A packet socket on `lo` that keeps the first 128 bytes of IPv4 packets from `server`
// (the filter runs in the kernel, so the bulk tests running beside cannot fill its buffer).
int CaptureFromServer(const char* server) {
  in_addr source{};
  EXPECT_EQ(inet_pton(AF_INET, server, &source), 1) << server;
  // Protocol 0: the socket receives nothing until it is bound below, after its filter is in
  // place. Opened with ETH_P_IP it took every host's packet from its creation on, and a FIN of
  // a test running beside that came before the filter was counted as this server's.
  const int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -errno;
  sock_filter code[] = {
      {BPF_LD | BPF_W | BPF_ABS, 0, 0, 12},  // the IPv4 source address, in host order
      {BPF_JMP | BPF_JEQ | BPF_K, 0, 1, ntohl(source.s_addr)},
      {BPF_RET | BPF_K, 0, 0, 128},
      {BPF_RET | BPF_K, 0, 0, 0},
  };
  sock_fprog program{static_cast<unsigned short>(sizeof code / sizeof code[0]), code};
  EXPECT_EQ(setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof program), 0);
  const int buffer = 8 << 20;
  (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buffer, sizeof buffer);
  sockaddr_ll where{};
  where.sll_family = AF_PACKET;
  where.sll_protocol = htons(ETH_P_IP);
  where.sll_ifindex = static_cast<int>(if_nametoindex("lo"));
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&where), sizeof where), 0);
  return fd;
}

struct FinSegments {
  int with_payload = 0;
  int bare = 0;
  std::string bare_seen;  // each bare FIN's ports and flags, for the failure message
};

// The FIN segments `server` sent from any port but `control_port` (its control and data
// connections), as delivered on `lo` (each packet is seen leaving and arriving: the arrival
// copy is counted).
FinSegments CountFins(int fd, const char* server, int control_port) {
  in_addr source{};
  EXPECT_EQ(inet_pton(AF_INET, server, &source), 1) << server;
  FinSegments fins;
  unsigned char packet[128];
  for (;;) {
    sockaddr_ll from{};
    socklen_t from_len = sizeof from;
    const ssize_t n =
        recvfrom(fd, packet, sizeof packet, 0, reinterpret_cast<sockaddr*>(&from), &from_len);
    if (n < 0) break;
    if (from.sll_pkttype == PACKET_OUTGOING || n < 20) continue;
    const int ip_header = (packet[0] & 0x0f) * 4;
    if (packet[9] != IPPROTO_TCP || n < ip_header + 20) continue;
    if (std::memcmp(packet + 12, &source.s_addr, sizeof source.s_addr) != 0) continue;
    const unsigned char* tcp = packet + ip_header;
    const int source_port = tcp[0] << 8 | tcp[1];
    if (source_port == control_port || (tcp[13] & 0x01) == 0) continue;
    const int total = packet[2] << 8 | packet[3];
    const int payload = total - ip_header - (tcp[12] >> 4) * 4;
    (payload > 0 ? fins.with_payload : fins.bare) += 1;
    if (payload <= 0) {
      fins.bare_seen += " " + std::to_string(source_port) + "->" +
                        std::to_string(tcp[2] << 8 | tcp[3]) + " flags " + std::to_string(tcp[13]);
    }
  }
  return fins;
}

void ExpectResponsesCarryTheFin(const char* address, const std::vector<std::string>& extra) {
  const int capture = CaptureFromServer(address);
  if (capture == -EPERM || capture == -EACCES) {
    GTEST_SKIP() << "a packet socket needs CAP_NET_RAW: run the tests as root";
  }
  ASSERT_GE(capture, 0) << "socket(AF_PACKET): " << -capture;
  testing::BackgroundProcess server(
      {testing::NicbenchPath(), "serve", "-p", "0", "--bind", address});
  const int port = testing::ServedPort(server);
  ASSERT_NE(port, 0) << server.StderrSoFar();
  std::vector<std::string> args = {"run", address,      "-p", std::to_string(port), "--crr", "-n",
                                   "40",  "--no-store", "-J"};
  args.insert(args.end(), extra.begin(), extra.end());
  const testing::ProcessResult run = testing::RunNicbench(args);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto doc = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << run.out;
  EXPECT_EQ(doc["end"]["rr"]["local"]["transactions"].get<int>(), 40);
  const FinSegments fins = CountFins(capture, address, port);
  close(capture);
  EXPECT_EQ(fins.with_payload, 40) << "one response with its FIN per transaction";
  EXPECT_EQ(fins.bare, 0) << "a FIN that came after its response woke the client again:"
                          << fins.bare_seen << "\nclient: " << run.err
                          << "\nserver: " << server.StderrSoFar();
}

// The capture counts its server's segments only, also when it is opened while other
// connections open and close on `lo` (as the tests beside it do): a FIN of theirs counted as
// the server's once failed the test above (41 responses with a FIN for 40 transactions, and a
// bare FIN). Nothing is sent from the capture's address here, so every count must be 0.
TEST(CrrSegments, CaptureOpenedAmidOtherConnectionsCountsNoneOfTheirs) {
  auto listener = testing::ListenOnLoopback(128);
  ASSERT_TRUE(listener) << listener.error().message;
  std::atomic<bool> stop{false};
  // Connections that open and close (each close a FIN) for as long as captures are opened.
  std::thread others([&] {
    while (!stop) {
      auto client = net::Connect(listener->address, "", 0, {}, std::chrono::seconds(10));
      if (client) (void)net::Accept(listener->fd.get());
    }
  });
  int counted = 0, open_error = 0;
  for (int i = 0; i < 200 && open_error == 0; ++i) {
    const int capture = CaptureFromServer(kQuietAddress);
    if (capture < 0) {
      open_error = -capture;
      break;
    }
    const FinSegments fins = CountFins(capture, kQuietAddress, 0);
    counted += fins.with_payload + fins.bare;
    close(capture);
  }
  // The connections stop before any verdict, so no return leaves the thread running.
  stop = true;
  others.join();
  if (open_error == EPERM || open_error == EACCES) {
    GTEST_SKIP() << "a packet socket needs CAP_NET_RAW: run the tests as root";
  }
  ASSERT_EQ(open_error, 0) << "socket(AF_PACKET): " << open_error;
  EXPECT_EQ(counted, 0) << "FINs of other connections were counted as the server's";
}

TEST(CrrSegments, LoneFlowSendsEachResponseWithItsFin) {
  ExpectResponsesCarryTheFin(kLoneAddress, {});
}

TEST(CrrSegments, EpollFlowsSendEachResponseWithItsFin) {
  ExpectResponsesCarryTheFin(kEpollAddress, {"-P", "2", "--threads", "1"});
}

}  // namespace
}  // namespace nicbench
