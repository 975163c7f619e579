// The monitor's judgement (job/monitor_rules.h), table by table: each watch on hand-made
// observations, the event book's open/resolve pairs, and the seed-2 replay fixtures.
#include "job/monitor_rules.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "job/monitor.h"
#include "job/monitor_judge.h"
#include "support/run_binary.h"

namespace nicbench::job {
namespace {

using record::EventKind;

// A one-second sample of two CPUs: cpu0's hard irq share and NIC interrupts a second.
record::HostInterval Sample(double t, double cpu0_irq, double nic_per_second) {
  record::HostInterval s;
  s.start = t;
  s.end = t + 1;
  record::CpuShare c0, c1;
  c0.cpu = 0;
  c0.irq = cpu0_irq;
  c0.idle = 100 - cpu0_irq;
  c1.cpu = 1;
  c1.idle = 100;
  s.cpus = std::vector<record::CpuShare>{c0, c1};
  record::IrqRate rx;
  rx.irq = "257";
  rx.name = "em0-rx-0";
  rx.nic = true;
  rx.per_cpu = {static_cast<uint64_t>(nic_per_second), 0};
  rx.total = static_cast<uint64_t>(nic_per_second);
  rx.per_second = nic_per_second;
  s.irqs = std::vector<record::IrqRate>{rx};
  return s;
}

Thresholds Short() {
  Thresholds t;
  t.saturated_for = std::chrono::milliseconds(3000);
  return t;
}

const Condition* Find(const std::vector<Condition>& c, EventKind kind) {
  for (const Condition& x : c) {
    if (x.kind == kind) return &x;
  }
  return nullptr;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  return all;
}

TEST(HostWatch, SaturatedCoreWithUnchangedInterruptsIsTheSeed2Signature) {
  HostWatch watch(Short());
  double t = 0;
  for (int i = 0; i < 5; ++i, ++t) EXPECT_TRUE(watch.Judge(Sample(t, 0, 988)).empty());
  // Saturated for 1 and 2 seconds: not yet an event (the threshold is 3 s).
  EXPECT_EQ(Find(watch.Judge(Sample(t++, 100, 898)), EventKind::kCoreSaturated), nullptr);
  EXPECT_EQ(Find(watch.Judge(Sample(t++, 100, 898)), EventKind::kCoreSaturated), nullptr);
  const auto now = watch.Judge(Sample(t++, 100, 898));
  const Condition* c = Find(now, EventKind::kCoreSaturated);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->subject, "cpu0");
  EXPECT_NE(c->summary.find("hard irq"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("livelocked"), std::string::npos) << c->summary;
  EXPECT_NE(Joined(c->evidence).find("898/s now, 988/s before"), std::string::npos)
      << Joined(c->evidence);
  // The core comes back: the condition no longer holds.
  EXPECT_EQ(Find(watch.Judge(Sample(t++, 10, 988)), EventKind::kCoreSaturated), nullptr);
}

TEST(HostWatch, SaturationThatTheInterruptRateExplainsIsLoad) {
  HostWatch watch(Short());
  double t = 0;
  for (int i = 0; i < 5; ++i, ++t) watch.Judge(Sample(t, 0, 1000));
  std::vector<Condition> now;
  for (int i = 0; i < 3; ++i) now = watch.Judge(Sample(t++, 100, 50000));
  const Condition* c = Find(now, EventKind::kCoreSaturated);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->summary.find("livelocked"), std::string::npos) << c->summary;
  EXPECT_NE(Joined(c->evidence).find("the interrupt load explains"), std::string::npos);
}

// A one-second sample of two CPUs where cpu1 takes `softirq` percent in softirq and its softnet
// processed `packets` packets (NET_RX ran `net_rx` times there); no NIC interrupt line, and the
// host's interrupts as before (a veth, or RPS: a flood that raises no NIC interrupt).
record::HostInterval SoftirqSample(double t, double softirq, uint64_t packets, uint64_t net_rx) {
  record::HostInterval s;
  s.start = t;
  s.end = t + 1;
  record::CpuShare c0, c1;
  c0.cpu = 0;
  c0.idle = 100;
  c1.cpu = 1;
  c1.softirq = softirq;
  c1.idle = 100 - softirq;
  s.cpus = std::vector<record::CpuShare>{c0, c1};
  s.irqs = std::vector<record::IrqRate>{};
  s.interrupts = uint64_t{2000};
  s.net_rx_softirqs = std::vector<uint64_t>{10, net_rx};
  s.net_tx_softirqs = std::vector<uint64_t>{0, 5};
  s.softnet = std::vector<record::SoftnetDelta>{{0, 100, 0, 0}, {1, packets, 0, 0}};
  return s;
}

// The flood of issue 30's stand test: cpu1 in NET_RX softirq, its packets up 250-fold while the
// host's interrupts stay as they were. Judged by the interrupt rate, as hard irq is, this was
// called a livelocked interrupt handler.
TEST(HostWatch, SoftirqFloodIsNamedNetRxAndExplainedByItsPackets) {
  HostWatch watch(Short());
  double t = 0;
  for (int i = 0; i < 5; ++i, ++t) EXPECT_TRUE(watch.Judge(SoftirqSample(t, 5, 2000, 40)).empty());
  // The flood's first second, before the core counts as saturated: a calm sample, which must
  // not become the rate "before" (the stand saw 100904/s before against 59905/s now).
  EXPECT_TRUE(watch.Judge(SoftirqSample(t++, 60, 500000, 30000)).empty());
  std::vector<Condition> now;
  for (int i = 0; i < 3; ++i) now = watch.Judge(SoftirqSample(t++, 99, 500000, 30000));
  const Condition* c = Find(now, EventKind::kCoreSaturated);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->subject, "cpu1");
  EXPECT_NE(c->summary.find("cpu1 saturated by NET_RX softirq (99%) for 3 s"), std::string::npos)
      << c->summary;
  EXPECT_EQ(c->summary.find("livelocked"), std::string::npos) << c->summary;
  EXPECT_EQ(c->summary.find("not explained"), std::string::npos) << c->summary;
  const std::string evidence = Joined(c->evidence);
  EXPECT_NE(evidence.find("packets processed on cpu1 rose from 2000/s to 500000/s: a flood of "
                          "packets explains the busy core"),
            std::string::npos)
      << evidence;
  EXPECT_NE(evidence.find("NET_RX softirqs on cpu1: 30000/s"), std::string::npos) << evidence;
  EXPECT_EQ(evidence.find("interrupts per second"), std::string::npos) << evidence;
  // The flood stops: the condition no longer holds, and the next one is judged afresh.
  EXPECT_EQ(Find(watch.Judge(SoftirqSample(t++, 5, 2000, 40)), EventKind::kCoreSaturated), nullptr);
}

TEST(HostWatch, SoftirqSaturationThePacketsDoNotExplainIsSaidSo) {
  HostWatch watch(Short());
  double t = 0;
  for (int i = 0; i < 5; ++i, ++t) watch.Judge(SoftirqSample(t, 5, 2000, 40));
  std::vector<Condition> now;
  for (int i = 0; i < 3; ++i) now = watch.Judge(SoftirqSample(t++, 100, 2100, 30000));
  const Condition* c = Find(now, EventKind::kCoreSaturated);
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c->summary.find("by NET_RX softirq (100%) for 3 s: not explained by the packet rate"),
            std::string::npos)
      << c->summary;
  EXPECT_NE(Joined(c->evidence)
                .find("packets processed on cpu1 unchanged (2100/s now, 2000/s "
                      "before)"),
            std::string::npos)
      << Joined(c->evidence);
}

TEST(HostWatch, SoftirqSaturationFromTheStartHasNoRateBefore) {
  HostWatch watch(Short());
  std::vector<Condition> now;
  for (int i = 0; i < 3; ++i) now = watch.Judge(SoftirqSample(i, 100, 400000, 0));
  const Condition* c = Find(now, EventKind::kCoreSaturated);
  ASSERT_NE(c, nullptr);
  // NET_TX ran there, NET_RX did not: the softirq is named after the one that ran.
  EXPECT_NE(c->summary.find("by NET_TX softirq"), std::string::npos) << c->summary;
  EXPECT_NE(Joined(c->evidence).find("cpu1 processed 400000 packets/s; the rate before is unknown"),
            std::string::npos)
      << Joined(c->evidence);
}

// The same flood beside other work, as the stand measured it on two cores shared with builds:
// the kernel left NET_RX to ksoftirqd, which got a share of cpu1 beside the other processes, so
// softirq took 36% of it while its backlog refused packets. A busy core whose softirq drops
// packets is saturated too; busy without drops, or dropping while idle, is not.
TEST(HostWatch, BusyCoreWhoseSoftirqDropsPacketsIsSaturated) {
  HostWatch watch(Short());
  double t = 0;
  for (int i = 0; i < 5; ++i, ++t) watch.Judge(SoftirqSample(t, 5, 2000, 40));
  auto storm = [](double at, uint64_t dropped, double user) {
    record::HostInterval s = SoftirqSample(at, 36, 50000, 800);
    auto cpus = s.cpus.value();
    cpus[1].user = user;
    cpus[1].idle = 100 - 36 - user;
    s.cpus = cpus;
    s.softnet = std::vector<record::SoftnetDelta>{{0, 100, 0, 0}, {1, 50000, dropped, 0}};
    return s;
  };
  // Busy, no drops: the softirq keeps up, the core is the other work's.
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(watch.Judge(storm(t++, 0, 64)).empty());
  // Dropping with half the core idle: the softnet-drops event, not a saturated core.
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(Find(watch.Judge(storm(t++, 338000, 14)), EventKind::kCoreSaturated), nullptr);
  HostWatch fresh(Short());
  for (int i = 0; i < 5; ++i, ++t) fresh.Judge(SoftirqSample(t, 5, 2000, 40));
  std::vector<Condition> now;
  for (int i = 0; i < 3; ++i) now = fresh.Judge(storm(t++, 338000, 64));
  const Condition* c = Find(now, EventKind::kCoreSaturated);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->subject, "cpu1");
  EXPECT_NE(
      c->summary.find(
          "cpu1 saturated (busy 100%) with its NET_RX softirq (36%) dropping packets for 3 s"),
      std::string::npos)
      << c->summary;
  const std::string evidence = Joined(c->evidence);
  EXPECT_NE(evidence.find("softnet backlog of cpu1 dropped 338000 packets/s"), std::string::npos)
      << evidence;
  EXPECT_NE(evidence.find("cpu1: other work 64.0% (user 64.0%, system 0.0%)"), std::string::npos)
      << evidence;
  EXPECT_NE(evidence.find("packets processed on cpu1 rose from 2000/s to 50000/s"),
            std::string::npos)
      << evidence;
}

TEST(HostWatch, SoftnetDropsHoldUntilQuietSamplesPass) {
  Thresholds t;
  t.quiet_samples = 2;
  HostWatch watch(t);
  record::HostInterval s = Sample(0, 0, 10);
  s.softnet = std::vector<record::SoftnetDelta>{{0, 1000, 7, 3}};
  const auto first = watch.Judge(s);
  ASSERT_NE(Find(first, EventKind::kSoftnetDrops), nullptr);
  EXPECT_NE(Joined(Find(first, EventKind::kSoftnetDrops)->evidence).find("7 drops, 3 time"),
            std::string::npos);
  s.softnet = std::vector<record::SoftnetDelta>{{0, 1000, 0, 0}};
  EXPECT_NE(Find(watch.Judge(s), EventKind::kSoftnetDrops), nullptr);  // 1 quiet sample
  EXPECT_EQ(Find(watch.Judge(s), EventKind::kSoftnetDrops), nullptr);  // 2: resolved
}

TEST(HostWatch, AFewTimeSqueezesOnABusyHostAreNotAnEvent) {
  HostWatch watch(Thresholds{});
  record::HostInterval s = Sample(0, 0, 10);
  s.softnet = std::vector<record::SoftnetDelta>{{0, 1000, 0, 3}};
  EXPECT_EQ(Find(watch.Judge(s), EventKind::kSoftnetDrops), nullptr);
  s.softnet = std::vector<record::SoftnetDelta>{{0, 1000, 0, 40}};
  EXPECT_NE(Find(watch.Judge(s), EventKind::kSoftnetDrops), nullptr);
}

TEST(HostWatch, NicErrorCountersRisingButNotPackets) {
  HostWatch watch(Thresholds{});
  record::HostInterval s = Sample(0, 0, 10);
  s.nic_counters = std::map<std::string, int64_t>{{"rx_packets", 5000}, {"tx_bytes", 100}};
  EXPECT_EQ(Find(watch.Judge(s), EventKind::kNicErrors), nullptr);
  s.nic_counters = std::map<std::string, int64_t>{{"rx_packets", 5000}, {"rx_missed_errors", 4}};
  const auto now = watch.Judge(s);
  ASSERT_NE(Find(now, EventKind::kNicErrors), nullptr);
  EXPECT_EQ(Find(now, EventKind::kNicErrors)->evidence,
            std::vector<std::string>{"rx_missed_errors +4"});
}

TEST(LinkWatch, SpeedRenegotiatedAndCarrierLost) {
  LinkWatch watch;
  EXPECT_TRUE(watch.Judge("eth0", {true, 1000}).empty());
  const auto slow = watch.Judge("eth0", {true, 100});
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].kind, EventKind::kSpeedChanged);
  EXPECT_NE(slow[0].summary.find("1000 -> 100 Mbit/s"), std::string::npos) << slow[0].summary;
  EXPECT_TRUE(watch.Judge("eth0", {true, 1000}).empty());
  const auto down = watch.Judge("eth0", {false, std::nullopt});
  ASSERT_EQ(down.size(), 1u);
  EXPECT_EQ(down[0].kind, EventKind::kCarrierLost);
  EXPECT_TRUE(watch.Judge("veth0", {true, std::nullopt}).empty());  // unknown speed: nothing
}

record::RunRecord PeriodicTest(record::Direction direction, std::vector<double> mbits) {
  record::RunRecord run;
  run.spec.direction = direction;
  double t = 0;
  for (double m : mbits) {
    record::IntervalRecord i;
    i.start = t;
    i.end = t + 1;
    record::StreamInterval s;
    s.start = t;
    s.end = t + 1;
    s.bytes = static_cast<uint64_t>(m * 1e6 / 8);
    i.streams.push_back(s);
    run.intervals.push_back(i);
    t += 1;
  }
  return run;
}

TEST(TestWatch, DegradationIsJudgedAgainstTheFirstTestsWithCompareStatistics) {
  TestWatch watch(Thresholds{});
  const auto fwd = record::Direction::kForward;
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(watch.Judge(PeriodicTest(fwd, {941, 940, 942, 939, 941.0 + i})).empty());
  }
  // The other direction has its own baseline: its first test is not judged.
  EXPECT_TRUE(watch.Judge(PeriodicTest(record::Direction::kReverse, {90, 91, 92, 90, 91})).empty());
  // A little lower but within the threshold: nothing.
  EXPECT_TRUE(watch.Judge(PeriodicTest(fwd, {920, 921, 919, 922, 920})).empty());
  const auto low = watch.Judge(PeriodicTest(fwd, {94, 95, 93, 94, 96}));
  const Condition* c = Find(low, EventKind::kDegraded);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->subject, "forward");
  EXPECT_NE(c->summary.find("94.0 Mbit/s against a baseline of 941.0 Mbit/s (-90%)"),
            std::string::npos)
      << c->summary;
  EXPECT_NE(Joined(c->evidence).find("Mann-Whitney"), std::string::npos);
}

TEST(TestWatch, OneLowIntervalIsNotADegradation) {
  TestWatch watch(Thresholds{});
  const auto fwd = record::Direction::kForward;
  for (int i = 0; i < 3; ++i) watch.Judge(PeriodicTest(fwd, {941, 940, 942, 939, 941}));
  EXPECT_TRUE(watch.Judge(PeriodicTest(fwd, {941, 100, 940, 942, 941})).empty());
}

TEST(TestWatch, StoredBaselineJudgesTheFirstTest) {
  TestWatch watch(Thresholds{});
  const auto fwd = record::Direction::kForward;
  watch.SetBaseline(
      {PeriodicTest(fwd, {941, 940, 942, 939, 941}), PeriodicTest(fwd, {940, 941, 942, 943, 939})});
  EXPECT_NE(Find(watch.Judge(PeriodicTest(fwd, {94, 95, 93, 94, 96})), EventKind::kDegraded),
            nullptr);
}

TEST(LatencyWatch, P99WellAboveTheBaselineAndUnansweredProbes) {
  LatencyWatch watch(Thresholds{});
  auto window = [](double p99_us, uint64_t sent, uint64_t answered) {
    ProbeWindow w;
    w.what = "rr";
    w.sent = sent;
    w.answered = answered;
    record::LatencySummary s;
    s.count = answered;
    s.p50_us = p99_us / 2;
    s.p99_us = p99_us;
    s.max_us = p99_us;
    w.latency = s;
    return w;
  };
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(watch.Judge(window(200, 100, 100)).empty());
  EXPECT_TRUE(watch.Judge(window(500, 100, 100)).empty());  // 3x but under the 1 ms floor
  // One slow window is not yet an event; a second in a row is.
  EXPECT_TRUE(watch.Judge(window(1500000, 100, 100)).empty());
  EXPECT_TRUE(watch.Judge(window(200, 100, 100)).empty());
  EXPECT_TRUE(watch.Judge(window(1500000, 100, 100)).empty());
  const auto up = watch.Judge(window(1500000, 100, 100));  // the seed's 1.5 s
  ASSERT_NE(Find(up, EventKind::kLatencyUp), nullptr);
  EXPECT_NE(Find(up, EventKind::kLatencyUp)
                ->summary.find("p99 1500.00 ms against a baseline "
                               "of 0.20 ms"),
            std::string::npos);
  EXPECT_NE(Find(watch.Judge(window(200, 100, 90)), EventKind::kLoss), nullptr);
}

// A window of request/response probes: `us_counts` says how many took how long; its summary is
// the nearest-rank figures of those, its buckets the whole distribution, as the worker posts.
ProbeWindow Probes(const std::vector<std::pair<double, uint64_t>>& us_counts) {
  ProbeWindow w;
  w.what = "rr";
  std::vector<double> all;
  for (const auto& [us, n] : us_counts) {
    w.buckets.push_back(record::LatencyBucket{us, n});
    all.insert(all.end(), n, us);
  }
  std::sort(all.begin(), all.end());
  auto rank = [&all](double q) {
    return all[static_cast<size_t>(std::ceil(q * static_cast<double>(all.size()))) - 1];
  };
  record::LatencySummary s;
  s.count = all.size();
  s.p50_us = rank(0.5);
  s.p99_us = rank(0.99);
  s.max_us = all.back();
  w.latency = s;
  w.sent = w.answered = all.size();
  return w;
}

// The idle stand's clean phase: a 0.56 ms baseline, then windows of 90 probes (setup takes
// the rest of ten seconds) in each of which one probe came late, 1.74 ms. In fewer than 100
// probes the p99 is the slowest one: by the p99 alone two such windows opened latency-up.
TEST(LatencyWatch, OneLateProbeAWindowIsNotARise) {
  LatencyWatch watch(Thresholds{});
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(watch.Judge(Probes({{120, 98}, {560, 2}})).empty());
  for (int i = 0; i < 4; ++i) {
    const ProbeWindow late = Probes({{120, 89}, {1740, 1}});
    ASSERT_DOUBLE_EQ(late.latency->p99_us, 1740);  // above 3 x 0.56 ms and 1 ms above it
    EXPECT_TRUE(watch.Judge(late).empty()) << i;
  }
}

// A real rise delays many probes: the flood's backlog (most of them) and the seed-2 post's
// pings at 1.5 s (all of them) open the event at the second window.
TEST(LatencyWatch, ARiseOfManyProbesOpensTheEvent) {
  for (const auto& rise : {Probes({{120, 50}, {150000, 50}}), Probes({{1500000, 100}})}) {
    LatencyWatch watch(Thresholds{});
    for (int i = 0; i < 3; ++i) watch.Judge(Probes({{120, 98}, {560, 2}}));
    EXPECT_TRUE(watch.Judge(rise).empty());
    const auto up = watch.Judge(rise);
    const Condition* c = Find(up, EventKind::kLatencyUp);
    ASSERT_NE(c, nullptr);
    EXPECT_NE(c->summary.find("against a baseline of 0.56 ms"), std::string::npos) << c->summary;
    const uint64_t slow = rise.buckets.back().count;
    EXPECT_NE(
        Joined(c->evidence).find(fmt::format("{} of the 100 probes took 1.68 ms or more", slow)),
        std::string::npos)
        << Joined(c->evidence);
  }
  // Two late probes in a window are a p99 by any count: the rule still counts them.
  LatencyWatch watch(Thresholds{});
  for (int i = 0; i < 3; ++i) watch.Judge(Probes({{120, 98}, {560, 2}}));
  watch.Judge(Probes({{120, 98}, {5000, 2}}));
  EXPECT_NE(Find(watch.Judge(Probes({{120, 98}, {5000, 2}})), EventKind::kLatencyUp), nullptr);
}

// A probe window of 100 request/response probes with this p99 (and p50 half of it).
ProbeWindow RrWindow(double p99_us) {
  ProbeWindow w;
  w.what = "rr";
  w.sent = w.answered = 100;
  record::LatencySummary s;
  s.count = 100;
  s.p50_us = p99_us / 2;
  s.p99_us = s.max_us = p99_us;
  w.latency = s;
  return w;
}

// A second of ten probes, each taking `us`.
ProbeInterval Second(double us) {
  ProbeInterval i;
  i.seconds = 1;
  i.buckets = {record::LatencyBucket{us, 10}};
  return i;
}

// A host event's latency evidence is the probes taken while its condition held: the window
// that ended before it began says nothing of it (the soak stand's flood opened core-saturated
// with "p99 0.51 ms, baseline 0.56 ms", the window before the storm).
TEST(LatencyWatch, DuringTakesTheLiveProbesOfTheConditionsSpan) {
  LatencyWatch watch(Thresholds{});
  EXPECT_EQ(watch.During(0, 10), "");  // no probe yet
  for (int i = 0; i < 3; ++i) watch.Judge(RrWindow(200));
  watch.Judge(RrWindow(190));
  // Before any live interval in the span: the latest window, said to be from before.
  EXPECT_EQ(watch.During(100, 110),
            "the last window, before this began: request/response p99 0.19 ms, baseline 0.20 ms");
  watch.Live(Second(200), 100);  // calm, before the condition
  for (double t = 101; t <= 110; ++t) watch.Live(Second(150000), t);
  EXPECT_EQ(watch.During(100, 110),
            "request/response over the last 10 s (100 probes): p99 150.00 ms, baseline 0.20 ms");
  // A span that began mid-way takes only its own seconds.
  watch.Live(Second(300), 111);
  EXPECT_EQ(watch.During(109, 111),
            "request/response over the last 2 s (20 probes): p99 150.00 ms, baseline 0.20 ms");
}

// The judge: a core saturated while the probe window in progress sees the storm opens its
// event with the live probes' p99, not the finished window's from before the storm.
TEST(MonitorJudge, AHostEventsLatencyEvidenceIsFromProbesDuringIt) {
  std::vector<record::MonitorEvent> events;
  MonitorSinks sinks;
  sinks.event = [&](const record::MonitorEvent& e) { events.push_back(e); };
  MonitorJudge judge("m", "nas", Short(), sinks);
  for (int i = 0; i < 3; ++i) judge.OnProbe(RrWindow(200), 10 + 10 * i);  // the baseline
  judge.OnProbe(RrWindow(190), 40);  // the last window before the storm
  for (int t = 41; t <= 45; ++t) {
    judge.OnProbeInterval(Second(200), t - 0.1);
    judge.OnSample(Sample(t - 1, 0, 988), "", LinkState{}, t);
  }
  for (int t = 46; t <= 48; ++t) {  // the storm: three seconds, Short()'s saturated_for
    judge.OnProbeInterval(Second(150000), t - 0.1);
    judge.OnSample(Sample(t - 1, 100, 2500), "", LinkState{}, t);
  }
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, EventKind::kCoreSaturated);
  EXPECT_EQ(events[0].evidence.back(),
            "latency probe: request/response over the last 3 s (30 probes): p99 150.00 ms, "
            "baseline 0.20 ms")
      << Joined(events[0].evidence);
}

TEST(EventBook, OpensOnceResolvesWithTheSameIdAndKeepsSourcesApart) {
  EventBook book("m1");
  const Condition hot{EventKind::kCoreSaturated, "cpu0", "cpu0 saturated", {"evidence"}};
  auto opened = book.Update("host", {hot}, 100);
  ASSERT_EQ(opened.size(), 1u);
  EXPECT_EQ(opened[0].id, 1u);
  EXPECT_FALSE(opened[0].resolved);
  EXPECT_EQ(opened[0].monitor, "m1");
  EXPECT_TRUE(book.Update("host", {hot}, 101).empty());  // still open: no new line
  // Another source's update leaves the host's event alone.
  EXPECT_TRUE(book.Update("link", {}, 102).empty());
  EXPECT_EQ(book.OpenByKind().at("core-saturated"), 1);
  EXPECT_EQ(book.OpenByKind().at("degraded"), 0);
  auto resolved = book.Update("host", {}, 130);
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(resolved[0].id, 1u);
  EXPECT_TRUE(resolved[0].resolved);
  EXPECT_EQ(resolved[0].opened_unix, 100);
  EXPECT_EQ(resolved[0].at_unix, 130);
  EXPECT_EQ(book.Update("host", {hot}, 140).at(0).id, 2u);
}

// The judge with sinks that record: a store that fails is an event, a store that works again
// resolves it; the peer's reachability likewise; the metrics follow.
TEST(MonitorJudge, StoreAndPeerTroubleAreEventsAndTheMetricsFollow) {
  std::vector<record::MonitorEvent> events;
  bool store_up = false;
  record::MonitorMetrics last;
  MonitorSinks sinks;
  sinks.event = [&](const record::MonitorEvent& e) { events.push_back(e); };
  sinks.run = [&](const record::RunRecord&) -> Status {
    if (store_up) return Ok();
    return Fail("sqlite:/x.db: database is locked");
  };
  sinks.metrics = [&](const record::MonitorMetrics& m) { last = m; };
  MonitorJudge judge("m", "nas", Thresholds{}, sinks);
  engine::ClientOutcome test;
  test.record = PeriodicTest(record::Direction::kForward, {941, 940});
  judge.OnTest(test, 10);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, EventKind::kStoreUnavailable);
  EXPECT_EQ(events[0].evidence.at(0), "sqlite:/x.db: database is locked");
  EXPECT_EQ(last.open_events.at("store-unavailable"), 1);
  EXPECT_DOUBLE_EQ(last.goodput_bits_per_second.at("forward"), 940.5e6);
  store_up = true;
  judge.OnTest(test, 20);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_TRUE(events[1].resolved);
  judge.OnPeer(false, "connect: Connection refused", 30);
  judge.OnPeer(true, "", 40);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[2].kind, EventKind::kPeerUnreachable);
  EXPECT_EQ(events[2].subject, "nas");
  EXPECT_TRUE(events[3].resolved);
  EXPECT_EQ(last.tests, 2u);
  EXPECT_EQ(last.events_opened, 2u);
}

// A nicbench peer's samples come with each probe window: its storm is the peer's event.
TEST(MonitorJudge, ThePeersSamplesAreJudgedAsThePeersHost) {
  std::vector<record::MonitorEvent> events;
  MonitorSinks sinks;
  sinks.event = [&](const record::MonitorEvent& e) { events.push_back(e); };
  MonitorJudge judge("m", "nas", Short(), sinks);
  ProbeWindow window;
  window.what = "rr";
  record::LatencySummary slow;
  slow.count = 10;
  slow.p99_us = 1500000;  // the seed's 1.5 s pings
  window.latency = slow;
  for (int i = 0; i < 5; ++i) window.peer_samples.push_back(Sample(i, 0, 988));
  for (int i = 5; i < 9; ++i) window.peer_samples.push_back(Sample(i, 100, 898));
  judge.OnProbe(window, 100);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, EventKind::kCoreSaturated);
  EXPECT_EQ(events[0].subject, "peer cpu0");
  EXPECT_NE(events[0].summary.find("peer cpu0 saturated by hard irq"), std::string::npos)
      << events[0].summary;
  EXPECT_NE(events[0].summary.find("livelocked"), std::string::npos);
  EXPECT_EQ(events[0].evidence.back(), "latency probe: request/response p99 1500.00 ms");
}

std::vector<record::MonitorEvent> Replay(const std::string& fixture, Thresholds t) {
  std::vector<record::MonitorEvent> events;
  MonitorSinks sinks;
  sinks.event = [&events](const record::MonitorEvent& e) { events.push_back(e); };
  const Status s =
      ReplayMonitor(nicbench::testing::TestdataDir() + "/monitor/" + fixture, "r", t, sinks);
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  return events;
}

TEST(MonitorReplay, Seed2StormRaisesTheLivelockedInterruptEvent) {
  const auto events = Replay("seed2-storm", Short());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, EventKind::kCoreSaturated);
  EXPECT_EQ(events[0].subject, "cpu0");
  EXPECT_NE(events[0].summary.find("livelocked"), std::string::npos) << events[0].summary;
  // The NIC's two lines before and during, as the post's vmstat -i shows them.
  EXPECT_NE(Joined(events[0].evidence).find("1911/s now, 2160/s before"), std::string::npos)
      << Joined(events[0].evidence);
  EXPECT_NE(Joined(events[0].evidence).find("em0-rx-0 898/s"), std::string::npos);
}

TEST(MonitorReplay, Seed2WithoutTheStormRaisesNothing) {
  EXPECT_TRUE(Replay("seed2-calm", Short()).empty());
}

TEST(MonitorReplay, NotASeriesIsAnErrorNamingTheDirectory) {
  MonitorSinks sinks;
  const Status s = ReplayMonitor(nicbench::testing::TestdataDir() + "/proc", "r", {}, sinks);
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.error().message.find("no series there"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace nicbench::job
