// The per-address and per-subnet limits (serve --max-tests-per-client, --max-tests-per-subnet,
// --deny; docs/security.md), each with a normal client completing a test from another address
// while the refused one hammers the server, and the server's descriptors, threads and RSS back
// at their baseline afterwards. 127.0.0.0/8 is all loopback, so 127.0.1.1 and 127.0.2.1 stand
// for clients of two /24 subnets (the client binds with -B).
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "regress/hostile_client.h"
#include "support/run_binary.h"

namespace nicbench {
namespace {

using regress::ProcStats;
using testing::ProcessResult;

using testing::RunFrom;

// A test from `source` that runs (slowly: -b 1M) until it is stopped, holding its slot.
std::unique_ptr<testing::BackgroundProcess> HoldSlot(int port, const std::string& source) {
  auto holder = std::make_unique<testing::BackgroundProcess>(std::vector<std::string>{
      testing::NicbenchPath(), "run", "127.0.0.1", "-p", std::to_string(port), "-B", source, "-t",
      "120", "-b", "1M", "-i", "0.5"});
  EXPECT_TRUE(holder->WaitForOutput("sec", std::chrono::seconds(60)))
      << holder->StdoutSoFar() << holder->StderrSoFar();
  return holder;
}

// A refused client that keeps trying from `source` until `stop`: each try a new control
// connection with a fresh cookie, which gets ACCESS_DENIED. Counts the refusals it heard.
class Hammer {
 public:
  Hammer(int port, std::string source) {
    thread_ = std::thread([this, port, source] {
      for (int n = 0; !stop_; ++n) {
        const int fd = regress::ConnectFrom(source, port);
        if (fd < 0) continue;
        const std::string cookie = regress::MakeCookie(n);
        if (regress::SendAll(fd, cookie.data(), cookie.size()) &&
            regress::ReadStateByte(fd, 5000) == -1) {
          ++refused_;
        }
        close(fd);
      }
    });
  }
  ~Hammer() { Stop(); }
  // Waits for the first refusal: the hammer is then at work, whatever the time it took to start.
  bool WaitRefused() {
    return testing::WaitUntil([this] { return refused_ > 0; });
  }
  int Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return refused_;
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int> refused_{0};
  std::thread thread_;
};

// The server's figures once a first test has run (its first test's thread stacks and buffers
// stay with the allocator), from a third address: descriptors and threads as when it was idle
// before, RSS as the warm-up test left it.
ProcStats WarmBaseline(const testing::ServeChild& server) {
  const pid_t pid = server.process->pid();
  const ProcStats idle = regress::ReadProcStats(pid);
  ProcessResult warm = RunFrom(server.port, "127.0.0.1");
  EXPECT_EQ(warm.exit_code, 0) << warm.err;
  ProcStats baseline;
  EXPECT_TRUE(testing::WaitUntil([&] {
    baseline = regress::ReadProcStats(pid);
    return baseline.fds == idle.fds && baseline.threads == idle.threads;
  })) << "idle "
      << regress::Describe(idle) << "; after a test " << regress::Describe(baseline);
  return baseline;
}

// Descriptors and threads exactly as before (after waiting for the tests' ends), RSS within
// the margin of hostile_client.h.
void ExpectBaseline(pid_t pid, const ProcStats& baseline) {
  const ProcStats after = regress::WaitForBaseline(pid, baseline);
  EXPECT_EQ(after.fds, baseline.fds)
      << "baseline " << regress::Describe(baseline) << "; after " << regress::Describe(after);
  EXPECT_EQ(after.threads, baseline.threads) << regress::Describe(after);
  EXPECT_LE(after.rss_kb, baseline.rss_kb + 16384 + regress::kRssMarginKb)
      << regress::Describe(after);
}

TEST(AccessLimits, SubnetLimitRefusesTheSameSubnetAndServesAnother) {
  testing::ServeChild server = testing::StartServe({"--max-tests-per-subnet", "1"});
  const ProcStats baseline = WarmBaseline(server);
  auto holder = HoldSlot(server.port, "127.0.1.1");
  // Another address of 127.0.1.0/24: refused as a busy iperf3 refuses.
  ProcessResult same = RunFrom(server.port, "127.0.1.2");
  EXPECT_EQ(same.exit_code, 1) << same.out << same.err;
  EXPECT_NE(same.err.find("busy"), std::string::npos) << same.err;
  {
    Hammer hammer(server.port, "127.0.1.3");
    ASSERT_TRUE(hammer.WaitRefused()) << "the hammer was never refused";
    ProcessResult other = RunFrom(server.port, "127.0.2.1");
    EXPECT_EQ(other.exit_code, 0) << other.out << other.err;
    EXPECT_GT(hammer.Stop(), 0) << "the hammer was never refused";
  }
  holder->Stop(SIGINT);
  ExpectBaseline(server.process->pid(), baseline);
  // The subnet's slot is free again.
  ProcessResult again = RunFrom(server.port, "127.0.1.2");
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  server.process->Stop(SIGTERM);
}

TEST(AccessLimits, SubnetPrefixLengthSaysWhatASubnetIs) {
  testing::ServeChild server =
      testing::StartServe({"--max-tests-per-subnet", "1", "--subnet-prefix-v4", "16"});
  auto holder = HoldSlot(server.port, "127.0.1.1");
  // 127.0.2.1 is in 127.0.0.0/16 too.
  ProcessResult same = RunFrom(server.port, "127.0.2.1");
  EXPECT_EQ(same.exit_code, 1) << same.out << same.err;
  EXPECT_NE(same.err.find("busy"), std::string::npos) << same.err;
  ProcessResult other = RunFrom(server.port, "127.1.0.1");
  EXPECT_EQ(other.exit_code, 0) << other.out << other.err;
  holder->Stop(SIGINT);
  server.process->Stop(SIGTERM);
}

TEST(AccessLimits, StockClientHearsBusyFromTheSubnetLimit) {
  if (!testing::HaveProgram("iperf3")) GTEST_SKIP() << "iperf3 is not installed";
  testing::ServeChild server = testing::StartServe({"--max-tests-per-subnet", "1"});
  auto holder = HoldSlot(server.port, "127.0.1.1");
  ProcessResult r =
      testing::RunProcess({"iperf3", "-c", "127.0.0.1", "-p", std::to_string(server.port), "-B",
                           "127.0.1.2", "-n", "1M"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE((r.out + r.err).find("the server is busy running a test"), std::string::npos)
      << r.out << r.err;
  holder->Stop(SIGINT);
  server.process->Stop(SIGTERM);
}

TEST(AccessLimits, PerClientLimitHoldsUnderAHammerAndLeavesNothingBehind) {
  testing::ServeChild server = testing::StartServe({"--max-tests-per-client", "1"});
  const ProcStats baseline = WarmBaseline(server);
  auto holder = HoldSlot(server.port, "127.0.0.2");
  ProcessResult second = RunFrom(server.port, "127.0.0.2");
  EXPECT_EQ(second.exit_code, 1) << second.out << second.err;
  EXPECT_NE(second.err.find("busy"), std::string::npos) << second.err;
  {
    Hammer hammer(server.port, "127.0.0.2");
    ASSERT_TRUE(hammer.WaitRefused()) << "the hammer was never refused";
    ProcessResult other = RunFrom(server.port, "127.0.0.3");
    EXPECT_EQ(other.exit_code, 0) << other.out << other.err;
    EXPECT_GT(hammer.Stop(), 0);
  }
  holder->Stop(SIGINT);
  ExpectBaseline(server.process->pid(), baseline);
  server.process->Stop(SIGTERM);
}

TEST(AccessLimits, DeniedHammerLeavesNothingBehind) {
  testing::ServeChild server = testing::StartServe({"--deny", "127.0.0.2/32"});
  const ProcStats baseline = WarmBaseline(server);
  {
    Hammer hammer(server.port, "127.0.0.2");
    ASSERT_TRUE(hammer.WaitRefused()) << "the hammer was never refused";
    ProcessResult other = RunFrom(server.port, "127.0.0.3");
    EXPECT_EQ(other.exit_code, 0) << other.out << other.err;
    EXPECT_GT(hammer.Stop(), 0);
  }
  ExpectBaseline(server.process->pid(), baseline);
  server.process->Stop(SIGTERM);
}

}  // namespace
}  // namespace nicbench
