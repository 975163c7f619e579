// Accuracy scenarios 1 and 2 (issue 5): TCP goodput across a shaped stand link against the
// theoretical goodput of the token bucket, for `nicbench run` and classic ttcp, and the byte
// counts of both ends. Root only; every stand is a ScopedStand with its own name, so a failing
// test leaves no namespace behind. The formulas are in docs/accuracy.md.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "accuracy_stand.h"

namespace nicbench::accuracy {
namespace {

constexpr double kGoodputTolerance = 0.03;  // the issue's ±3%
constexpr double kByteAgreement = 0.005;    // the issue's 0.5%
// A run on a machine shared with the team's builds can lose the CPU (and with it the softirq
// that dequeues tbf) for longer than the bucket's 1 ms of burst; that only ever lowers the
// goodput. Up to this many runs are made and the best is judged, so a starved run does not
// fail the scenario while a tool that mis-counts (too high or too low every time) still does.
constexpr int kAttempts = 3;

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

// Sender's and receiver's byte counts of one direction agree within kByteAgreement.
void ExpectBytesAgree(const nlohmann::json& doc, const std::string& suffix) {
  const double sent = NumberAt(doc, "/end/sum_sent" + suffix + "/bytes");
  const double received = NumberAt(doc, "/end/sum_received" + suffix + "/bytes");
  ASSERT_FALSE(std::isnan(sent) || std::isnan(received)) << "no end.sum_sent" << suffix;
  EXPECT_GT(received, 0);
  EXPECT_LE(RelativeError(received, sent), kByteAgreement)
      << "sum_sent" << suffix << " " << sent << " B vs sum_received" << suffix << " " << received
      << " B";
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
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    PairRun run = RunNicbenchPair(*stand, 2, 1, kTimedArgs);
    ASSERT_TRUE(run.doc.is_object());
    ExpectBytesAgree(run.doc, "");
    const double goodput = NumberAt(run.doc, "/end/sum_received/bits_per_second");
    ASSERT_FALSE(std::isnan(goodput)) << run.client.out.substr(0, 2000);
    tried += fmt::format("\n  run {}: {} (intervals: {})", attempt + 1, Mbps(goodput),
                         Intervals(run.doc));
    best = std::max(best, goodput);
    if (RelativeError(best, expected) <= kGoodputTolerance) break;
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
  std::string shortfall;
  for (const Direction& d : directions) {
    SCOPED_TRACE(d.name);
    // 15 counted seconds: the tbf queue holds 50 ms of line rate (6.25 MB), which can sit on
    // either side of a window's edge; 6.25 MB of ~1.8 GB keeps both ends' counts within 0.35%.
    std::vector<std::string> args = {"-t", "15", "-O", "2"};
    args.insert(args.end(), d.args.begin(), d.args.end());
    // As on 100baseTX: up to kAttempts runs, the best of each direction judged.
    std::vector<double> best(d.suffixes.size(), 0.0);
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      PairRun run = RunNicbenchPair(*stand, 2, 1, args);
      ASSERT_TRUE(run.doc.is_object());
      bool all_in_band = true;
      for (size_t i = 0; i < d.suffixes.size(); ++i) {
        ExpectBytesAgree(run.doc, d.suffixes[i]);
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
      if (RelativeError(best[i], expected) > kGoodputTolerance) {
        shortfall += fmt::format(" {}{} {};", d.name, d.suffixes[i], Mbps(best[i]));
      }
    }
  }
  if (shortfall.empty()) return;
  // Below the band: only acceptable when the machine itself cannot move a gigabit through a veth.
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
