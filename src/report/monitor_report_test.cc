// The monitor's renderings: an event's NDJSON line parses back with every member, its line
// for people is terminal-safe, and the Prometheus exposition has each family's HELP and TYPE,
// escaped label values, a cumulative histogram ending in +Inf and no NaN.
#include "report/monitor_report.h"
#include "report/fleet_report.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "support/run_binary.h"

namespace nicbench::report {
namespace {

record::MonitorEvent Event(bool resolved) {
  record::MonitorEvent e;
  e.monitor = "nas:5201-1700000000";
  e.id = 3;
  e.kind = record::EventKind::kCoreSaturated;
  e.subject = "cpu0";
  e.resolved = resolved;
  e.opened_unix = 1700000009;
  e.at_unix = resolved ? 1700000051.5 : 1700000009;
  e.summary = "cpu0 saturated by hard irq (100%) for 10 s";
  e.evidence = {"cpu0: hard irq 100.0%", "a \x1b[31mred\x1b[0m name"};
  return e;
}

TEST(MonitorReport, EventJsonIsOneLineThatParsesBack) {
  const std::string line = RenderEventJson(Event(false));
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  const auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["type"], "event");
  EXPECT_EQ(j["monitor"], "nas:5201-1700000000");
  EXPECT_EQ(j["id"], 3);
  EXPECT_EQ(j["kind"], "core-saturated");
  EXPECT_EQ(j["state"], "opened");
  EXPECT_EQ(j["subject"], "cpu0");
  EXPECT_EQ(j["time"], "2023-11-14T22:13:29Z");
  EXPECT_EQ(j["evidence"].size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(RenderEventJson(Event(true)))["state"], "resolved");
}

TEST(MonitorReport, EventTextIsTerminalSafe) {
  const std::string opened = RenderEventText(Event(false));
  EXPECT_NE(opened.find("opened #3 core-saturated cpu0: cpu0 saturated"), std::string::npos)
      << opened;
  EXPECT_EQ(opened.find('\x1b'), std::string::npos) << opened;
  const std::string resolved = RenderEventText(Event(true));
  EXPECT_NE(resolved.find("resolved #3"), std::string::npos);
  EXPECT_NE(resolved.find("(after 42 s)"), std::string::npos) << resolved;
}

TEST(MonitorReport, ExpositionFamiliesLabelsAndHistogram) {
  record::MonitorMetrics m;
  m.peer = "nas\"1";
  m.cpu_seconds["0"]["irq"] = 12.5;
  m.interrupts["257:em0-rx-0"] = 898;
  m.goodput_bits_per_second["forward"] = 941e6;
  m.latency_bounds_seconds = {0.001, 0.01};
  m.latency_buckets = {5, 9};
  m.latency_count = 10;
  m.latency_sum_seconds = 0.05;
  m.open_events = {{"core-saturated", 1}, {"degraded", 0}};
  const std::string text = RenderPrometheus(m);
  for (const char* family :
       {"nicbench_monitor_goodput_bytes_per_second gauge",
        "nicbench_monitor_probe_latency_seconds histogram",
        "nicbench_monitor_cpu_seconds_total counter", "nicbench_monitor_interrupts_total counter",
        "nicbench_monitor_open_events gauge"}) {
    EXPECT_NE(text.find(std::string("# TYPE ") + family), std::string::npos) << family;
  }
  EXPECT_NE(text.find("goodput_bytes_per_second{peer=\"nas\\\"1\",direction=\"forward\"} "
                      "117625000\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("cpu_seconds_total{cpu=\"0\",mode=\"irq\"} 12.5\n"), std::string::npos);
  EXPECT_NE(text.find("interrupts_total{irq=\"257\",name=\"em0-rx-0\"} 898\n"), std::string::npos);
  EXPECT_NE(text.find("latency_seconds_bucket{peer=\"nas\\\"1\",le=\"0.01\"} 9\n"),
            std::string::npos);
  EXPECT_NE(text.find("latency_seconds_bucket{peer=\"nas\\\"1\",le=\"+Inf\"} 10\n"),
            std::string::npos);
  EXPECT_NE(text.find("open_events{kind=\"core-saturated\"} 1\n"), std::string::npos);
  EXPECT_EQ(text.find("nan"), std::string::npos);
}

// Every query of the Grafana dashboard (deploy/grafana) names metrics the monitor or the fleet's
// agent exports.
TEST(MonitorReport, GrafanaDashboardQueriesNameExportedMetrics) {
  std::ifstream in(nicbench::testing::SourceDir() + "/deploy/grafana/nicbench-monitor.json");
  ASSERT_TRUE(in) << "deploy/grafana/nicbench-monitor.json";
  const auto dashboard = nlohmann::json::parse(in);
  std::vector<std::string> queries;
  for (const auto& panel : dashboard["panels"]) {
    ASSERT_FALSE(panel["targets"].empty()) << panel["title"];
    for (const auto& target : panel["targets"]) queries.push_back(target["expr"]);
  }
  for (const auto& variable : dashboard["templating"]["list"]) {
    if (variable["type"] == "query") queries.push_back(variable["query"]);
  }
  const std::string exposition =
      RenderPrometheus(record::MonitorMetrics{}) + RenderAgentPrometheus(record::AgentMetrics{});
  const std::regex name("nicbench_[a-z_]+");
  for (const std::string& query : queries) {
    int found = 0;
    for (std::sregex_iterator it(query.begin(), query.end(), name), end; it != end; ++it) {
      std::string metric = it->str();
      // A histogram's series are its family's name with a suffix.
      for (const char* suffix : {"_bucket", "_sum", "_count"}) {
        if (metric.ends_with(suffix) &&
            exposition.find("# TYPE " + metric.substr(0, metric.size() - std::strlen(suffix)) +
                            " histogram") != std::string::npos) {
          metric.resize(metric.size() - std::strlen(suffix));
        }
      }
      EXPECT_NE(exposition.find("# TYPE " + metric + " "), std::string::npos)
          << metric << " in " << query;
      ++found;
    }
    EXPECT_GT(found, 0) << "a query without a nicbench metric: " << query;
  }
}

}  // namespace
}  // namespace nicbench::report
