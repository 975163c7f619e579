// One request must not take the server's memory: `-R -P 128 -l 16M` from a client that never
// reads made the server allocate a 16 MiB payload per stream (2 GB of RSS from one client).
// Now a sending test's payload is one read-only buffer shared by its streams, and a request
// whose buffers would exceed the server's memory budget (--max-memory) is refused with
// SERVER_ERROR before anything is allocated. A normal test completes during the attack, and
// the server's RSS, descriptors and threads return to their baseline afterwards. (Receivers
// share one buffer per worker thread, so a forward `-P 128 -l 16M` needs 16 MiB per worker:
// the budget here is set low enough that it cannot fit beside the reverse test on any host.)
#include "regress/hostile_client.h"

namespace nicbench::regress {
namespace {

constexpr char kHugeParams[] =
    R"({"tcp":true,"omit":0,"time":60,"num":0,"blockcount":0,"parallel":128,"len":16777216,)"
    R"("pacing_timer":1000,"client_version":"3.12")";

TEST(ServerMemoryBudget, SharedPayloadAndRefusalBeforeAllocation) {
  ServeChild server = StartServe({"--max-memory", "24M"});
  NormalTest(server.port);
  const ProcStats baseline = ReadProcStats(server.process->pid());

  // A reverse test: 128 sending streams of 16 MiB blocks that the client never reads.
  const std::string cookie = MakeCookie(1);
  int control =
      OpenTest(server.port, cookie, std::string(kHugeParams) + R"(,"reverse":true})", "127.0.0.2");
  ASSERT_GE(control, 0);
  ASSERT_EQ(ReadStateByte(control), 10);  // CREATE_STREAMS
  std::vector<int> streams = OpenStreams(server.port, cookie, 128, "127.0.0.2");
  ASSERT_EQ(streams.size(), 128u);
  EXPECT_EQ(ReadStateByte(control), 1);  // TEST_START: every flow and its buffers exist now
  EXPECT_EQ(ReadStateByte(control), 2);  // TEST_RUNNING
  const ProcStats attacked = ReadProcStats(server.process->pid());
  std::printf("reverse -P 128 -l 16M held: %s (baseline %s)\n", Describe(attacked).c_str(),
              Describe(baseline).c_str());
  EXPECT_LT(attacked.rss_kb - baseline.rss_kb, 64 * 1024 + kRssMarginKb) << Describe(attacked);

  // A forward one needs at least one more 16 MiB receive buffer: beyond the 24 MiB budget
  // beside the reverse test's payload, so refused before any allocation.
  int greedy = OpenTest(server.port, MakeCookie(2), std::string(kHugeParams) + "}", "127.0.0.3");
  ASSERT_GE(greedy, 0);
  EXPECT_EQ(ReadStateByte(greedy), -2);  // SERVER_ERROR
  const int i_errno = ReadInt32(greedy);
  const int sys_errno = ReadInt32(greedy);
  EXPECT_EQ(i_errno, 100) << "IENEWTEST";
  EXPECT_EQ(sys_errno, ENOMEM);
  close(greedy);
  EXPECT_LT(ReadProcStats(server.process->pid()).rss_kb - baseline.rss_kb,
            64 * 1024 + kRssMarginKb);

  // Meanwhile a normal client completes its test.
  auto doc = NormalTest(server.port);
  EXPECT_EQ(SumBytes(doc, "sum_received"), 1048576u);

  CloseAll(streams);
  close(control);
  ExpectBackToBaseline(server.process->pid(), baseline);
  testing::ProcessResult stopped = server.process->Stop();
  EXPECT_NE(stopped.err.find("memory budget"), std::string::npos) << stopped.err;
}

}  // namespace
}  // namespace nicbench::regress
