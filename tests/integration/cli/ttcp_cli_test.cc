// The ttcp front end as users meet it: usage text, bad option values, the original's error
// lines for a refused connection and a port in use, and the UDP idle timeout. Runs the real
// binary (as `ttcp` through the symlink and as `nicbench ttcp`); traffic stays on 127.0.0.1.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/run_binary.h"
#include "support/wait.h"
#include "ttcp/options.h"

namespace nicbench::testing {
namespace {

std::string TtcpPath() {
  std::string nicbench = NicbenchPath();
  return nicbench.substr(0, nicbench.rfind('/') + 1) + "ttcp";
}

ProcessResult RunTtcp(std::vector<std::string> args) {
  args.insert(args.begin(), TtcpPath());
  return RunProcess(args);
}

std::vector<std::string> Ttcp(std::vector<std::string> args) {
  args.insert(args.begin(), TtcpPath());
  return args;
}

// Waits until the receiver has bound `port` (a TCP listener, or any UDP socket). The receiver
// prints "socket" before bind/listen, so its output cannot tell us this.
void WaitBound(int port, bool udp) {
  ASSERT_TRUE(WaitListening(port, udp)) << "receiver never bound port " << port;
}

std::string Usage() { return ttcp::UsageText(); }

TEST(TtcpCli, NoArgumentsPrintsUsageAndExits1) {
  ProcessResult r = RunTtcp({});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, Usage());
  EXPECT_EQ(r.err.rfind("Usage: ttcp -t [-options] host [ < in ]\n", 0), 0u);
}

TEST(TtcpCli, SubcommandFormPrintsTheSameUsage) {
  ProcessResult r = RunNicbench({"ttcp"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, Usage());
}

TEST(TtcpCli, UnknownOptionPrintsUsage) {
  ProcessResult r = RunTtcp({"-r", "-q"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "ttcp: invalid option -- 'q'\n" + Usage());
}

TEST(TtcpCli, MissingArgumentAndMissingHostPrintUsage) {
  ProcessResult a = RunTtcp({"-r", "-p"});
  EXPECT_EQ(a.exit_code, 1);
  EXPECT_EQ(a.err, "ttcp: option requires an argument -- 'p'\n" + Usage());
  ProcessResult b = RunTtcp({"-t", "-s"});
  EXPECT_EQ(b.exit_code, 1);
  EXPECT_EQ(b.err, Usage());
}

TEST(TtcpCli, BadValuesGiveOneLineAndExit1) {
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const Case cases[] = {
      {{"-t", "-s", "-l", "-5", "127.0.0.1"},
       "ttcp: bad value for -l: '-5' (want an integer 1..2147483647)\n"},
      {{"-t", "-s", "-n", "lots", "127.0.0.1"},
       "ttcp: bad value for -n: 'lots' (want an integer 0..2147483647)\n"},
      {{"-r", "-p", "70000"}, "ttcp: bad value for -p: '70000' (want an integer 1..65535)\n"},
      {{"-r", "-p0"}, "ttcp: bad value for -p: '0' (want an integer 1..65535)\n"},
      {{"-r", "-u", "--idle-timeout", "soon"},
       "ttcp: bad value for --idle-timeout: 'soon' (want seconds > 0)\n"},
  };
  for (const auto& c : cases) {
    ProcessResult r = RunTtcp(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.err;
    EXPECT_EQ(r.err, c.err);
    EXPECT_EQ(r.out, "");
  }
}

TEST(TtcpCli, ConnectionRefusedIsTheOriginalErrorPair) {
  int port = FreeTcpPort();  // bound and released: nothing listens there
  std::string p = std::to_string(port);
  ProcessResult r = RunTtcp({"-t", "-s", "-p", p, "127.0.0.1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "ttcp-t: buflen=8192, nbuf=2048, align=16384/0, port=" + p +
                       "  tcp  -> 127.0.0.1\n"
                       "ttcp-t: socket\n"
                       "ttcp-t: connect: Connection refused\n"
                       "errno=111\n");
}

TEST(TtcpCli, TcpPortInUseFailsAtBind) {
  int port = FreeTcpPort();
  std::string p = std::to_string(port);
  BackgroundProcess first(Ttcp({"-r", "-s", "-p", p}));
  WaitBound(port, false);
  ProcessResult second = RunTtcp({"-r", "-s", "-p", p});
  first.Stop();
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_EQ(second.err, "ttcp-r: buflen=8192, nbuf=2048, align=16384/0, port=" + p +
                            "  tcp\n"
                            "ttcp-r: socket\n"
                            "ttcp-r: bind: Address already in use\n"
                            "errno=98\n");
}

TEST(TtcpCli, UdpPortInUseFailsAtBind) {
  int port = FreeTcpPort();
  std::string p = std::to_string(port);
  BackgroundProcess first(Ttcp({"-r", "-s", "-u", "-p", p}));
  WaitBound(port, true);
  ProcessResult second = RunTtcp({"-r", "-s", "-u", "-p", p});
  first.Stop();
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_NE(second.err.find("ttcp-r: bind: Address already in use\nerrno=98\n"), std::string::npos)
      << second.err;
}

// Sends the datagrams a transmitter would, minus the end sentinels: a start sentinel and
// `count` data datagrams of `size` bytes.
void SendWithoutEndSentinel(int port, int count, size_t size) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string data(size, 'x');
  auto* addr = reinterpret_cast<sockaddr*>(&to);
  EXPECT_EQ(sendto(fd, data.data(), 4, 0, addr, sizeof to), 4);
  for (int i = 0; i < count; ++i) {
    EXPECT_EQ(sendto(fd, data.data(), size, 0, addr, sizeof to), static_cast<ssize_t>(size));
  }
  close(fd);
}

TEST(TtcpCli, UdpIdleTimeoutEndsReceiverWithoutEndSentinel) {
  int port = FreeTcpPort();
  std::string p = std::to_string(port);
  BackgroundProcess receiver(
      Ttcp({"-r", "-s", "-u", "-b", "1048576", "--idle-timeout", "0.5", "-p", p}));
  WaitBound(port, true);
  SendWithoutEndSentinel(port, 10, 8192);
  ProcessResult r = receiver.Stop(0);  // signal 0: only reaps it once it has ended by itself
  EXPECT_EQ(r.signal, 0) << "receiver did not end on its own";
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("ttcp-r: idle timeout: no datagram for 0.5 s, ending without the end "
                       "sentinel\n"
                       "ttcp-r: 81920 bytes in "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("ttcp-r: 11 I/O calls, "), std::string::npos) << r.err;
}

TEST(TtcpCli, WithoutIdleTimeoutTheReceiverKeepsWaiting) {
  int port = FreeTcpPort();
  std::string p = std::to_string(port);
  BackgroundProcess receiver(Ttcp({"-r", "-s", "-u", "-p", p}));
  WaitBound(port, true);
  SendWithoutEndSentinel(port, 3, 1000);
  ProcessResult r = receiver.Stop(SIGTERM);  // the original behaviour: only a signal ends it
  EXPECT_EQ(r.signal, SIGTERM);
  EXPECT_EQ(r.err.find("bytes in"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace nicbench::testing
