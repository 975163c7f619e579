// UDP reflection: a UDP stream was bound to whoever sent the first small datagram to the port,
// from any address. A 4-byte hello from an address other than the control connection's made
// the server send a test's data there (an amplifier, with --max-rate unlimited by default), and
// a flood of tiny junk datagrams hijacked the streams of concurrent tests. Now a hello counts
// only from the control connection's address, junk is dropped without effect, and the server
// never sends UDP to an address that did not open the test.
#include "regress/hostile_client.h"

#include <atomic>
#include <thread>

namespace nicbench::regress {
namespace {

constexpr char kReverseUdp[] =
    R"({"udp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":1,"len":1400,)"
    R"("reverse":true,"pacing_timer":1000,"client_version":"3.12"})";

// Everything queued on `fd` now and during the next `ms`, in bytes.
size_t Drain(int fd, int ms) {
  size_t total = 0;
  char buf[65536];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0) return total;
    ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n <= 0) return total;
    total += static_cast<size_t>(n);
  }
}

TEST(ServerUdpReflection, HellosOnlyFromTheControlAddressAndJunkIsDropped) {
  ServeChild server = StartServe();
  NormalTest(server.port);
  const ProcStats baseline = ReadProcStats(server.process->pid());
  const sockaddr_in port = Loopback("127.0.0.1", server.port);

  // The attacker opens a reverse UDP test and has the "victim" (127.0.0.2) send the hello.
  int control = OpenTest(server.port, MakeCookie(1), kReverseUdp);
  ASSERT_GE(control, 0);
  ASSERT_EQ(ReadStateByte(control), 10);  // CREATE_STREAMS
  int victim = UdpFrom("127.0.0.2");
  ASSERT_GE(victim, 0);
  const char hello[4] = {'9', '8', '7', '6'};
  ASSERT_EQ(sendto(victim, hello, 4, 0, reinterpret_cast<const sockaddr*>(&port), sizeof port), 4);

  // Meanwhile junk from a third address floods the port.
  std::atomic<bool> flooding{true};
  std::atomic<uint64_t> junk_sent{0};
  std::thread flood([&] {
    int junk = UdpFrom("127.0.0.3");
    while (flooding) {
      const char bytes[4] = {'x', 'x', 'x', 'x'};
      if (sendto(junk, bytes, 1 + junk_sent % 4, 0, reinterpret_cast<const sockaddr*>(&port),
                 sizeof port) > 0) {
        ++junk_sent;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(100));  // the flood's pace
    }
    close(junk);
  });
  // Normal UDP tests complete during the flood: nicbench's and, if installed, stock iperf3's.
  for (int i = 0; i < 2; ++i) {
    auto doc = NormalTest(server.port, {"-u", "-b", "20M", "-t", "1", "-P", "4"});
    const bool counted = doc.is_object() && doc.contains("end") && doc["end"].contains("sum");
    EXPECT_TRUE(counted && SumBytes(doc, "sum") > 0) << doc.dump();
  }
  if (testing::HaveProgram("iperf3")) {
    testing::ProcessResult r =
        testing::RunProcess({"iperf3", "-c", "127.0.0.1", "-p", std::to_string(server.port), "-u",
                             "-P", "4", "-t", "1", "-b", "20M"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  flooding = false;
  flood.join();

  const size_t reflected = Drain(victim, 500);
  std::printf(
      "bytes the server sent to an address that did not open the test: %zu (%llu junk "
      "datagrams sent meanwhile)\n",
      reflected, static_cast<unsigned long long>(junk_sent.load()));
  EXPECT_EQ(reflected, 0u);
  close(victim);
  close(control);
  ExpectBackToBaseline(server.process->pid(), baseline);
}

}  // namespace
}  // namespace nicbench::regress
