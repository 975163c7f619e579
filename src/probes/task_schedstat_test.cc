#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "probes/file_source.h"
#include "probes/host_snapshot.h"
#include "probes/proc_parsers.h"

namespace nicbench::probes {
namespace {

TEST(Schedstat, ParsesRunWaitAndSlices) {
  auto s = ParseSchedstat("190829861 299250927 756\n");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->run_ns, 190829861u);
  EXPECT_EQ(s->wait_ns, 299250927u);
  EXPECT_EQ(s->timeslices, 756u);
  EXPECT_FALSE(ParseSchedstat("12 x 3"));
  EXPECT_FALSE(ParseSchedstat(""));
}

TEST(Schedstat, DiffCountsThreadsInBothAndNewOnesFromZero) {
  std::map<int, SchedStat> before{{10, {1000000000, 200000000, 5}}, {11, {5, 5, 1}}};
  std::map<int, SchedStat> after{{10, {1500000000, 450000000, 9}}, {12, {100000000, 50000000, 2}}};
  record::RunQueueDelay d = DiffTaskSchedstats(before, after);
  EXPECT_EQ(d.threads, 2);  // 10 and the new 12; 11 exited
  EXPECT_DOUBLE_EQ(d.on_cpu_seconds, 0.6);
  EXPECT_DOUBLE_EQ(d.waiting_seconds, 0.3);
}

TEST(Schedstat, ReadsEveryThreadThroughTheFileSource) {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("nb-sched-" + std::to_string(getpid()));
  for (const char* tid : {"101", "102"}) {
    std::filesystem::create_directories(root / "proc/self/task" / tid);
    std::ofstream(root / "proc/self/task" / tid / "schedstat") << "100 " << tid << " 1\n";
  }
  DirFileSource files(root.string());
  std::string buffer;
  auto tasks = ReadTaskSchedstats(files, buffer);
  std::filesystem::remove_all(root);
  ASSERT_TRUE(tasks) << tasks.error().ToString();
  ASSERT_EQ(tasks->size(), 2u);
  EXPECT_EQ(tasks->at(102).wait_ns, 102u);
}

TEST(Schedstat, LiveProcessHasItsThreads) {
  DirFileSource files;
  std::string buffer;
  auto tasks = ReadTaskSchedstats(files, buffer);
  ASSERT_TRUE(tasks) << tasks.error().ToString();
  EXPECT_GE(tasks->size(), 1u);
}

}  // namespace
}  // namespace nicbench::probes
