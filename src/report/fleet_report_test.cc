// The grid's judgement and renderings (report/fleet_report.h) on hand-made pair results:
// thresholds, the pair's own history, asymmetry, stale, failed and pending cells; the agent's
// metrics.
#include "report/fleet_report.h"

#include <gtest/gtest.h>

namespace nicbench::report {
namespace {

store::Mesh GridMesh() {
  store::Mesh m;
  m.id = 1;
  m.spec.name = "office";
  m.spec.hosts = {"nas", "pc"};
  m.spec.pairs = {{"nas", "pc"}, {"pc", "nas"}};
  m.spec.every_secs = 3600;
  return m;
}

store::PairResult Done(const std::string& from, const std::string& to, double bps,
                       double finished = 1000) {
  store::PairResult p;
  p.sender = from;
  p.receiver = to;
  p.latest.state = std::string(store::kJobDone);
  p.latest.finished_secs = finished;
  p.last_done = p.latest;
  p.last_done->run_id = 7;
  p.goodput_bits_per_second = bps;
  p.top_finding = "link-rate-limited";
  p.top_severity = "notice";
  return p;
}

TEST(FleetGrid, SeedOneAsymmetryIsMarkedOnBothCells) {
  // One direction at 7.5 MB/s, the other at 1.9 MB/s.
  const Grid g =
      BuildGrid(GridMesh(), {Done("nas", "pc", 60e6), Done("pc", "nas", 15.2e6)}, {}, 1100);
  ASSERT_EQ(g.cells.size(), 2u);
  for (const GridCell& c : g.cells) {
    EXPECT_TRUE(c.asymmetric) << c.sender;
    EXPECT_EQ(c.state, CellState::kOk);
  }
  const std::string text = RenderGridText(g);
  EXPECT_NE(text.find("60.00 Mbits/sec*"), std::string::npos) << text;
  EXPECT_NE(text.find("nas -> pc: asymmetric; notice link-rate-limited"), std::string::npos)
      << text;
  const auto json = GridJson(g);
  EXPECT_EQ(json["cells"][0]["asymmetric"], true);
  EXPECT_EQ(json["cells"][0]["run_id"], 7);
  const std::string html = RenderGridHtml(g, "run-");
  EXPECT_NE(html.find("href=\"run-7.html\""), std::string::npos);
  EXPECT_NE(html.find("link-rate-limited"), std::string::npos);
}

TEST(FleetGrid, ThresholdsHistoryStaleFailedAndPending) {
  GridThresholds t;
  t.warn_bits_per_second = 500e6;
  t.crit_bits_per_second = 100e6;
  Grid g = BuildGrid(GridMesh(), {Done("nas", "pc", 90e6), Done("pc", "nas", 300e6)}, t, 1100);
  EXPECT_EQ(CellOf(g, "nas", "pc")->state, CellState::kCrit);
  EXPECT_EQ(CellOf(g, "pc", "nas")->state, CellState::kWarn);

  store::PairResult slower = Done("nas", "pc", 600e6);
  slower.history_bits_per_second = {940e6, 930e6, 941e6};
  GridThresholds relative;
  relative.relative_percent = 20;
  g = BuildGrid(GridMesh(), {slower, Done("pc", "nas", 940e6, 0)}, relative, 1100);
  EXPECT_EQ(CellOf(g, "nas", "pc")->state, CellState::kWarn);
  EXPECT_NE(CellOf(g, "nas", "pc")->note.find("below the pair's median"), std::string::npos);
  EXPECT_EQ(CellOf(g, "pc", "nas")->state, CellState::kOk);  // 1100 s old, period 1 h

  store::PairResult failed = Done("nas", "pc", 900e6);
  failed.latest.state = std::string(store::kJobFailed);
  failed.latest.error = "connect: Connection refused";
  store::PairResult skipped = Done("pc", "nas", 900e6);
  skipped.latest.state = std::string(store::kJobSkipped);
  skipped.latest.error = "host pc offline: no heartbeat for 90 s";
  g = BuildGrid(GridMesh(), {failed, skipped}, {}, 1100);
  EXPECT_EQ(CellOf(g, "nas", "pc")->state, CellState::kFailed);
  EXPECT_EQ(CellOf(g, "pc", "nas")->state, CellState::kStale);
  EXPECT_EQ(CellOf(g, "pc", "nas")->note, "host pc offline: no heartbeat for 90 s");

  g = BuildGrid(GridMesh(), {Done("nas", "pc", 900e6, 0)}, {}, 3 * 3600);
  EXPECT_EQ(CellOf(g, "nas", "pc")->state, CellState::kStale);
  EXPECT_EQ(CellOf(g, "pc", "nas")->state, CellState::kNone);
}

TEST(FleetGrid, AgentMetricsNameEachPair) {
  record::AgentMetrics m;
  m.agent = "nas";
  m.jobs_done = 3;
  m.database_up = true;
  m.last.push_back({"nas", "pc", 93e6, 1000, false});
  m.last.push_back({"nas", "tv", std::nullopt, 1000, true});
  const std::string text = RenderAgentPrometheus(m);
  EXPECT_NE(text.find("nicbench_agent_jobs_done_total{agent=\"nas\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("nicbench_agent_last_goodput_bits_per_second{sender=\"nas\",receiver="
                      "\"pc\"} 93000000\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("nicbench_agent_last_test_failed{sender=\"nas\",receiver=\"tv\"} 1\n"),
            std::string::npos);
  EXPECT_EQ(text.find("receiver=\"tv\"} nan"), std::string::npos);
}

}  // namespace
}  // namespace nicbench::report
