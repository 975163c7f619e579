// Bug: start.tcp_mss_default was the first data stream's TCP_INFO snd_mss (65483 on loopback
// once its window had grown), where iperf3 writes TCP_MAXSEG of its control connection read
// just after the cookie went out (iperf_connect in iperf_api.c; 3.12 writes 32768 on
// loopback). The test reads that value from a connection of its own made the same way.
#include <netinet/tcp.h>

#include <string>

#include <gtest/gtest.h>

#include "server_test_util.h"

namespace nicbench::regress {
namespace {

// TCP_MAXSEG of a fresh loopback connection after a 37-byte write (the cookie), as iperf3 reads
// it; 0 when it cannot be read.
int ControlMssAfterCookie() {
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listener, 1) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(listener);
    return 0;
  }
  int fd = ConnectRaw(ntohs(addr.sin_port));
  int accepted = accept(listener, nullptr, nullptr);
  int mss = 0;
  socklen_t mss_len = sizeof mss;
  if (fd < 0 || accepted < 0 || !SendAll(fd, kCookie, sizeof kCookie) ||
      getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &mss_len) != 0) {
    mss = 0;
  }
  for (int f : {fd, accepted, listener}) {
    if (f >= 0) close(f);
  }
  return mss;
}

TEST(TcpMssDefaultAsIperf3, IsTheControlConnectionsMaxseg) {
  const int want = ControlMssAfterCookie();
  ASSERT_GT(want, 0);
  ServeChild serve = StartServe();
  nlohmann::json doc = NormalTest(serve.port);
  ASSERT_TRUE(doc["start"].contains("tcp_mss_default")) << doc["start"].dump();
  EXPECT_EQ(doc["start"]["tcp_mss_default"].get<int>(), want);
}

}  // namespace
}  // namespace nicbench::regress
