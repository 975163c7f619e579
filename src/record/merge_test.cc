#include "record/merge.h"

#include <gtest/gtest.h>

namespace nicbench::record {
namespace {

TEST(Merge, SharesAreWeightedByDurationAndCountsAdd) {
  HostInterval a, b;
  a.start = 0, a.end = 1, b.start = 1, b.end = 4;
  a.cpus = std::vector<CpuShare>{{0, 40, 0, 0, 60, 0, 0, 0, 0}};
  b.cpus = std::vector<CpuShare>{{0, 0, 0, 0, 100, 0, 0, 0, 0}};
  IrqRate line;
  line.irq = "45";
  line.name = "eth0-TxRx-0";
  line.per_cpu = {100};
  line.total = 100;
  a.irqs = std::vector<IrqRate>{line};
  line.per_cpu = {300};
  line.total = 300;
  b.irqs = std::vector<IrqRate>{line};
  a.process = ProcessUsage{0.5, 0.25, 1, 0, 0, 0, {0}, {}};
  b.process = ProcessUsage{1.0, 0.75, 2, 0, 0, 0, {1}, {}};
  b.interrupts = uint64_t{7};  // unknown in a: the merged value is unknown
  a.host_ip_bytes = uint64_t{1000};
  b.host_ip_bytes = uint64_t{3000};
  HostInterval m = MergeSamples(a, b);
  EXPECT_EQ(m.start, 0);
  EXPECT_EQ(m.end, 4);
  EXPECT_DOUBLE_EQ(m.cpus.value()[0].user, 10);
  EXPECT_EQ(m.irqs.value()[0].total, 400u);
  EXPECT_DOUBLE_EQ(m.irqs.value()[0].per_second, 100);
  EXPECT_DOUBLE_EQ(m.process.value().user_seconds, 1.5);
  EXPECT_EQ(m.process.value().allowed_cpus, std::vector<int>{1});
  EXPECT_FALSE(m.interrupts.known());
  EXPECT_EQ(m.host_ip_bytes.value(), 4000u);
}

TEST(Merge, HalveFromKeepsTheWarmUpAndAnOddLastOne) {
  std::vector<IntervalRecord> items;
  for (int i = 0; i < 6; ++i) {
    IntervalRecord r;
    r.start = i, r.end = i + 1;
    r.omitted = i == 0;
    StreamInterval s;
    s.id = 1, s.start = i, s.end = i + 1, s.bytes = 10;
    r.streams.push_back(s);
    items.push_back(r);
  }
  HalveFrom(items, 1, MergeIntervals);
  ASSERT_EQ(items.size(), 4u);  // [0] [1,2] [3,4] [5]
  EXPECT_TRUE(items[0].omitted);
  EXPECT_EQ(items[1].streams[0].bytes, 20u);
  EXPECT_EQ(items[2].start, 3);
  EXPECT_EQ(items[2].end, 5);
  EXPECT_EQ(items[3].streams[0].bytes, 10u);
}

}  // namespace
}  // namespace nicbench::record
