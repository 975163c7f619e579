// UDP junk from the control connection's own address still hijacked the streams: a UDP hello
// was taken only from the test's client's address, but any datagram of at most 4 bytes counted
// as one, so tiny datagrams from that host during `-u -P 4` took the streams' places and the
// real hellos found no test; the stock client hung until the server's set-up deadline. Now a
// hello must have a hello's bytes, and junk is dropped.
#include "regress/hostile_client.h"

#include <atomic>
#include <thread>

namespace nicbench::regress {
namespace {

TEST(ServerUdpJunkFromClientHost, TinyDatagramsFromTheSameAddressTakeNoStream) {
  ServeChild server = StartServe();
  const sockaddr_in port = Loopback("127.0.0.1", server.port);
  std::atomic<bool> flooding{true};
  std::atomic<uint64_t> junk_sent{0};
  std::thread flood([&] {
    int junk = UdpFrom("127.0.0.1");  // the address the tests' control connections come from
    while (flooding) {
      const char bytes[4] = {'x', 'y', 'z', 'w'};
      if (sendto(junk, bytes, 1 + junk_sent % 4, 0, reinterpret_cast<const sockaddr*>(&port),
                 sizeof port) > 0) {
        ++junk_sent;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    close(junk);
  });
  int completed = 0;
  for (int i = 0; i < 3; ++i) {
    testing::ProcessResult r = testing::RunProcess(
        {testing::NicbenchPath(), "run", "127.0.0.1", "-p", std::to_string(server.port), "-u", "-b",
         "10M", "-t", "1", "-P", "4", "-J"},
        "", std::chrono::seconds(60));
    completed += r.exit_code == 0 ? 1 : 0;
    EXPECT_EQ(r.exit_code, 0) << r.err << r.out.substr(0, 1000);
  }
  int stock_completed = -1;
  if (testing::HaveProgram("iperf3")) {
    testing::ProcessResult r =
        testing::RunProcess({"iperf3", "-c", "127.0.0.1", "-p", std::to_string(server.port), "-u",
                             "-P", "4", "-t", "1", "-b", "10M"},
                            "", std::chrono::seconds(60));
    stock_completed = r.exit_code == 0 ? 1 : 0;
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  flooding = false;
  flood.join();
  std::printf(
      "during %llu junk datagrams from the client's address: %d of 3 nicbench -u -P 4 "
      "tests completed, stock iperf3 %d (-1: not installed)\n",
      static_cast<unsigned long long>(junk_sent.load()), completed, stock_completed);
}

}  // namespace
}  // namespace nicbench::regress
