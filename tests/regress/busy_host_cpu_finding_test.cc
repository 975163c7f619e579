// Bug: on a host with other work running, every stand run, even one at 100% of a 100 Mbit/s
// line with nicbench using 1% of a core, was headed by "[WARNING] ... CPU-bound: cpu1 saturated
// and other processes take ~97% of it ... limited by a competing process, not by the path";
// and a reverse run's title named one end while its evidence described the other.
// A CPU or competition finding now needs evidence that this transfer was held back: below the
// path's ceiling, and nicbench's own threads waiting for a CPU (run-queue delay).
#include <string>

#include <gtest/gtest.h>

#include "diagnosis/diagnose.h"
#include "diagnosis/test_records.h"

namespace nicbench::regress {
namespace {

using namespace diagnosis::testing;

bool AnyCpuFinding(const std::vector<record::Finding>& findings, std::string* titles) {
  bool any = false;
  for (const auto& f : findings) {
    *titles += f.id + ": " + f.title + "\n";
    any = any || f.id.find("cpu-bound") != std::string::npos;
  }
  return any;
}

// Both stand hosts on one machine, every core busy with an unrelated loop.
record::RunRecord StandRunBesideHogs(double goodput, uint64_t shaping, double nicbench_wait) {
  record::RunRecord run = MakeRun(goodput);
  run.local.nic = VethNic(shaping);
  Remote(run).nic = VethNic(shaping);
  Remote(run).host.hostname = std::string("alpha");
  for (auto* end : {&run.local, &Remote(run)}) {
    for (int cpu = 0; cpu < kCpus; ++cpu) SetCpu(*end, cpu, 97, 2, 0, 1);
    SetProcessPercent(*end, 1);
    SetRunQueueWait(*end, nicbench_wait);
  }
  return run;
}

TEST(BusyHostCpuFinding, RunAtTheLinesCeilingBesideCpuHogsIsNotCpuBound) {
  // 100 Mbit/s tbf (overhead 24): 94.15 Mbit/s is the ceiling; the run is at it.
  record::RunRecord run = StandRunBesideHogs(94.1e6, 100000000, 0.002);
  std::string titles;
  EXPECT_FALSE(AnyCpuFinding(diagnosis::Diagnose(run), &titles)) << titles;
}

TEST(BusyHostCpuFinding, BusyCoresThatNeverDelayNicbenchAreNoCompetitor) {
  // Below the ceiling (paced elsewhere, say), every core busy, but nicbench's threads hardly
  // ever wait for a CPU: the hogs do not hold this transfer back.
  record::RunRecord run = StandRunBesideHogs(50e6, 100000000, 0.002);
  std::string titles;
  for (const auto& f : diagnosis::Diagnose(run)) {
    titles += f.id + ": " + f.title + "\n";
    EXPECT_EQ(f.title.find("other processes take"), std::string::npos) << f.title;
  }
}

TEST(BusyHostCpuFinding, ReverseRunTitleAndEvidenceNameTheSameEnd) {
  // Reverse on a shared-host stand: the server (the sender) and a busy loop pinned to cpu0,
  // the client on cpu1. The local end is the one analysed; the finding is the remote end's.
  record::RunRecord run = MakeRun(300e6);
  run.spec.direction = record::Direction::kReverse;
  run.local.nic = VethNic();
  Remote(run).nic = VethNic();
  Remote(run).host.hostname = std::string("alpha");
  run.local.intervals = MakeIntervals(300e6, false);
  Remote(run).intervals = MakeIntervals(300e6, true);
  run.intervals = run.local.intervals;
  run.streams[0].sender = false;
  for (auto* end : {&run.local, &Remote(run)}) {
    SetCpu(*end, 0, 81, 16, 0, 3);
    SetCpu(*end, 1, 1, 30, 0, 25);
  }
  SetProcessPercent(run.local, 40);
  SetProcessPercent(Remote(run), 40);
  SetAllowedCpus(run.local, {1});
  SetAllowedCpus(Remote(run), {0});
  SetRunQueueWait(Remote(run), 0.5);
  SetRunQueueWait(run.local, 0.0);
  const record::Finding* cpu = nullptr;
  auto findings = diagnosis::Diagnose(run);
  for (const auto& f : findings) {
    if (f.id == "sender-cpu-bound") cpu = &f;
  }
  ASSERT_NE(cpu, nullptr);
  EXPECT_NE(cpu->title.find("remote server (sender)"), std::string::npos) << cpu->title;
  EXPECT_NE(cpu->title.find("other processes take"), std::string::npos) << cpu->title;
  ASSERT_FALSE(cpu->evidence.empty());
  EXPECT_EQ(cpu->evidence[0].rfind("remote server (sender)", 0), 0u) << cpu->evidence[0];
  for (const std::string& e : cpu->evidence) {
    EXPECT_EQ(e.find("at the local client"), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace nicbench::regress
