// The run page's facts table marked the NIC's counters (/sys/class/net/IF/statistics, and
// ethtool -S at the start and end) as differences between the ends: counters kept since the
// interface came up differ between any two hosts and say nothing about their configuration,
// and the real differences drowned among them. Now only facts are marked.
#include <regex>

#include "regress/stored_report_util.h"

namespace nicbench::regress {
namespace {

using record::testing::MakeTcpRun;

TEST_F(StoredReport, SinceBootCountersAreNotDifferences) {
  record::RunRecord run = MakeTcpRun();
  auto& server = run.remote.value();
  server.nic.counters = std::map<std::string, uint64_t>{{"rx_dropped", 0}, {"rx_bytes", 42}};
  server.nic.driver_stats = std::map<std::string, uint64_t>{{"rx_missed_errors", 7}};
  server.nic.driver_stats_after = std::map<std::string, uint64_t>{{"rx_missed_errors", 9}};
  server.nic.mtu = uint32_t{9000};  // a real difference, still marked
  const int64_t id = Put(run, {});
  const std::string facts = SectionOf(Report({std::to_string(id)}), "facts");
  ASSERT_FALSE(facts.empty());
  const auto marked = [&](const std::string& name) {
    return std::regex_search(facts, std::regex("<tr class=\"differs\"><td>" + name + "</td>"));
  };
  EXPECT_NE(facts.find("<td>nic.counters.rx_bytes</td>"), std::string::npos) << facts;
  EXPECT_FALSE(marked("nic\\.counters\\.rx_bytes"));
  EXPECT_FALSE(marked("nic\\.counters\\.rx_dropped"));
  EXPECT_FALSE(marked("nic\\.driver_stats\\.rx_missed_errors"));
  EXPECT_FALSE(marked("nic\\.driver_stats_after\\.rx_missed_errors"));
  EXPECT_TRUE(marked("nic\\.mtu"));
}

}  // namespace
}  // namespace nicbench::regress
