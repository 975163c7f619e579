// Bug (found by the proc_cpu_list fuzz target): a CPU list such as "922-949465" was accepted up to
// CPU 2^20 and expanded into nearly a million entries (about 4 MB for one bad /sys file in a
// capture read with --root; CI's idle-priority fuzz run took 13 s on it and called it a hang). A
// list now names CPUs below the kernel's own ceiling (CONFIG_NR_CPUS is at most 8192) and no more
// of them than that.
#include <gtest/gtest.h>

#include "probes/proc_parsers.h"

namespace nicbench::regress {
namespace {

TEST(CpuListOfAMillionCpus, RangePastTheKernelsCeilingIsRefused) {
  auto cpus = probes::ParseCpuList("922-949465");
  ASSERT_FALSE(cpus);
  EXPECT_NE(cpus.error().message.find("922-949465"), std::string::npos) << cpus.error().message;
}

TEST(CpuListOfAMillionCpus, RepeatedRangesCannotAddUpPastTheCeiling) {
  std::string text = "0-4095";
  for (int i = 0; i < 3; ++i) text += ",0-4095";
  EXPECT_FALSE(probes::ParseCpuList(text));
}

TEST(CpuListOfAMillionCpus, TheLargestRealListIsStillRead) {
  auto cpus = probes::ParseCpuList("0-8191\n");
  ASSERT_TRUE(cpus) << cpus.error().message;
  EXPECT_EQ(cpus->size(), 8192u);
  EXPECT_EQ(cpus->back(), 8191);
}

}  // namespace
}  // namespace nicbench::regress
