// The request/response figures in the reports beyond text and -J: history's table (text, JSON,
// CSV), show's intervals CSV, compare's metrics (text, JSON, CSV) and the HTML report's model;
// bulk runs keep their shape.
#include <algorithm>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/compare_sets.h"
#include "record/json_test_records.h"
#include "report/compare_report.h"
#include "report/html_model.h"
#include "report/html_report.h"
#include "report/store_report.h"

namespace nicbench::report {
namespace {

using record::testing::MakeRrRun;
using record::testing::MakeTcpRun;

store::RunSummary RrRunSummary() {
  store::RunSummary s;
  s.id = 7;
  s.timestamp = "2026-11-30T09:02:48Z";
  s.client_host = "h1";
  s.server_host = "h2";
  s.direction = "forward";
  s.protocol = "udp";
  s.streams = 1;
  s.rr_mode = "rr";
  s.figures.Get("rr_transactions_per_second") = 27254.3;
  s.figures.Get("rr_latency_p50_us") = 35.1;
  s.figures.Get("rr_latency_p99_us") = 55.6;
  s.figures.Get("rr_lost") = 3;
  s.figures.Get("rr_client_process_us_per_transaction") = 14.2;
  return s;
}

store::RunSummary BulkSummary() {
  store::RunSummary s;
  s.id = 6;
  s.protocol = "tcp";
  s.direction = "forward";
  s.figures.Get("receiver_bits_per_second") = 941e6;
  return s;
}

TEST(RrHistory, TextShowsTransactionsPerSecondAndTheMode) {
  const std::string text = RenderHistoryText({RrRunSummary(), BulkSummary()});
  EXPECT_NE(text.find("udp rr"), std::string::npos) << text;
  EXPECT_NE(text.find("27254 tx/s"), std::string::npos) << text;
  EXPECT_NE(text.find("941 Mbits/sec"), std::string::npos) << text;
}

TEST(RrHistory, JsonHasAnRrMemberOnlyForRequestResponseRuns) {
  auto doc = nlohmann::json::parse(RenderHistoryJson({RrRunSummary(), BulkSummary()}));
  const auto& rr = doc["runs"][0]["rr"];
  EXPECT_EQ(rr["mode"], "rr");
  EXPECT_DOUBLE_EQ(rr["transactions_per_second"].get<double>(), 27254.3);
  EXPECT_DOUBLE_EQ(rr["latency_p50_us"].get<double>(), 35.1);
  EXPECT_TRUE(rr["latency_p90_us"].is_null());
  EXPECT_DOUBLE_EQ(rr["lost"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(rr["client_process_us_per_transaction"].get<double>(), 14.2);
  EXPECT_FALSE(doc["runs"][1].contains("rr"));
}

TEST(RrHistory, CsvHasTheRrColumnsOnlyWhenARunHasThem) {
  const std::string bulk = RenderHistoryCsv({BulkSummary()});
  EXPECT_EQ(bulk.find("rr_"), std::string::npos) << bulk;
  const std::string csv = RenderHistoryCsv({RrRunSummary(), BulkSummary()});
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find(",labels,rr_mode,rr_transactions_per_second,rr_latency_p50_us,"),
            std::string::npos)
      << header;
  EXPECT_NE(csv.find(",rr,27254.3,35.1,,55.6,,,,,,3,,14.2,,,\n"), std::string::npos) << csv;
  // The bulk run's row has the same number of cells, the rr ones empty.
  const std::string last = csv.substr(csv.rfind('\n', csv.size() - 2) + 1);
  EXPECT_EQ(std::count(last.begin(), last.end(), ','),
            std::count(header.begin(), header.end(), ','))
      << last;
}

TEST(RrShow, IntervalsCsvHasTheTransactionsAndPercentilesOfEachInterval) {
  const std::string csv = RenderIntervalsCsv(5, MakeRrRun(record::Transport::kUdp));
  EXPECT_EQ(csv.rfind("run_id,end,role,interval_start,interval_end,omitted,transactions,"
                      "transactions_per_second,lost,late,latency_p50_us,",
                      0),
            0u)
      << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 2 * 2) << csv;  // 2 intervals, 2 ends
  // The client's second interval: 21000 transactions, p50 41 us, no connect times (not CRR).
  EXPECT_NE(csv.find("\n5,local,client,1,2,0,21000,21000,3,1,41,51,71,101,941,46,,,,,,\n"),
            std::string::npos)
      << csv;
  // The server answers and does not time.
  EXPECT_NE(csv.find("\n5,remote,server,0,1,0,20001,20001,0,0,,,,,,,,,,,,\n"), std::string::npos)
      << csv;
}

TEST(RrShow, TcpHasNoLossCellsAndCrrHasConnectTimes) {
  const std::string csv =
      RenderIntervalsCsv(1, MakeRrRun(record::Transport::kTcp, record::RrMode::kCrr));
  EXPECT_NE(csv.find("\n1,local,client,0,1,0,20000,20000,,,40,50,70,100,940,45,11,14,20,31,400,"
                     "12\n"),
            std::string::npos)
      << csv;
}

analysis::SetComparison RrComparison(int runs) {
  std::vector<record::RunRecord> a, b;
  for (int i = 0; i < runs; ++i) {
    a.push_back(MakeRrRun());
    b.push_back(MakeRrRun());
    // The same 41000 transactions (so the same CPU per transaction) at 20000 + i and 30000 + i
    // transactions/s.
    a.back().rr->local.seconds = 41000.0 / (20000 + i);
    b.back().rr->local.seconds = 41000.0 / (30000 + i);
    b.back().rr->local.latency->p99_us = 90 + i * 0.1;
  }
  std::vector<const record::RunRecord*> pa, pb;
  for (auto& r : a) pa.push_back(&r);
  for (auto& r : b) pb.push_back(&r);
  return analysis::CompareSets(pa, pb);
}

const analysis::MetricComparison* MetricOf(const analysis::SetComparison& c,
                                           const std::string& key) {
  for (const auto& m : c.metrics) {
    if (m.metric->key == key) return &m;
  }
  return nullptr;
}

TEST(RrCompare, TransactionsAndPercentilesAreMetrics) {
  const analysis::SetComparison c = RrComparison(5);
  const auto* tps = MetricOf(c, "rr_transactions_per_second");
  ASSERT_NE(tps, nullptr);
  EXPECT_EQ(tps->comparison.verdict, analysis::Verdict::kSignificant);
  ASSERT_TRUE(tps->comparison.b.has_value());
  EXPECT_DOUBLE_EQ(tps->comparison.b->median, 30002);
  for (const char* key :
       {"rr_latency_p50_us", "rr_latency_p90_us", "rr_latency_p99_us", "rr_latency_p99_9_us",
        "rr_latency_max_us", "rr_latency_mean_us", "rr_client_process_us_per_transaction",
        "rr_server_host_us_per_transaction"}) {
    EXPECT_NE(MetricOf(c, key), nullptr) << key;
  }
  EXPECT_EQ(MetricOf(c, "rr_connect_p50_us"), nullptr) << "not a CRR test";
  EXPECT_EQ(MetricOf(c, "rr_lost"), nullptr) << "not UDP";
  // Goodput and cost per GB of a few bytes per round trip are left out; TCP's RTT stays.
  EXPECT_EQ(MetricOf(c, "goodput_client_to_server_bits_per_second"), nullptr);
  EXPECT_EQ(MetricOf(c, "client_cpu_seconds_per_gigabyte"), nullptr);
  EXPECT_NE(MetricOf(c, "mean_rtt_us"), nullptr);

  const std::string text = RenderCompareText(c, {"A", {}}, {"B", {}});
  EXPECT_NE(text.find("transactions/s\n"), std::string::npos) << text;
  EXPECT_NE(text.find("30002.0 tx/s [30000.0 .. 30004.0] n=5"), std::string::npos) << text;
  EXPECT_NE(text.find("latency p99\n"), std::string::npos) << text;
  EXPECT_NE(text.find("90.2 us [90.0 .. 90.4] n=5"), std::string::npos) << text;
  EXPECT_NE(text.find("client CPU per transaction (process)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("14.25 us/tx"), std::string::npos) << text;

  const std::string csv = RenderCompareCsv(c);
  EXPECT_NE(csv.find("\ntransactions/s,tx/s,5,20002,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nlatency p99,us,5,70.5,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nclient CPU per transaction (process),us/tx,5,14.25,"), std::string::npos)
      << csv;
  auto j = nlohmann::json::parse(RenderCompareJson(c, {"A", {}}, {"B", {}}));
  bool saw = false;
  for (const auto& m : j["metrics"]) saw = saw || m["key"] == "rr_latency_p50_us";
  EXPECT_TRUE(saw);
}

TEST(RrCompare, BulkRunsHaveNoRrMetric) {
  record::RunRecord run = MakeTcpRun();
  const analysis::SetComparison c = analysis::CompareSets({&run}, {&run});
  for (const auto& m : c.metrics) EXPECT_FALSE(analysis::IsRrMetric(*m.metric)) << m.metric->key;
  // A bulk set against a request/response set: both kinds of metric.
  record::RunRecord rr = MakeRrRun();
  const analysis::SetComparison mixed = analysis::CompareSets({&run}, {&rr});
  EXPECT_NE(MetricOf(mixed, "goodput_client_to_server_bits_per_second"), nullptr);
  EXPECT_NE(MetricOf(mixed, "rr_transactions_per_second"), nullptr);
}

const nlohmann::ordered_json* ChartOf(const nlohmann::ordered_json& model, const std::string& id) {
  for (const auto& section : model["sections"]) {
    for (const auto& c : section["charts"]) {
      if (c["id"] == id) return &c;
    }
  }
  return nullptr;
}

std::string SummaryValue(const nlohmann::ordered_json& model, const std::string& name) {
  for (const auto& row : model["summary"]) {
    if (row[0] == name) return row[1].get<std::string>();
  }
  return "";
}

TEST(RrHtml, TransactionsAndPercentilesPerIntervalInPlaceOfThroughput) {
  const auto m = BuildHtmlModel(MakeRrRun());
  EXPECT_EQ(m["sections"][0]["id"], "transactions");
  EXPECT_EQ(ChartOf(m, "throughput-up"), nullptr);
  const auto* tps = ChartOf(m, "rr-tps");
  ASSERT_NE(tps, nullptr);
  ASSERT_EQ(tps->at("series").size(), 2u);  // each end's count
  EXPECT_EQ(tps->at("series")[0]["label"], "client's count");
  EXPECT_DOUBLE_EQ(tps->at("series")[0]["data"][1].get<double>(), 21000);
  EXPECT_DOUBLE_EQ(tps->at("series")[1]["data"][0].get<double>(), 20001);
  const auto* latency = ChartOf(m, "rr-latency");
  ASSERT_NE(latency, nullptr);
  ASSERT_EQ(latency->at("series").size(), 3u);  // p50, p90, p99; the tail on its own chart
  EXPECT_EQ(latency->at("series")[2]["label"], "p99");
  EXPECT_DOUBLE_EQ(latency->at("series")[0]["data"][0].get<double>(), 40);
  EXPECT_DOUBLE_EQ(latency->at("series")[2]["data"][1].get<double>(), 71);
  const auto* tail = ChartOf(m, "rr-latency-tail");
  ASSERT_NE(tail, nullptr);
  ASSERT_EQ(tail->at("series").size(), 2u);
  EXPECT_EQ(tail->at("series")[1]["label"], "max");
  EXPECT_DOUBLE_EQ(tail->at("series")[0]["data"][1].get<double>(), 101);
  EXPECT_DOUBLE_EQ(tail->at("series")[1]["data"][1].get<double>(), 941);
  EXPECT_EQ(ChartOf(m, "rr-connect"), nullptr);
  EXPECT_EQ(ChartOf(m, "rr-loss"), nullptr);
  EXPECT_NE(ChartOf(m, "tcp-rtt-client"), nullptr) << "TCP_INFO of the flow as for bulk";

  EXPECT_EQ(SummaryValue(m, "transactions"), "41000 (server answered 41002)");
  EXPECT_EQ(SummaryValue(m, "transactions/s"), "20500.0");
  EXPECT_EQ(SummaryValue(m, "latency p50"), "40.5 us");
  EXPECT_EQ(SummaryValue(m, "latency p99.9"), "100.5 us");
  EXPECT_EQ(SummaryValue(m, "latency max"), "940.5 us");
  EXPECT_EQ(SummaryValue(m, "CPU per transaction, client"),
            "14.25 us (nicbench process), 36.50 us (whole host)");
  EXPECT_EQ(SummaryValue(m, "CPU per transaction, server"),
            "13.50 us (nicbench process), 36.25 us (whole host)");
  const std::string page = RenderHtml(MakeRrRun());
  EXPECT_NE(page.find("<dt>latency p99</dt><dd>70.5 us</dd>"), std::string::npos);
}

TEST(RrHtml, CrrHasConnectTimesAndUdpItsLoss) {
  const auto crr = BuildHtmlModel(MakeRrRun(record::Transport::kTcp, record::RrMode::kCrr));
  const auto* connect = ChartOf(crr, "rr-connect");
  ASSERT_NE(connect, nullptr);
  EXPECT_DOUBLE_EQ(connect->at("series")[0]["data"][0].get<double>(), 11);
  ASSERT_NE(ChartOf(crr, "rr-connect-tail"), nullptr);
  EXPECT_DOUBLE_EQ(ChartOf(crr, "rr-connect-tail")->at("series")[1]["data"][0].get<double>(), 400);
  EXPECT_EQ(SummaryValue(crr, "connect p50"), "11.0 us");
  const auto udp = BuildHtmlModel(MakeRrRun(record::Transport::kUdp));
  const auto* loss = ChartOf(udp, "rr-loss");
  ASSERT_NE(loss, nullptr);
  EXPECT_DOUBLE_EQ(loss->at("series")[0]["data"][0].get<double>(), 3);
  EXPECT_DOUBLE_EQ(loss->at("series")[1]["data"][0].get<double>(), 1);
  EXPECT_EQ(SummaryValue(udp, "lost / late"), "6 / 2");
}

TEST(RrHtml, BulkRunsKeepTheirThroughputSection) {
  const auto m = BuildHtmlModel(MakeTcpRun());
  EXPECT_EQ(m["sections"][0]["id"], "throughput");
  EXPECT_EQ(ChartOf(m, "rr-tps"), nullptr);
  EXPECT_EQ(SummaryValue(m, "transactions"), "");
}

}  // namespace
}  // namespace nicbench::report
