// The CPU-frequency rule on recorded cpufreq facts: prometheus/procfs's powersave capture
// (tests/testdata/roots/pfs-cpufreq-powersave: intel_pstate at 1.2 GHz of 3.3) read through the
// probe, and the build VM's capture (roots/vm-6.18-place), whose vCPUs have no cpufreq.
#include <algorithm>

#include <gtest/gtest.h>

#include "analysis/differs.h"
#include "diagnosis/diagnose.h"
#include "diagnosis/test_records.h"
#include "probes/collect_facts.h"
#include "support/run_binary.h"

namespace nicbench::diagnosis {
namespace {

using namespace testing;  // NOLINT: the test record helpers
using record::RunRecord;
using record::Severity;

record::Measured<std::vector<record::CpuFrequency>> Captured(const std::string& root,
                                                             std::vector<int> cpus) {
  probes::DirFileSource files(nicbench::testing::TestdataDir() + "/roots/" + root);
  return probes::ReadCpuFrequencies(files, cpus);
}

// The receiver's cpu1 does the work (80% busy: copies and packet processing) on the powersave
// capture's cpu1.
RunRecord PowersaveRun(double user, double softirq) {
  RunRecord run = MakeRun(700e6);
  Remote(run).host.cpu_frequencies = Captured("pfs-cpufreq-powersave", {0, 1, 2, 3});
  SetCpu(Remote(run), 1, user, 20, 0, softirq);
  return run;
}

TEST(CpuFrequency, PowersaveGovernorAtALowFrequency) {
  const auto findings = Diagnose(PowersaveRun(50, 10));
  const record::Finding* f = Find(findings, "cpu-frequency-low");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kNotice);
  EXPECT_NE(f->title.find("36% of its maximum"), std::string::npos) << f->title;
  EXPECT_NE(f->title.find("powersave"), std::string::npos);
  EXPECT_NE(f->title.find("remote server"), std::string::npos);
  EXPECT_NE(f->evidence[0].find("cpu1 mean busy 80%"), std::string::npos) << f->evidence[0];
  EXPECT_NE(f->evidence[1].find("powersave 1.20 GHz of 3.30 GHz (intel_pstate)"), std::string::npos)
      << f->evidence[1];
  EXPECT_NE(f->next_step.find("cpupower frequency-set -g performance"), std::string::npos);
}

TEST(CpuFrequency, WarningWhenTheSlowCoreSaturates) {
  const auto findings = Diagnose(PowersaveRun(60, 15));  // outlives f, which points into it
  const record::Finding* f = Find(findings, "cpu-frequency-low");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
}

TEST(CpuFrequency, SilentForThePerformanceGovernorOrAnIdleCore) {
  RunRecord performance = PowersaveRun(50, 10);
  Remote(performance).host.cpu_frequencies.value()[0].governor = "performance";
  EXPECT_EQ(Find(Diagnose(performance), "cpu-frequency-low"), nullptr);
  RunRecord idle = MakeRun(700e6);  // quiet cores: 20% busy, below the 50% the rule needs
  Remote(idle).host.cpu_frequencies = Captured("pfs-cpufreq-powersave", {1});
  EXPECT_EQ(Find(Diagnose(idle), "cpu-frequency-low"), nullptr);
}

// A VM: no cpufreq, so the rule is silent and compare's table says unknown, never a number.
TEST(CpuFrequency, VmWithoutCpufreqIsSilentAndUnknown) {
  RunRecord run = PowersaveRun(60, 15);
  Remote(run).host.cpu_frequencies = Captured("vm-6.18-place", {0, 1});
  ASSERT_FALSE(Remote(run).host.cpu_frequencies.known());
  EXPECT_EQ(Find(Diagnose(run), "cpu-frequency-low"), nullptr);
  for (const auto& [name, value] : analysis::FactsOf(run)) {
    if (name == "server.cpu-frequency") {
      EXPECT_EQ(value.rfind("unknown (not supported: no cpufreq", 0), 0u) << value;
    }
  }
}

}  // namespace
}  // namespace nicbench::diagnosis
