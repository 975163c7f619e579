#include "report/compare_report.h"

#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/test_runs.h"

namespace nicbench::report {
namespace {

using analysis::testing::MakeRun;
using analysis::testing::RunShape;

analysis::SetComparison TsoComparison(int runs) {
  std::vector<record::RunRecord> a, b;
  for (int i = 0; i < runs; ++i) {
    RunShape on, off;
    on.busy_percent = 20 + i * 0.1;
    off.busy_percent = 30 + i * 0.1;
    off.tso = false;
    on.bits_per_second = 8e9 + (i % 2) * 1e7;
    off.bits_per_second = 8e9 + ((i + 1) % 2) * 1e7;
    a.push_back(MakeRun(on));
    b.push_back(MakeRun(off));
  }
  std::vector<const record::RunRecord*> pa, pb;
  for (auto& r : a) pa.push_back(&r);
  for (auto& r : b) pb.push_back(&r);
  return analysis::CompareSets(pa, pb);
}

// A fact from a peer's record (its governor, its host name) or a label from the store reaches the
// terminal escaped, never as the control sequence it may hold.
TEST(CompareReport, TextEscapesWhatCameFromPeersAndTheStore) {
  analysis::SetComparison c = TsoComparison(3);
  analysis::FactDifference d;
  d.name = "server.cpu-frequency";
  d.a = {{"cpu1 \x1b]0;owned\x07powersave", 3}};
  d.b = {{"cpu1 performance", 3}};
  d.between = true;
  c.differs.push_back(d);
  const std::string text = RenderCompareText(c, {"label:x=\x1b[2J", {1}}, {"label:x=b", {2}});
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("\\x1b]0;owned"), std::string::npos) << text;
}

TEST(CompareReport, JsonHasNoChangeForNoise) {
  auto j = nlohmann::json::parse(
      RenderCompareJson(TsoComparison(5), {"label:tso=on", {1, 2}}, {"label:tso=off", {3}}));
  EXPECT_EQ(j["a"]["selector"], "label:tso=on");
  bool saw_cpu = false, saw_goodput = false;
  for (const auto& m : j["metrics"]) {
    if (m["key"] == "server_cpu_seconds_per_gigabyte") {
      saw_cpu = true;
      EXPECT_EQ(m["verdict"], "significant");
      EXPECT_NEAR(m["change_percent"].get<double>(), 50, 1);
      EXPECT_EQ(m["name"], "server (receiver) CPU per GB");
      EXPECT_EQ(m["a"]["n"], 5);
    }
    if (m["key"] == "goodput_client_to_server_bits_per_second") {
      saw_goodput = true;
      EXPECT_EQ(m["verdict"], "not significant");
      EXPECT_TRUE(m["change_percent"].is_null());
    }
  }
  EXPECT_TRUE(saw_cpu && saw_goodput);
  ASSERT_FALSE(j["differs"].empty());
  EXPECT_EQ(j["differs"][0]["fact"], "client.offload.tcp-segmentation-offload");
}

TEST(CompareReport, TextSaysTildeAndWhatDiffers) {
  const std::string text = RenderCompareText(TsoComparison(3), {"A-sel", {}}, {"B-sel", {}});
  EXPECT_NE(text.find("~ (too few runs)"), std::string::npos) << text;
  // No change in percent from 3 runs a side (a figure's own unit may be "%": host idle).
  EXPECT_FALSE(std::regex_search(text, std::regex("change [+-][0-9.]+%"))) << text;
  EXPECT_NE(text.find("server.offload.tcp-segmentation-offload"), std::string::npos) << text;
  EXPECT_NE(text.find("on (3)"), std::string::npos) << text;
}

TEST(CompareReport, CsvOneRowPerMetric) {
  const analysis::SetComparison c = TsoComparison(5);
  const std::string csv = RenderCompareCsv(c);
  size_t rows = 0;
  for (char ch : csv) rows += ch == '\n';
  EXPECT_EQ(rows, c.metrics.size() + 1);
  EXPECT_EQ(csv.rfind("metric,unit,a_n,", 0), 0u);
  EXPECT_NE(csv.find(",significant\n"), std::string::npos) << csv;
}

}  // namespace
}  // namespace nicbench::report
