// Bug (issue 27, item 6): request/response runs were reported as bulk transfers. The summary
// printed CPU per GB (`Host busy 5.22e+04 CPU-s/GB` for 1-byte transactions), `history` showed
// `CPU/GB C 87098.71`, the server's log called an RR test `TCP forward ... 305 Kbits/sec`, and a
// CRR run listed its own listener's TcpExt.TCPDeferAcceptDrop (TCP_DEFER_ACCEPT ignoring bare
// handshake ACKs, by design) under "Drops". They now give CPU per transaction, the server logs
// transactions, and that counter is not a drop.
#include <string>

#include <gtest/gtest.h>

#include "record/json_test_records.h"
#include "report/store_report.h"
#include "report/text_report.h"
#include "support/run_binary.h"
#include "support/text.h"

namespace nicbench::regress {
namespace {

using record::testing::MakeRrRun;

using testing::Has;

TEST(RrFiguresPerGigabyte, TheSummaryGivesCpuPerTransaction) {
  record::RunRecord run = MakeRrRun(record::Transport::kTcp, record::RrMode::kCrr);
  for (auto* end : {&run.local, &run.remote.value()}) {
    for (auto& sample : end->samples) {
      sample.net_counters = std::map<std::string, int64_t>{{"TcpExt.TCPDeferAcceptDrop", 20000},
                                                           {"TcpExt.ListenDrops", 0}};
    }
  }
  const std::string text = report::RenderSummary(run);
  EXPECT_FALSE(Has(text, "CPU-s/GB")) << text;
  EXPECT_TRUE(Has(text, "CPU-us per transaction")) << text;
  EXPECT_TRUE(Has(text, "14.25 CPU-us per transaction")) << text;  // the client's own time
  EXPECT_FALSE(Has(text, "TCPDeferAcceptDrop")) << text;
}

TEST(RrFiguresPerGigabyte, HistoryShowsCpuPerTransaction) {
  store::RunSummary s;
  s.id = 7;
  s.protocol = "tcp";
  s.direction = "forward";
  s.streams = 1;
  s.rr_mode = "rr";
  s.figures.Get("rr_transactions_per_second") = 38147;
  s.figures.Get("client_cpu_seconds_per_gigabyte") = 87098.71;
  s.figures.Get("server_cpu_seconds_per_gigabyte") = 80001.5;
  s.figures.Get("rr_client_process_us_per_transaction") = 14.25;
  s.figures.Get("rr_server_process_us_per_transaction") = 13.5;
  const std::string text = report::RenderHistoryText({s});
  EXPECT_FALSE(Has(text, "87098.71")) << text;
  EXPECT_TRUE(Has(text, "14.25 us/tx")) << text;
  EXPECT_TRUE(Has(text, "13.50 us/tx")) << text;
}

TEST(RrFiguresPerGigabyte, TheServerLogsAnRrTestAsOne) {
  testing::ServeChild serve = testing::StartServe();
  testing::ProcessResult r = testing::RunNicbench(
      {"run", "127.0.0.1", "-p", std::to_string(serve.port), "--rr", "-t", "1", "--no-store"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The log line comes once the test is over on the server's side; waited for, not slept on.
  ASSERT_TRUE(serve.process->WaitForOutput("nicbench: test ", std::chrono::seconds(30)))
      << serve.process->StderrSoFar();
  const std::string log = serve.process->StderrSoFar();
  EXPECT_TRUE(Has(log, "TCP RR -P 1")) << log;
  EXPECT_TRUE(Has(log, "transactions answered")) << log;
  EXPECT_FALSE(Has(log, "forward")) << log;
  EXPECT_FALSE(Has(log, "bits/sec")) << log;
}

}  // namespace
}  // namespace nicbench::regress
