// serve --max-connections-per-second (issue 32, item 8; docs/protocol.md, "Budgets"): a
// connect/close flood from the client's own address, 127.0.0.1, runs beside that address's real
// tests. The flood goes past its rate at once; its connections are closed as they are
// accepted, the real tests (whose cookies are in when their connections are accepted) still
// set up and complete, and the server's log says the flood once, with a count, instead of a line
// per connection. The flood is bounded (a count and the test's own stop) and prints its rate.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "regress/hostile_client.h"
#include "support/run_binary.h"

namespace nicbench {
namespace {

using Steady = std::chrono::steady_clock;

// Connect/close loops to 127.0.0.1:port on `threads` threads, until Stop or `most` connections.
class Flood {
 public:
  Flood(int port, int threads, uint64_t most) : started_(Steady::now()) {
    for (int t = 0; t < threads; ++t) {
      threads_.emplace_back([this, port, most] {
        while (!stop_ && made_ < most) {
          const int fd = regress::ConnectRaw(port);
          if (fd >= 0) {
            close(fd);
            ++made_;
          }
        }
      });
    }
  }
  ~Flood() { Stop(); }
  uint64_t made() const { return made_; }
  // Stops and joins; the connections made and the flood's length.
  uint64_t Stop() {
    stop_ = true;
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
    if (seconds_ == 0) seconds_ = std::chrono::duration<double>(Steady::now() - started_).count();
    return made_;
  }
  double seconds() const { return seconds_; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> made_{0};
  std::vector<std::thread> threads_;
  Steady::time_point started_;
  double seconds_ = 0;
};

// The counts of the log's count lines for connections closed over the rate.
std::vector<uint64_t> ClosedCounts(const std::string& log) {
  static const std::regex kLine(
      "nicbench: ([0-9]+) more connections over --max-connections-per-second closed");
  std::vector<uint64_t> counts;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), kLine); it != std::sregex_iterator();
       ++it) {
    counts.push_back(std::stoull((*it)[1].str()));
  }
  return counts;
}

TEST(ConnectionRateLimit, AFloodFromTheClientsAddressLeavesItsTestsAndIsSaidOnceWithACount) {
  // 100 a second: a full bucket (1,100, the per-address pending quota) and then the rate.
  testing::ServeChild server = testing::StartServe({"--max-connections-per-second", "100"});
  regress::NormalTest(server.port);
  const regress::ProcStats baseline = regress::ReadProcStats(server.process->pid());
  Flood flood(server.port, 2, 2000000);
  // The real tests start once the server is closing the flood's connections.
  ASSERT_TRUE(server.process->WaitForOutput("come faster than", std::chrono::seconds(60)))
      << server.process->StderrSoFar();
  int completed = 0;
  std::vector<double> seconds;
  for (int i = 0; i < 3; ++i) {
    const auto start = Steady::now();
    testing::ProcessResult r =
        testing::RunProcess({testing::NicbenchPath(), "run", "127.0.0.1", "-p",
                             std::to_string(server.port), "-J", "-n", "1M", "-P", "4"},
                            "", std::chrono::seconds(60));
    seconds.push_back(std::chrono::duration<double>(Steady::now() - start).count());
    completed += r.exit_code == 0 ? 1 : 0;
    // -J: the reason is the document's "error".
    const size_t error = r.out.find("\"error\"");
    EXPECT_EQ(r.exit_code, 0) << r.err << (error == std::string::npos ? "" : r.out.substr(error));
  }
  const uint64_t made = flood.Stop();
  regress::ExpectBackToBaseline(server.process->pid(), baseline);
  testing::ProcessResult stopped = server.process->Stop();
  const std::vector<uint64_t> counts = ClosedCounts(stopped.err);
  uint64_t closed = 1;  // the first, said on its own line
  for (uint64_t n : counts) closed += n;
  std::printf(
      "flood: %llu connect/close in %.1f s (%.0f a second) from 127.0.0.1; %d of 3 tests "
      "completed, each in %.2f %.2f %.2f s; %llu closed over the rate in %zu count lines\n",
      static_cast<unsigned long long>(made), flood.seconds(), made / flood.seconds(), completed,
      seconds[0], seconds[1], seconds[2], static_cast<unsigned long long>(closed), counts.size());
  EXPECT_EQ(completed, 3) << stopped.err;
  EXPECT_EQ(regress::CountLines(stopped.err, "come faster than"), 1) << stopped.err;
  // One count line per 10 s window of the flood, the last when the server stopped.
  EXPECT_GE(counts.size(), 1u) << stopped.err;
  EXPECT_LE(counts.size(), 2 + static_cast<size_t>(flood.seconds() / 10)) << stopped.err;
  // Whatever went past the bucket and the rate was closed at once: at most 1,100 + 100 a second
  // were taken in, and the count cannot exceed what the flood made.
  EXPECT_LE(closed, made);
  EXPECT_GE(closed + 1100 + static_cast<uint64_t>(100 * (flood.seconds() + 1)), made / 2)
      << "most of the flood should have been closed over its rate; " << stopped.err;
}

}  // namespace
}  // namespace nicbench
