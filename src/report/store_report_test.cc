#include "report/store_report.h"
#include <algorithm>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "record/json_test_records.h"
#include "report/csv.h"
#include "report/text_report.h"

namespace nicbench::report {
namespace {

store::RunSummary Summary() {
  store::RunSummary s;
  s.id = 12;
  s.timestamp = "2026-11-30T09:02:48Z";
  s.timestamp_secs = 1796029368;
  s.client_host = "h1";
  s.peer = "198.18.0.2";
  s.direction = "bidirectional";
  s.protocol = "tcp";
  s.streams = 4;
  s.duration_seconds = 10;
  s.figures.Get("receiver_bits_per_second") = 941e6;
  s.figures.Get("client_cpu_seconds_per_gigabyte") = 1.234;
  s.figures.Get("retransmits") = 7;
  s.top_finding = "link-rate-limited";
  s.top_severity = "warning";
  s.labels = {{"nic", "re0"}, {"note", "a, b"}};
  return s;
}

TEST(HistoryReport, TextHasOneAlignedLinePerRunAndDashesForUnknowns) {
  const std::string text = RenderHistoryText({Summary()});
  EXPECT_NE(text.find("ID  TIME (UTC)"), std::string::npos) << text;
  EXPECT_NE(text.find("12  2026-11-30 09:02:48  h1 -> 198.18.0.2  bidir"), std::string::npos)
      << text;
  EXPECT_NE(text.find("941 Mbits/sec"), std::string::npos) << text;
  EXPECT_NE(text.find("1.23         -     7  warning link-rate-limited  nic=re0 note=a, b"),
            std::string::npos)
      << text;
  EXPECT_EQ(RenderHistoryText({}), "No stored runs match.\n");
}

TEST(HistoryReport, JsonHasNullForUnknownsAndTheTopFinding) {
  auto doc = nlohmann::json::parse(RenderHistoryJson({Summary()}));
  const auto& run = doc["runs"][0];
  EXPECT_EQ(run["id"], 12);
  EXPECT_TRUE(run["sender_bits_per_second"].is_null());
  EXPECT_TRUE(run["server_cpu_seconds_per_gigabyte"].is_null());
  // The reason an unknown figure is unknown, as the store keeps it (the record's rule).
  EXPECT_EQ(run["unknown"]["server_cpu_seconds_per_gigabyte"], "not present: not computed");
  EXPECT_EQ(run["retransmits"], 7);
  EXPECT_EQ(run["top_finding"]["severity"], "warning");
  EXPECT_EQ(run["labels"]["note"], "a, b");
}

TEST(HistoryReport, CsvQuotesWhatNeedsQuoting) {
  const std::string csv = RenderHistoryCsv({Summary()});
  EXPECT_EQ(csv.substr(0, csv.find('\n')).rfind("id,time,", 0), 0u);
  EXPECT_NE(csv.find("\n12,2026-11-30T09:02:48Z,h1,,198.18.0.2,bidirectional,tcp,4,10,,941000000,"
                     ",,,,1.234,,,,7,,,,,,,,,,,,link-rate-limited,warning,\"nic=re0;note=a, b\"\n"),
            std::string::npos)
      << csv;
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField(" lead"), "\" lead\"");
  EXPECT_EQ(CsvField("plain"), "plain");
}

TEST(HistoryReport, AnIncompleteRunIsMarkedInEveryFormat) {
  store::RunSummary cut = Summary();
  cut.id = 13;
  cut.incomplete = true;
  cut.top_finding.clear();
  const std::string text = RenderHistoryText({cut, Summary()});
  EXPECT_NE(text.find("13  2026"), std::string::npos) << text;
  EXPECT_NE(text.find("7  incomplete (interrupted)"), std::string::npos) << text;
  EXPECT_NE(text.find("warning link-rate-limited"), std::string::npos) << text;
  auto doc = nlohmann::json::parse(RenderHistoryJson({cut, Summary()}));
  EXPECT_EQ(doc["runs"][0]["incomplete"], true);
  EXPECT_EQ(doc["runs"][1]["incomplete"], false);
  const std::string csv = RenderHistoryCsv({cut, Summary()});
  EXPECT_NE(csv.find(",labels,incomplete\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\"nic=re0;note=a, b\",1\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\"nic=re0;note=a, b\",0\n"), std::string::npos) << csv;
  // Complete runs only: the table is as it was, without the column.
  EXPECT_EQ(RenderHistoryCsv({Summary()}).find("incomplete"), std::string::npos);
}

TEST(ShowReport, IntervalsCsvHasARowPerIntervalPerStreamPerEnd) {
  const record::RunRecord run = record::testing::MakeTcpRun();  // 2 intervals, 2 streams, 2 ends
  const std::string csv = RenderIntervalsCsv(5, run);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 2 * 2 * 2) << csv;
  EXPECT_NE(csv.find("\n5,local,client,0,1,0,1,1,12500000,100000000,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n5,remote,server,1,2,0,3,0,"), std::string::npos) << csv;
}

TEST(ShowReport, ReplayIsTheConnectionsThenTheIntervalsThenTheSummary) {
  const record::RunRecord run = record::testing::MakeTcpRun();
  const std::string text = RenderReplay(run);
  const std::string connected = RenderConnectedLines(run, false);
  EXPECT_EQ(text.find(run.local.role == record::Role::kClient ? connected : "[ ID] Interval"), 0u)
      << text;
  EXPECT_NE(text.find("[ ID] Interval"), std::string::npos) << text;
  EXPECT_NE(text.find(RenderSummary(run)), std::string::npos);
}

}  // namespace
}  // namespace nicbench::report
