// Slots held by silence: four connections that sent a cookie and went quiet, renewed as the
// server dropped them, kept out 18 of 24 legitimate clients; a test that reached TEST_RUNNING
// and sent nothing held its slot until its duration plus 10 s; UDP hellos sent slowly held the
// port's UDP set-up lock, and a concurrent stock UDP test failed with "Device or resource
// busy". Now every phase before the data has a short deadline, a stalled running test ends
// after --rcv-timeout with an error sent to the client, one test's set-up never blocks
// another's, and tests per client address are bounded.
#include "regress/hostile_client.h"

#include <atomic>
#include <thread>

#include "support/wait.h"

namespace nicbench::regress {
namespace {

// Keeps `count` connections from `source` that send a cookie and go quiet, reopening each one
// the server drops, until `stop`; `rounds` counts its passes over them (the first one has opened
// them all). The 50 ms between passes is the attack's own pace, not a wait for anything.
void HoldSlots(int port, const std::string& source, int count, const std::atomic<bool>& stop,
               std::atomic<int>& rounds) {
  std::vector<int> fds(static_cast<size_t>(count), -1);
  int n = 100;
  while (!stop) {
    for (int& fd : fds) {
      char byte;
      if (fd >= 0 && recv(fd, &byte, 1, MSG_DONTWAIT | MSG_PEEK) == 0) {
        close(fd);
        fd = -1;
      }
      if (fd >= 0) continue;
      fd = ConnectFrom(source, port);
      const std::string cookie = MakeCookie(n++);
      if (fd >= 0) SendAll(fd, cookie.data(), cookie.size());
    }
    ++rounds;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (int fd : fds) close(fd);
}

TEST(ServerSilentSlots, QuietCookiesDoNotKeepOthersOut) {
  ServeChild server = StartServe();
  NormalTest(server.port);
  const ProcStats baseline = ReadProcStats(server.process->pid());
  std::atomic<bool> stop{false};
  std::atomic<int> rounds{0};
  std::thread holder([&] { HoldSlots(server.port, "127.0.0.2", 4, stop, rounds); });
  // The quiet connections are in before the legitimate clients come.
  EXPECT_TRUE(testing::WaitUntil([&] { return rounds > 0; }));
  int refused = 0;
  for (int i = 0; i < 8; ++i) {
    testing::ProcessResult r = testing::RunNicbench(
        {"run", "127.0.0.1", "-p", std::to_string(server.port), "-J", "-n", "1M"});
    if (r.exit_code != 0) ++refused;
  }
  stop = true;
  holder.join();
  std::printf("legitimate clients refused while 4 quiet connections held slots: %d of 8\n",
              refused);
  EXPECT_EQ(refused, 0);
  ExpectBackToBaseline(server.process->pid(), baseline);
}

TEST(ServerSilentSlots, SilentRunningTestEndsAfterTheReceiveTimeout) {
  ServeChild server = StartServe({"--rcv-timeout", "1000"});
  NormalTest(server.port);
  const ProcStats baseline = ReadProcStats(server.process->pid());
  const std::string cookie = MakeCookie(1);
  int control = OpenTest(server.port, cookie,
                         R"({"tcp":true,"omit":0,"time":30,"num":0,"blockcount":0,"parallel":1,)"
                         R"("len":131072,"pacing_timer":1000,"client_version":"3.12"})",
                         "127.0.0.2");
  ASSERT_GE(control, 0);
  ASSERT_EQ(ReadStateByte(control), 10);
  std::vector<int> streams = OpenStreams(server.port, cookie, 1, "127.0.0.2");
  ASSERT_EQ(ReadStateByte(control), 1);
  ASSERT_EQ(ReadStateByte(control), 2);
  NormalTest(server.port);
  // No data: after 1 s (not 30 + 10) the test ends, and the client is told.
  EXPECT_EQ(ReadStateByte(control, 15000), -2);
  EXPECT_EQ(ReadInt32(control), 144) << "IENOMSG: idle timeout for receiving data";
  CloseAll(streams);
  close(control);
  ExpectBackToBaseline(server.process->pid(), baseline);
}

TEST(ServerSilentSlots, SlowUdpHellosDoNotBlockAnotherTestsSetUp) {
  ServeChild server = StartServe();
  NormalTest(server.port);
  const ProcStats baseline = ReadProcStats(server.process->pid());
  int control = OpenTest(server.port, MakeCookie(2),
                         R"({"udp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":4,)"
                         R"("len":1400,"bandwidth":1048576,"pacing_timer":1000,)"
                         R"("client_version":"3.12"})",
                         "127.0.0.4");
  ASSERT_GE(control, 0);
  ASSERT_EQ(ReadStateByte(control), 10);
  std::atomic<bool> stop{false};
  std::atomic<bool> first_hello{false};
  std::thread slow([&] {
    // One hello every 4 s (longer in all than the old lock wait of 10 s), each from a new socket,
    // as a slow client's streams would come.
    const sockaddr_in port = Loopback("127.0.0.1", server.port);
    std::vector<int> socks;
    for (int i = 0; i < 4 && !stop; ++i) {
      socks.push_back(UdpFrom("127.0.0.4"));
      sendto(socks.back(), "9876", 4, 0, reinterpret_cast<const sockaddr*>(&port), sizeof port);
      first_hello = true;
      // The slowness is the attack: 4 s between hellos, in steps so a stop ends it early.
      for (int w = 0; w < 40 && !stop; ++w)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    for (int s : socks) close(s);
  });
  // The slow test's set-up is under way before the other test comes.
  EXPECT_TRUE(testing::WaitUntil([&] { return first_hello.load(); }));
  testing::ProcessResult r = testing::RunNicbench(
      {"run", "127.0.0.1", "-p", std::to_string(server.port), "-J", "-u", "-b", "10M", "-t", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (testing::HaveProgram("iperf3")) {
    testing::ProcessResult stock = testing::RunProcess(
        {"iperf3", "-c", "127.0.0.1", "-p", std::to_string(server.port), "-u", "-t", "1"});
    EXPECT_EQ(stock.exit_code, 0) << stock.out << stock.err;
  }
  stop = true;
  slow.join();
  close(control);
  ExpectBackToBaseline(server.process->pid(), baseline);
}

}  // namespace
}  // namespace nicbench::regress
