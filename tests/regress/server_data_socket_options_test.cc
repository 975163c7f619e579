// Bug: on the default dual-stack listener ("::") the server set IPV6_V6ONLY on each accepted
// data socket, Linux answered EINVAL, and ApplySocketOptions returned before the window, TOS,
// MSS, no-delay and congestion control were set: `nicbench run 127.0.0.1 -R -C reno` sent with
// the host's default congestion control and `-w 32K` left a 4 MiB send buffer on the server.
// Stock iperf3 clients were hit the same way.
//
// The server runs in this process so that its own data sockets can be read back with
// getsockopt (ServerConfig::on_data_socket); the clients are the real nicbench binary and, when
// installed, Debian's iperf3.
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/server.h"
#include "support/run_binary.h"

namespace nicbench::regress {
namespace {

struct SocketView {
  int family = 0;
  int sndbuf = 0, rcvbuf = 0, tos = -1, tclass = -1, nodelay = -1, mtu_discover = -1;
  std::string congestion;
};

int IntOption(int fd, int level, int name) {
  int v = -1;
  socklen_t len = sizeof v;
  return getsockopt(fd, level, name, &v, &len) == 0 ? v : -1;
}

SocketView Read(int fd) {
  SocketView v;
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  v.family = ss.ss_family;
  v.sndbuf = IntOption(fd, SOL_SOCKET, SO_SNDBUF);
  v.rcvbuf = IntOption(fd, SOL_SOCKET, SO_RCVBUF);
  v.tos = IntOption(fd, IPPROTO_IP, IP_TOS);
  if (v.family == AF_INET6) v.tclass = IntOption(fd, IPPROTO_IPV6, IPV6_TCLASS);
  v.nodelay = IntOption(fd, IPPROTO_TCP, TCP_NODELAY);
  v.mtu_discover = IntOption(fd, IPPROTO_IP, IP_MTU_DISCOVER);
  char name[32] = {};
  socklen_t name_len = sizeof name;
  if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &name_len) == 0) v.congestion = name;
  return v;
}

// An in-process server on `bind` (empty = the default "::") that records each data socket.
class RecordingServer {
 public:
  explicit RecordingServer(const std::string& bind) {
    engine::ServerConfig config;
    config.bind_address = bind;
    config.port = 0;
    config.log_tests = false;
    config.on_data_socket = [this](int fd) {
      std::lock_guard<std::mutex> lock(mutex_);
      seen_.push_back(Read(fd));
    };
    auto server = engine::Server::Create(config);
    EXPECT_TRUE(server) << server.error().ToString();
    if (!server) return;
    server_ = std::move(*server);
    thread_ = std::thread([this] { (void)server_->Run(); });
  }
  ~RecordingServer() {
    if (server_) server_->RequestStop();
    if (thread_.joinable()) thread_.join();
  }
  std::string port() const { return std::to_string(server_->port()); }
  std::vector<SocketView> Take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(seen_, {});
  }

 private:
  std::unique_ptr<engine::Server> server_;
  std::thread thread_;
  std::mutex mutex_;
  std::vector<SocketView> seen_;
};

constexpr int kWindow = 32 * 1024;
constexpr int kTos = 0x20;

// Every option the client sent, on each of the server's data sockets.
void ExpectTcpOptions(const std::vector<SocketView>& seen, size_t streams, const std::string& who) {
  ASSERT_EQ(seen.size(), streams) << who;
  for (const SocketView& v : seen) {
    EXPECT_EQ(v.sndbuf, 2 * kWindow) << who << ": SO_SNDBUF (the kernel doubles it)";
    EXPECT_EQ(v.rcvbuf, 2 * kWindow) << who << ": SO_RCVBUF";
    EXPECT_EQ(v.congestion, "reno") << who << ": TCP_CONGESTION";
    EXPECT_EQ(v.nodelay, 1) << who << ": TCP_NODELAY";
    EXPECT_EQ(v.tos, kTos) << who << ": IP_TOS (IPv4 traffic, v4-mapped included)";
    if (v.family == AF_INET6) {
      EXPECT_EQ(v.tclass, kTos) << who << ": IPV6_TCLASS";
    }
  }
}

std::vector<std::string> NicbenchArgs(const std::string& host, const std::string& port) {
  return {"run", host, "-p",   port, "-R",   "-t", "1",    "-P", "2", "-w",
          "32K", "-C", "reno", "-S", "0x20", "-M", "1200", "-N", "-J"};
}

TEST(ServerDataSocketOptions, NicbenchClientOptionsReachEveryListenerAndFamily) {
  struct Case {
    std::string bind, host;
  };
  for (const Case& c : {Case{"", "127.0.0.1"}, Case{"", "::1"}, Case{"127.0.0.1", "127.0.0.1"},
                        Case{"::1", "::1"}}) {
    const std::string who = "listener '" + c.bind + "', client to " + c.host;
    RecordingServer server(c.bind);
    testing::ProcessResult r = testing::RunNicbench(NicbenchArgs(c.host, server.port()));
    ASSERT_EQ(r.exit_code, 0) << who << r.err;
    EXPECT_EQ(r.err.find("data stream options"), std::string::npos) << who << r.err;
    ExpectTcpOptions(server.Take(), 2, who);
  }
}

TEST(ServerDataSocketOptions, StockIperf3ClientOptionsReachTheServersSockets) {
  if (!testing::HaveProgram("iperf3")) GTEST_SKIP() << "iperf3 is not installed";
  for (const std::string host : {"127.0.0.1", "::1"}) {
    RecordingServer server("");
    testing::ProcessResult r = testing::RunProcess(
        {"iperf3", "-c",  host, "-p",   server.port(), "-R", "-t", "1",    "-P", "2",
         "-w",     "32K", "-C", "reno", "-S",          "32", "-M", "1200", "-N", "-J"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    ExpectTcpOptions(server.Take(), 2, "iperf3 to " + host);
  }
}

TEST(ServerDataSocketOptions, UdpOptionsAndDontFragmentReachTheServersSockets) {
  if (!testing::HaveProgram("iperf3")) GTEST_SKIP() << "iperf3 is not installed";
  RecordingServer server("");
  testing::ProcessResult r =
      testing::RunProcess({"iperf3", "-c", "127.0.0.1", "-p", server.port(), "-u", "-R", "-t", "1",
                           "-b", "1M", "-w", "32K", "-S", "32", "--dont-fragment", "-J"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::vector<SocketView> seen = server.Take();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].sndbuf, 2 * kWindow);
  EXPECT_EQ(seen[0].tos, kTos);
  EXPECT_EQ(seen[0].mtu_discover, IP_PMTUDISC_DO);
}

}  // namespace
}  // namespace nicbench::regress
