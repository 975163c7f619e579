#include "report/html_report.h"

#include <gtest/gtest.h>

#include "analysis/figure_table.h"
#include "record/json_test_records.h"
#include "report/html_model.h"

namespace nicbench::report {
namespace {

using record::testing::MakeTcpRun;

const nlohmann::ordered_json* SeriesOf(const nlohmann::ordered_json& chart,
                                       const std::string& label) {
  for (const auto& s : chart["series"]) {
    if (s["label"] == label) return &s;
  }
  return nullptr;
}

TEST(HtmlModel, ThroughputHasEachStreamAndBothEndsSums) {
  auto charts = ThroughputCharts(MakeTcpRun(true));
  ASSERT_EQ(charts.size(), 1u);  // forward: client -> server only
  const auto& c = charts[0];
  EXPECT_EQ(c["id"], "throughput-up");
  EXPECT_EQ(c["x"].size(), 2u);
  EXPECT_EQ(c["series"].size(), 4u);  // two streams (the receiver's view), two sums
  const auto* client = SeriesOf(c, "sum, client's view");
  const auto* server = SeriesOf(c, "sum, server's view");
  ASSERT_NE(client, nullptr);
  ASSERT_NE(server, nullptr);
  EXPECT_DOUBLE_EQ((*client)["data"][0].get<double>(), 200.0);  // 2 x 12.5 MB in 1 s
  const auto run = MakeTcpRun(true);
  uint64_t bytes = 0;
  for (const auto& st : run.remote.value().intervals[0].streams) bytes += st.bytes;
  EXPECT_DOUBLE_EQ((*server)["data"][0].get<double>(), bytes * 8 / 1e6);
  EXPECT_TRUE((*server)["dash"].get<bool>());
}

TEST(HtmlModel, AStockPeerSaysWhatIsMissingInsteadOfDrawingZeros) {
  auto run = MakeTcpRun(false);
  run.local.samples.clear();  // sampling off, as an older record without samples
  auto m = BuildHtmlModel(run);
  const auto& throughput = m["sections"][0]["charts"][0];
  EXPECT_EQ(throughput["series"].size(), 3u);  // the client's two streams and its sum
  EXPECT_NE(throughput["note"].get<std::string>().find("not reported"), std::string::npos);
  EXPECT_TRUE(m["sections"][1]["charts"].empty());
  EXPECT_NE(m["sections"][1]["note"].get<std::string>().find("no CPU samples"), std::string::npos);
  EXPECT_EQ(m["facts"]["rows"][0][2], "not reported");
  EXPECT_FALSE(RenderHtml(run).empty());
}

// The figures table is the table of figures: every bulk row, in its order, unknown with why.
TEST(HtmlModel, FiguresAreTheTableOfFigures) {
  auto run = MakeTcpRun(true);
  const auto rows = FigureRows(run);
  size_t bulk = 0;
  for (const analysis::Figure& f : analysis::Figures())
    bulk += f.group == analysis::FigureGroup::kBulk;
  ASSERT_EQ(rows.size(), bulk);
  EXPECT_EQ(rows[0][3], "sender_bits_per_second");
  bool reverse_unknown = false;
  for (const auto& row : rows) {
    if (row[3] == "goodput_server_to_client_bits_per_second") {
      reverse_unknown = row[1] == "unknown (not present: no data in this direction)";
    }
  }
  EXPECT_TRUE(reverse_unknown);
  EXPECT_NE(RenderHtml(run).find("id=\"figures\""), std::string::npos);
}

TEST(HtmlModel, FactsThatDifferAreMarked) {
  auto run = MakeTcpRun(true);
  run.remote.value().host.kernel = std::string("6.12.0");
  bool kernel_marked = false, model_unmarked = false;
  for (const auto& row : FactRows(run)) {
    if (row[0] == "host.kernel") kernel_marked = row[3].get<bool>();
    if (row[0] == "host.cpu_count") model_unmarked = !row[3].get<bool>();
  }
  EXPECT_TRUE(kernel_marked);
  EXPECT_TRUE(model_unmarked);
}

TEST(HtmlModel, UnderLoadHasTheQuantilesAndTheQueuesOverTime) {
  record::RunRecord run = MakeTcpRun(true);
  record::RrStats probes;
  probes.transactions = 10;
  probes.latency = record::LatencySummary{10, 2000, 1000, 2000, 3000, 3000, 3000, 3000};
  probes.latency_buckets = std::vector<record::LatencyBucket>{{1000, 5}, {3000, 5}};
  record::UnderLoad u;
  u.idle.kept = probes;
  u.loaded.kept = probes;
  u.loaded.fresh = record::Measured<record::RrStats>::Unknown(record::Missing::kError, "refused");
  run.under_load = u;
  for (auto& s : run.local.samples) s.queues = record::QueueSample{"tbf", 125000, 80, 0, {}};
  const auto m = BuildHtmlModel(run);
  const nlohmann::ordered_json* section = nullptr;
  for (const auto& s : m["sections"]) {
    if (s["id"] == "latency") section = &s;
  }
  ASSERT_NE(section, nullptr) << m["sections"].dump();
  const auto& quantiles = (*section)["charts"][0];
  EXPECT_EQ(quantiles["x"].front(), "p10");
  EXPECT_EQ(quantiles["x"].back(), "max");
  const auto* loaded = SeriesOf(quantiles, "request, loaded");
  ASSERT_NE(loaded, nullptr);
  EXPECT_DOUBLE_EQ((*loaded)["data"][0].get<double>(), 1.0);  // p10 of 1 and 3 ms
  EXPECT_DOUBLE_EQ((*loaded)["data"].back().get<double>(), 3.0);
  // The handshake that was refused is null, not 0.
  EXPECT_TRUE((*SeriesOf(quantiles, "handshake, loaded"))["data"][0].is_null());
  const auto& queues = (*section)["charts"][1];
  ASSERT_FALSE(queues["series"].empty()) << queues.dump();
  EXPECT_EQ(queues["series"][0]["label"], "client qdisc tbf");
  // No timestamps (a stock iperf3): the one-way chart is there, its values null, not 0.
  const auto& one_way = (*section)["charts"][2];
  EXPECT_EQ(one_way["id"], "latency-one-way");
  EXPECT_TRUE((*SeriesOf(one_way, "up, loaded"))["data"][0].is_null()) << one_way.dump();
  // With them: up and down each have their own distribution.
  probes.up = probes.latency;
  probes.up_buckets = std::vector<record::LatencyBucket>{{4000, 10}};
  probes.down = probes.latency;
  probes.down_buckets = std::vector<record::LatencyBucket>{{500, 10}};
  run.under_load->loaded.kept = probes;
  run.under_load->loaded.clock = record::ClockOffset{10.0, 20.0, 16, 4, false};
  const auto stamped = BuildHtmlModel(run);
  for (const auto& s : stamped["sections"]) {
    if (s["id"] != "latency") continue;
    const auto& chart = s["charts"][2];
    EXPECT_DOUBLE_EQ((*SeriesOf(chart, "up, loaded"))["data"][0].get<double>(), 4.0);
    EXPECT_DOUBLE_EQ((*SeriesOf(chart, "down, loaded"))["data"][0].get<double>(), 0.5);
    EXPECT_NE(chart["note"].get<std::string>().find("+- 0.020 ms"), std::string::npos)
        << chart["note"];
  }
  EXPECT_FALSE(RenderHtml(run).empty());
}

TEST(HtmlReport, PeerTextCannotEndTheDataScriptOrAddMarkup) {
  auto run = MakeTcpRun(true);
  run.remote.value().host.hostname = std::string("</script><script>alert(1)</script>");
  run.findings.push_back(record::testing::MakeFinding(record::Severity::kWarning, "x"));
  run.findings.back().title = "<b>bold</b> & more";
  const std::string page = RenderHtml(run);
  EXPECT_EQ(page.find("<script>alert(1)"), std::string::npos);
  EXPECT_NE(page.find("&lt;b&gt;bold&lt;/b&gt; &amp; more"), std::string::npos);
  EXPECT_NE(page.find(std::string("content=\"") + kHtmlCsp + "\""), std::string::npos);
  EXPECT_NE(page.find("Chart.js v3"), std::string::npos);  // the library is inline
}

// A 60 s test at 1 s intervals, both ends with 16 cores and 20 interrupt lines, stays well
// under 1 MB.
TEST(HtmlReport, ASixtySecondTwoEndRunIsUnderOneMegabyte) {
  auto run = MakeTcpRun(true);
  auto grow = [](record::EndpointRecord& end) {
    record::HostInterval base = end.samples.at(0);
    std::vector<record::CpuShare> cpus;
    for (int c = 0; c < 16; ++c) cpus.push_back({c, 11.1, 0, 22.2, 44.4, 0, 3.3, 19.9, 0});
    base.cpus = cpus;
    std::vector<record::IrqRate> irqs;
    for (int i = 0; i < 20; ++i) {
      irqs.push_back({std::to_string(40 + i), "eth0-TxRx-" + std::to_string(i), "PCI-MSIX", true,
                      "TxRx-" + std::to_string(i), std::vector<uint64_t>(16, 1234), 19744, 19744});
    }
    base.irqs = irqs;
    end.samples.clear();
    for (int s = 0; s < 60; ++s) {
      base.start = s;
      base.end = s + 1;
      end.samples.push_back(base);
    }
  };
  grow(run.local);
  grow(run.remote.value());
  auto stretch = [](std::vector<record::IntervalRecord>& intervals) {
    record::IntervalRecord base = intervals.at(0);
    intervals.clear();
    for (int s = 0; s < 60; ++s) {
      for (auto& st : base.streams) {
        st.start = s;
        st.end = s + 1;
      }
      base.start = s;
      base.end = s + 1;
      intervals.push_back(base);
    }
  };
  stretch(run.intervals);
  stretch(run.local.intervals);
  stretch(run.remote.value().intervals);
  const std::string page = RenderHtml(run);
  EXPECT_LT(page.size(), 1000000u) << page.size();
  RecordProperty("page_bytes", static_cast<int>(page.size()));
  auto m = BuildHtmlModel(run);
  EXPECT_EQ(m["sections"][1]["charts"].size(), 32u);  // 16 cores x 2 ends
  EXPECT_EQ(m["sections"][2]["charts"][0]["series"].size(), kHtmlMaxIrqLines);
}

}  // namespace
}  // namespace nicbench::report
