#include "analysis/figures.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <string>

#include <fmt/format.h>

#include "analysis/unknown_figure.h"
#include "record/json.h"

namespace nicbench::analysis {
namespace {

using record::Measured;
using record::Missing;

// Each CPU's busy and idle share of one sample into the sums.
void AddCpuShares(const std::vector<record::CpuShare>& cpus, NicInterrupts& out) {
  ++out.cpu_samples;
  if (out.busy_sum.size() < cpus.size()) {
    out.busy_sum.resize(cpus.size());
    out.idle_sum.resize(cpus.size());
  }
  for (size_t c = 0; c < cpus.size(); ++c) {
    out.busy_sum[c] += cpus[c].Busy();
    out.idle_sum[c] += cpus[c].idle;
  }
}

Measured<double> Rate(uint64_t bytes, double seconds) {
  if (!(seconds > 0)) return UnknownFigure(Missing::kAbsent, "no time measured");
  return bytes * 8.0 / seconds;
}

// A run interrupted before the results exchange has only this end's side of its streams: the
// peer's count is unknown, never 0.
bool PeerSideMissing(const record::RunRecord& run, bool local_sends) {
  return std::any_of(run.streams.begin(), run.streams.end(), [&](const record::StreamTotals& s) {
    return s.sender == local_sends && !s.peer_reported;
  });
}

// Goodput of one direction; both unknown when no stream went that way.
DirectionFigures DirectionOf(const record::RunRecord& run, Role sender) {
  DirectionFigures out;
  const bool local_sends = RoleOf(run.local) == sender;
  const DirectionTotals t = TotalsOf(run, local_sends);
  if (t.streams == 0) {
    out.sender_bits_per_second = UnknownFigure(Missing::kAbsent, "no data in this direction");
    out.receiver_bits_per_second = out.sender_bits_per_second;
    return out;
  }
  out.sender_bits_per_second = Rate(t.bytes_sent, t.seconds_sent > 0 ? t.seconds_sent : t.seconds);
  out.receiver_bits_per_second =
      Rate(t.bytes_received, t.seconds_received > 0 ? t.seconds_received : t.seconds);
  if (PeerSideMissing(run, local_sends)) {
    (local_sends ? out.receiver_bits_per_second : out.sender_bits_per_second) = UnknownFigure(
        Missing::kNotReported, "the test was interrupted before the peer reported it");
  }
  return out;
}

Measured<double> Retransmits(const record::RunRecord& run) {
  if (run.spec.transport != record::Transport::kTcp) {
    return UnknownFigure(Missing::kAbsent, "not TCP");
  }
  bool any = false;
  double sum = 0;
  for (const bool local_sends : {true, false}) {
    const DirectionTotals t = TotalsOf(run, local_sends);
    if (t.streams == 0) continue;
    if (!t.retransmits) return UnknownFigure(Missing::kNotReported, "a sender did not report them");
    any = true;
    sum += static_cast<double>(*t.retransmits);
  }
  if (!any) return UnknownFigure(Missing::kAbsent, "no streams");
  return sum;
}

// The sending streams' RTT over the counted intervals of the end that sent them.
void AddRtts(const std::vector<record::IntervalRecord>& intervals, double& sum, int& n) {
  for (const record::IntervalRecord& interval : intervals) {
    if (interval.omitted) continue;
    for (const record::StreamInterval& s : interval.streams) {
      const record::TcpInfoSample* info = s.tcp_info.get();
      if (!s.sender || info == nullptr || info->rtt_us == 0) continue;
      sum += info->rtt_us;
      ++n;
    }
  }
}

// The intervals the end in the sender's seat kept: the local end's own, or the run's when an
// older record has only those.
const std::vector<record::IntervalRecord>& LocalIntervals(const record::RunRecord& run) {
  return run.local.intervals.empty() ? run.intervals : run.local.intervals;
}

Measured<double> MeanRtt(const record::RunRecord& run) {
  if (run.spec.transport != record::Transport::kTcp)
    return UnknownFigure(Missing::kAbsent, "not TCP");
  double sum = 0;
  int n = 0;
  const Duty local = DutyOf(RoleOf(run.local), run.spec.direction);
  if (local.sends) AddRtts(LocalIntervals(run), sum, n);
  if (local.receives && run.remote.known()) AddRtts(run.remote.value().intervals, sum, n);
  if (n == 0) return UnknownFigure(Missing::kNotReported, "no sender TCP_INFO");
  return sum / n;
}

}  // namespace

double SampleSeconds(const record::HostInterval& sample) { return sample.end - sample.start; }

Measured<double> SenderMeanRttUs(const std::vector<record::IntervalRecord>& intervals) {
  double sum = 0;
  int n = 0;
  AddRtts(intervals, sum, n);
  if (n == 0) return UnknownFigure(Missing::kNotReported, "no sender TCP_INFO");
  return sum / n;
}

Role RoleOf(const record::EndpointRecord& end) { return end.role; }

const char* RoleName(Role role) { return record::RoleName(role); }

Duty DutyOf(Role role, record::Direction direction) {
  Duty duty;
  const bool both = direction == record::Direction::kBidirectional;
  duty.sends = both || (direction == record::Direction::kForward) == (role == Role::kClient);
  duty.receives = both || !duty.sends;
  return duty;
}

bool Counts(const record::RunRecord& run, double start, double end) {
  const double omit = std::chrono::duration<double>(run.spec.omit).count();
  const double interval = std::chrono::duration<double>(run.spec.interval).count();
  const double dt = end - start;
  if (dt <= 0 || end <= omit + 1e-6) return false;
  return !(interval > 0 && dt < interval / 4);
}

std::vector<const record::HostInterval*> CountedSamples(const record::RunRecord& run,
                                                        const record::EndpointRecord& end) {
  std::vector<const record::HostInterval*> out;
  for (const record::HostInterval& sample : end.samples) {
    if (Counts(run, sample.start, sample.end)) out.push_back(&sample);
  }
  return out;
}

std::vector<double> IntervalBitsPerSecond(const record::RunRecord& run, bool local_sends) {
  std::vector<double> out;
  for (const record::IntervalRecord& iv : run.intervals) {
    if (iv.omitted || !Counts(run, iv.start, iv.end)) continue;
    uint64_t bytes = 0;
    for (const record::StreamInterval& s : iv.streams) {
      if (s.sender == local_sends) bytes += s.bytes;
    }
    out.push_back(bytes * 8.0 / (iv.end - iv.start));
  }
  return out;
}

DirectionTotals TotalsOf(const record::RunRecord& run, bool local_sends) {
  DirectionTotals t;
  bool all_retransmits = true;
  for (const record::StreamTotals& s : run.streams) {
    if (s.sender != local_sends) continue;
    ++t.streams;
    t.bytes_sent += s.bytes_sent;
    t.bytes_received += s.bytes_received;
    t.seconds_sent = std::max(t.seconds_sent, s.seconds_sent);
    t.seconds_received = std::max(t.seconds_received, s.seconds_received);
    if (s.retransmits.known()) {
      t.retransmits = t.retransmits.value_or(0) + s.retransmits.value();
    } else {
      all_retransmits = false;
    }
    t.udp_packets += s.packets;
    t.udp_lost += s.lost;
  }
  if (!all_retransmits || t.streams == 0) t.retransmits.reset();
  t.seconds = std::max(t.seconds_sent, t.seconds_received);
  if (t.seconds <= 0) t.seconds = run.test_seconds;
  return t;
}

double ReceiverBitsPerSecond(const DirectionTotals& t) {
  const uint64_t bytes = t.bytes_received > 0 ? t.bytes_received : t.bytes_sent;
  return t.seconds > 0 ? bytes * 8.0 / t.seconds : 0;
}

const record::EndpointRecord* EndIn(const record::RunRecord& run, Role role) {
  if (RoleOf(run.local) == role) return &run.local;
  return run.remote.known() ? &run.remote.value() : nullptr;
}

double EndBitsPerSecond(const record::RunRecord& run, Role role) {
  const Duty duty = DutyOf(role, run.spec.direction);
  const bool local = RoleOf(run.local) == role;
  double bits = 0;
  // The end's sending direction is the local end's when it is local, and the other otherwise.
  if (duty.sends) bits += ReceiverBitsPerSecond(TotalsOf(run, local));
  if (duty.receives) bits += ReceiverBitsPerSecond(TotalsOf(run, !local));
  return bits;
}

std::optional<double> BusyCores(const record::RunRecord& run, const record::EndpointRecord& end) {
  double sum = 0, seconds = 0;
  for (const record::HostInterval* s : CountedSamples(run, end)) {
    const auto* cpus = s->cpus.get();
    if (cpus == nullptr) continue;
    double busy = 0;
    for (const record::CpuShare& c : *cpus) busy += c.Busy() / 100.0;
    sum += busy * SampleSeconds(*s);
    seconds += SampleSeconds(*s);
  }
  if (seconds <= 0) return std::nullopt;
  return sum / seconds;
}

NicInterrupts CountNicInterrupts(const record::RunRecord& run, const record::EndpointRecord& end) {
  NicInterrupts out;
  for (const record::HostInterval* s : CountedSamples(run, end)) {
    const auto* irqs = s->irqs.get();
    if (irqs == nullptr) continue;
    out.seconds += SampleSeconds(*s);
    for (const record::IrqRate& line : *irqs) {
      if (!line.nic) continue;
      out.total += line.total;
      out.per_line[fmt::format("{} (irq {})", line.name, line.irq)] += line.total;
      if (out.per_cpu.size() < line.per_cpu.size()) out.per_cpu.resize(line.per_cpu.size());
      for (size_t c = 0; c < line.per_cpu.size(); ++c) out.per_cpu[c] += line.per_cpu[c];
    }
    if (const auto* cpus = s->cpus.get()) AddCpuShares(*cpus, out);
  }
  return out;
}

bool IsSoftwareNic(const record::NicFacts& nic) {
  if (nic.loopback) return true;
  static const std::set<std::string> kSoftware = {"veth", "tun", "bridge", "dummy"};
  return nic.driver.known() && kSoftware.count(nic.driver.value()) > 0;
}

RunFigures ComputeFigures(const record::RunRecord& run) {
  RunFigures f;
  f.client_to_server = DirectionOf(run, Role::kClient);
  f.server_to_client = DirectionOf(run, Role::kServer);
  f.client = CostOf(run, Role::kClient);
  f.server = CostOf(run, Role::kServer);
  f.retransmits = Retransmits(run);
  f.mean_rtt_us = MeanRtt(run);
  f.rr = ComputeRrFigures(run);
  return f;
}

}  // namespace nicbench::analysis
