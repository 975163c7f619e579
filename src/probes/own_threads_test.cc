#include "probes/own_threads.h"
#include "probes/test_fixture.h"

#include <future>
#include <thread>

#include <gtest/gtest.h>

namespace nicbench::probes {
namespace {

TEST(TaskStat, ParsesFaultsAndTimesAfterAnAwkwardName) {
  // The command name holds a space and a ')'; fields are counted from the last ')'.
  auto t = ParseTaskStat(
      "4242 (nb w) 0) S 1 4242 4242 0 -1 4194368 120 0 3 0 250 75 0 0 20 0 4 0 100\n", 100);
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_EQ(t->minor_faults, 120u);
  EXPECT_EQ(t->major_faults, 3u);
  EXPECT_DOUBLE_EQ(t->user_seconds, 2.5);
  EXPECT_DOUBLE_EQ(t->system_seconds, 0.75);
  EXPECT_FALSE(ParseTaskStat("4242 (nb) S 1 2", 100));
  EXPECT_FALSE(ParseTaskStat("no name here", 100));
}

// A real line of /proc/thread-self/stat from the build VM (kernel 6.18, `taskset -c 1 cat`):
// field 39 is the CPU it last ran on. The short line above has no such field.
TEST(TaskStat, ReadsTheCpuItLastRanOn) {
  auto t = ParseTaskStat(probes::testing::ReadFixture("proc/task-stat-vm-6.18-cpu1.txt"), 100);
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_EQ(t->last_cpu, 1);
  auto short_line = ParseTaskStat(
      "4242 (nb w) 0) S 1 4242 4242 0 -1 4194368 120 0 3 0 250 75 0 0 20 0 4 0 100\n", 100);
  ASSERT_TRUE(short_line);
  EXPECT_EQ(short_line->last_cpu, -1);
}

TEST(OwnThreads, RanOnListsTheCpusOfThreadsThatRan) {
  ThreadTimes idle, busy_before, busy_after, other;
  idle.last_cpu = 3;
  busy_before.last_cpu = 0;
  busy_after = busy_before;
  busy_after.user_seconds = 0.5;
  busy_after.last_cpu = 2;
  other.system_seconds = 0.1;
  other.last_cpu = 2;
  auto usage =
      DiffThreadUsage({{1, idle}, {2, busy_before}}, {{1, idle}, {2, busy_after}, {3, other}});
  EXPECT_EQ(usage.ran_on_cpus, (std::vector<int>{2}));
}

TEST(TaskStat, ReadsTheSwitchCounts) {
  ThreadTimes t;
  ASSERT_TRUE(ParseTaskSwitches(
      "Name:\tnb\nvoluntary_ctxt_switches:\t17\nnonvoluntary_ctxt_switches:\t4\n", t));
  EXPECT_EQ(t.voluntary_switches, 17u);
  EXPECT_EQ(t.involuntary_switches, 4u);
  EXPECT_FALSE(ParseTaskSwitches("Name:\tnb\n", t));
}

TEST(OwnThreads, DiffSumsTheThreadsAndCountsNewOnesFromZero) {
  ThreadTimes a{1.0, 0.5, 10, 0, 3, 1, {}};
  ThreadTimes a2{1.5, 0.75, 12, 0, 5, 1, {}};
  ThreadTimes b{0.25, 0.25, 1, 0, 1, 0, {}};
  record::ProcessUsage u = DiffThreadUsage({{1, a}}, {{1, a2}, {2, b}});
  EXPECT_DOUBLE_EQ(u.user_seconds, 0.75);
  EXPECT_DOUBLE_EQ(u.system_seconds, 0.5);
  EXPECT_EQ(u.minor_faults, 3u);
  EXPECT_EQ(u.voluntary_switches, 3u);
}

TEST(OwnThreads, KeepsOnlyItsThreadsAndTheTimesOfThoseThatLeft) {
  OwnThreads set;
  DirFileSource live;
  std::string buffer;
  EXPECT_FALSE(set.Read(live, buffer));  // empty
  set.Enter();
  std::promise<void> release;
  std::thread stranger([done = release.get_future()] { done.wait(); });
  std::thread member([&] {
    set.Enter();
    volatile uint64_t x = 0;
    for (int i = 0; i < 20'000'000; ++i) x = x + i;
    set.Leave();
  });
  member.join();
  auto times = set.Read(live, buffer);
  release.set_value();
  stranger.join();
  ASSERT_TRUE(times) << times.error().ToString();
  EXPECT_EQ(times->size(), 2u);  // this thread and the member, not the stranger
  const auto [user, system] = SumUserSystem(*times);
  EXPECT_GT(user + system, 0);
}

}  // namespace
}  // namespace nicbench::probes
