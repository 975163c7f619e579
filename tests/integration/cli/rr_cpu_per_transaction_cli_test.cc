// Request/response runs as the user reads them (issue 27, item 6; docs/rr.md): the summary
// gives each end's CPU time per transaction, never per GB nor in scientific notation;
// `history` shows it as us/tx; the server's log names the test as one and counts its
// transactions; a CRR run does not list its own listener's TcpExt.TCPDeferAcceptDrop under
// "Drops". Real loopback runs against a `nicbench serve` child.
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "store/store_test_backends.h"
#include "support/run_binary.h"
#include "support/text.h"

namespace nicbench {
namespace {

using testing::ProcessResult;

using testing::Has;

// The "Host busy" and "Transfer" rows of every end of a text summary.
std::string CpuRows(const std::string& out) {
  std::istringstream in(out);
  std::string rows;
  for (std::string line; std::getline(in, line);) {
    if (Has(line, "Host busy") || Has(line, "Transfer ")) rows += line + "\n";
  }
  return rows;
}

TEST(RrCpuPerTransactionCli, SummaryHistoryAndServerLogCountTransactions) {
  store::test::TempDir dir;
  const std::string store = dir.path() + "/r.db";
  testing::ServeChild serve = testing::StartServe();
  ProcessResult r = testing::RunNicbench(
      {"run", "127.0.0.1", "-p", std::to_string(serve.port), "--rr", "-t", "1", "--store", store});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string rows = CpuRows(r.out);
  EXPECT_TRUE(Has(rows, "CPU-us per transaction")) << r.out;
  EXPECT_FALSE(Has(rows, "CPU-s/GB")) << rows;
  EXPECT_FALSE(Has(rows, "e+")) << rows;

  ProcessResult history = testing::RunNicbench({"history", "--store", store});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  EXPECT_TRUE(Has(history.out, "tcp rr")) << history.out;
  EXPECT_TRUE(Has(history.out, " us/tx")) << history.out;

  // The log line comes once the test is over on the server's side: waited for.
  ASSERT_TRUE(serve.process->WaitForOutput("nicbench: test ", std::chrono::seconds(30)))
      << serve.process->StderrSoFar();
  const std::string log = serve.process->StderrSoFar();
  EXPECT_TRUE(Has(log, "TCP RR -P 1: ok, ")) << log;
  EXPECT_TRUE(Has(log, "transactions answered")) << log;
  EXPECT_FALSE(Has(log, "bits/sec")) << log;
}

TEST(RrCpuPerTransactionCli, CrrListsNoDeferAcceptDropUnderDrops) {
  testing::ServeChild serve = testing::StartServe();
  // Eight flows share the workers, so their listeners set TCP_DEFER_ACCEPT (a lone flow's does
  // not, engine/rr_crr.cc), which drops each connection's bare handshake ACK by design and
  // counts it in TCPDeferAcceptDrop: 38,000 in such a second on this project's 2-core VM.
  ProcessResult r = testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(serve.port),
                                          "--crr", "-P", "8", "-t", "1", "--no-store"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "Drops")) << r.out;
  EXPECT_FALSE(Has(r.out, "TCPDeferAcceptDrop")) << r.out;
  EXPECT_TRUE(Has(CpuRows(r.out), "CPU-us per transaction")) << r.out;
  ASSERT_TRUE(serve.process->WaitForOutput("nicbench: test ", std::chrono::seconds(30)))
      << serve.process->StderrSoFar();
  EXPECT_TRUE(Has(serve.process->StderrSoFar(), "TCP CRR -P 8: ok, "))
      << serve.process->StderrSoFar();
}

}  // namespace
}  // namespace nicbench
