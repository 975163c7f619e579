// Both ends measured: a run between two nicbench ends carries each end's host samples (CPU per
// core, interrupt lines) in the JSON, one per throughput interval, on the same boundaries.
// Uses the loopback main job (an in-process server), so both ends are real nicbench sessions.
#include <cmath>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/json_lines.h"
#include "support/run_binary.h"

namespace nicbench {
namespace {

using nlohmann::json;

json RunLoopbackJson(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"run", "-t", "2", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  testing::ProcessResult r = testing::RunNicbench(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return testing::ParseJsonLines(r.out);
}

// Percent shares of one CPU sample add up to 100 (every jiffy has a kind).
double ShareSum(const json& cpu) {
  double sum = 0;
  for (const char* kind : {"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"}) {
    sum += cpu.at(kind).get<double>();
  }
  return sum;
}

void ExpectSamplesOnIntervals(const json& run, const char* end) {
  SCOPED_TRACE(end);
  const json& intervals = run.at("intervals");
  const json& samples = run.at(end).at("samples");
  ASSERT_EQ(samples.size(), intervals.size());
  ASSERT_GE(samples.size(), 2u);
  for (size_t i = 0; i < samples.size(); ++i) {
    const json& interval_sum = intervals[i].at("sum");
    // The same boundaries as the throughput intervals (each end on its own clock, so the peer's
    // differ by the control round trip, well under a tenth of the 1 s interval).
    EXPECT_NEAR(samples[i].at("start").get<double>(), interval_sum.at("start").get<double>(), 0.1);
    EXPECT_NEAR(samples[i].at("end").get<double>(), interval_sum.at("end").get<double>(), 0.1);
    const json& cpus = samples[i].at("cpus");
    ASSERT_TRUE(cpus.is_array());
    ASSERT_FALSE(cpus.empty());
    for (const json& cpu : cpus) EXPECT_NEAR(ShareSum(cpu), 100.0, 1.0);
    EXPECT_TRUE(samples[i].at("irqs").is_array());
    EXPECT_TRUE(samples[i].at("context_switches").is_number_unsigned());
  }
}

TEST(BothEnds, EachEndSamplesEveryInterval) {
  json doc = RunLoopbackJson({});
  ASSERT_EQ(doc.at("runs").size(), 2u);
  for (const json& run : doc.at("runs")) {
    ASSERT_TRUE(run.at("remote").is_object()) << "the peer is nicbench: its view must be there";
    ExpectSamplesOnIntervals(run, "local");
    ExpectSamplesOnIntervals(run, "remote");
    EXPECT_EQ(run.at("local").at("role"), "client");
    EXPECT_EQ(run.at("remote").at("role"), "server");
    // Loopback: no NIC, said so rather than invented.
    EXPECT_TRUE(run.at("local").at("nic").at("loopback").get<bool>());
  }
}

TEST(BothEnds, NoSamplesTurnsSamplingOffOnBothEnds) {
  json doc = RunLoopbackJson({"--no-samples"});
  for (const json& run : doc.at("runs")) {
    EXPECT_TRUE(run.at("local").at("samples").empty());
    EXPECT_TRUE(run.at("remote").at("samples").empty());
    EXPECT_FALSE(run.at("intervals").empty()) << "throughput is still measured";
  }
}

// Lines of `text` that start (after the indent) with `who` followed by two spaces.
int HostLines(const std::string& text, const std::string& who) {
  int n = 0;
  size_t pos = 0;
  while ((pos = text.find(who + "  cpu", pos)) != std::string::npos) {
    ++n;
    pos += who.size();
  }
  return n;
}

TEST(BothEnds, LiveLinesShowTheServerToo) {
  // The loopback main job: its in-process server is a nicbench server, so each interval line
  // but the last gets the server's compact line while the test runs (the last one travels with
  // the results). Only the live part, before the summary's separator, is counted.
  testing::ProcessResult r = testing::RunNicbench({"run", "-t", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string live = r.out.substr(0, r.out.find("- - - -"));
  EXPECT_EQ(HostLines(live, "local"), 3) << live;
  EXPECT_GE(HostLines(live, "remote"), 2) << live;
  EXPECT_LE(HostLines(live, "remote"), 3) << live;
}

TEST(BothEnds, JsonModeAsksForNoLiveSamples) {
  // In JSON mode the samples come with the results only: nothing else on the control socket,
  // and the document is whole.
  json doc = RunLoopbackJson({});
  for (const json& run : doc.at("runs")) {
    EXPECT_EQ(run.at("remote").at("samples").size(), run.at("intervals").size());
  }
}

}  // namespace
}  // namespace nicbench
