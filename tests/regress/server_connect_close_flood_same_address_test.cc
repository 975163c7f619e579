// A connect/close flood from the client's own address (about 14,000 a second) made 3 of 3 of
// its tests fail, with nothing in the server's log: the flood's connections sat in that
// address's pending quota until their close was read, and the quota's oldest entry, the real
// client's, was the one dropped. Now a connection's first bytes are read as it is accepted (a
// closed one is dropped at once, a cookie routed at once), and the flood is logged once per
// interval with a count.
#include "regress/hostile_client.h"

#include <atomic>
#include <thread>

namespace nicbench::regress {
namespace {

TEST(ServerConnectCloseFlood, TheSameAddressStillSetsUpItsTestsAndTheFloodIsLoggedOnce) {
  ServeChild server = StartServe();
  NormalTest(server.port);
  const ProcStats baseline = ReadProcStats(server.process->pid());
  std::atomic<bool> flooding{true};
  std::atomic<uint64_t> flood_connections{0};
  std::vector<std::thread> flooders;
  for (int t = 0; t < 2; ++t) {
    flooders.emplace_back([&] {
      while (flooding) {
        const int fd = ConnectRaw(server.port);  // 127.0.0.1, as the normal tests
        if (fd >= 0) {
          close(fd);
          ++flood_connections;
        }
      }
    });
  }
  int completed = 0;
  for (int i = 0; i < 3; ++i) {
    testing::ProcessResult r =
        testing::RunProcess({testing::NicbenchPath(), "run", "127.0.0.1", "-p",
                             std::to_string(server.port), "-J", "-n", "1M", "-P", "4"},
                            "", std::chrono::seconds(60));
    completed += r.exit_code == 0 ? 1 : 0;
    // -J puts the client's error in the document: show that member, not the document's start.
    const size_t error_at = r.out.find("\"error\"");
    EXPECT_EQ(r.exit_code, 0) << r.err
                              << r.out.substr(error_at == std::string::npos ? 0 : error_at, 600);
  }
  flooding = false;
  for (std::thread& t : flooders) t.join();
  ExpectBackToBaseline(server.process->pid(), baseline);
  testing::ProcessResult stopped = server.process->Stop();
  const int lines = CountLines(stopped.err, "closed before sending");
  std::printf(
      "%llu connect/close from the client's address: %d of 3 tests completed; %d log "
      "lines about them\n",
      static_cast<unsigned long long>(flood_connections.load()), completed, lines);
  EXPECT_EQ(completed, 3);
  EXPECT_GE(lines, 1) << "the flood left nothing in the server's log";
  EXPECT_LE(lines, 6) << stopped.err.substr(0, 2000);
}

}  // namespace
}  // namespace nicbench::regress
