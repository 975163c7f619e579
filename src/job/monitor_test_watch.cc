// The periodic tests' conditions (docs/monitor.md, "Events").
#include <fmt/format.h>

#include <algorithm>

#include "analysis/statistics.h"
#include "job/monitor_rules.h"

namespace nicbench::job {
namespace {

using record::EventKind;

std::string Rate(double bits_per_second) {
  return fmt::format("{:.1f} Mbit/s", bits_per_second / 1e6);
}

double Median(std::vector<double> values) {
  auto s = analysis::Summarize(std::move(values));
  return s ? s->median : 0;
}

// Lost datagrams of a UDP test's receiving streams, in percent of those sent.
std::optional<Condition> UdpLoss(const record::RunRecord& run, const std::string& direction,
                                 double threshold) {
  if (run.spec.transport != record::Transport::kUdp) return std::nullopt;
  uint64_t packets = 0, lost = 0;
  for (const record::IntervalRecord& i : run.intervals) {
    for (const record::StreamInterval& s : i.streams) {
      packets += s.packets;
      lost += s.lost;
    }
  }
  if (packets + lost == 0) return std::nullopt;
  const double percent = 100.0 * static_cast<double>(lost) / static_cast<double>(packets + lost);
  if (percent < threshold) return std::nullopt;
  return Condition{EventKind::kLoss,
                   direction,
                   fmt::format("{}: {:.1f}% of UDP datagrams lost", direction, percent),
                   {fmt::format("{} of {} datagrams lost", lost, packets + lost)}};
}

uint64_t Retransmits(const record::RunRecord& run) {
  uint64_t n = 0;
  for (const record::IntervalRecord& i : run.intervals) {
    for (const record::StreamInterval& s : i.streams) n += s.retransmits;
  }
  return n;
}

}  // namespace

std::vector<double> IntervalGoodputs(const record::RunRecord& run) {
  std::vector<double> out;
  for (const record::IntervalRecord& i : run.intervals) {
    if (i.omitted || !(i.end > i.start)) continue;
    double bits = 0;
    for (const record::StreamInterval& s : i.streams) bits += s.BitsPerSecond();
    out.push_back(bits);
  }
  return out;
}

std::string DirectionName(const record::RunRecord& run) {
  switch (run.spec.direction) {
    case record::Direction::kForward: return "forward";
    case record::Direction::kReverse: return "reverse";
    case record::Direction::kBidirectional: return "bidirectional";
  }
  return "forward";
}

void TestWatch::SetBaseline(const std::vector<record::RunRecord>& runs) {
  for (const record::RunRecord& run : runs) {
    Direction& d = directions_[DirectionName(run)];
    const std::vector<double> samples = IntervalGoodputs(run);
    d.baseline.insert(d.baseline.end(), samples.begin(), samples.end());
    d.fixed = true;
  }
}

std::vector<Condition> TestWatch::Judge(const record::RunRecord& run) {
  std::vector<Condition> out;
  const std::string direction = DirectionName(run);
  if (auto loss = UdpLoss(run, direction, t_.loss_percent)) out.push_back(std::move(*loss));
  const std::vector<double> now = IntervalGoodputs(run);
  Direction& d = directions_[direction];
  if (!d.fixed && d.baseline_tests < t_.baseline_tests) {
    d.baseline.insert(d.baseline.end(), now.begin(), now.end());
    ++d.baseline_tests;
    return out;
  }
  if (now.empty() || d.baseline.empty()) return out;
  const analysis::Comparison c = analysis::Compare(d.baseline, now);
  if (c.verdict != analysis::Verdict::kSignificant || !c.change_percent ||
      *c.change_percent > -t_.degraded_percent) {
    return out;
  }
  Condition cond;
  cond.kind = EventKind::kDegraded;
  cond.subject = direction;
  cond.summary = fmt::format("{} goodput {} against a baseline of {} ({:+.0f}%)", direction,
                             Rate(Median(now)), Rate(Median(d.baseline)), *c.change_percent);
  cond.evidence.push_back(
      fmt::format("medians of {} intervals against {} baseline intervals, Mann-Whitney p={:.4f}",
                  now.size(), d.baseline.size(), c.test ? c.test->p : 1.0));
  cond.evidence.push_back(
      fmt::format("range now {} .. {}", Rate(c.b ? c.b->min : 0), Rate(c.b ? c.b->max : 0)));
  if (run.spec.transport == record::Transport::kTcp) {
    cond.evidence.push_back(fmt::format("TCP retransmits in the test: {}", Retransmits(run)));
  }
  out.push_back(std::move(cond));
  return out;
}

}  // namespace nicbench::job
