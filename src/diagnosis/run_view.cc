#include "diagnosis/run_view.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "analysis/figures.h"

namespace nicbench::diagnosis {
namespace {

using record::Direction;

std::string EndName(bool local, bool client, bool sends, bool receives) {
  const char* part = sends && receives ? "sender+receiver" : sends ? "sender" : "receiver";
  return fmt::format("{} {} ({})", local ? "local" : "remote", client ? "client" : "server", part);
}

End MakeEnd(const record::EndpointRecord& rec, bool local, bool client, Direction direction) {
  End end;
  end.record = &rec;
  end.local = local;
  end.client = client;
  const analysis::Duty duty =
      analysis::DutyOf(client ? analysis::Role::kClient : analysis::Role::kServer, direction);
  end.sends = duty.sends;
  end.receives = duty.receives;
  end.name = EndName(local, client, end.sends, end.receives);
  return end;
}

// Sums of the sender streams' cumulative DSACK and reordering counts at the end of `interval`.
std::pair<uint64_t, uint64_t> ReorderCounts(const record::IntervalRecord& interval) {
  uint64_t dsack = 0, seen = 0;
  for (const auto& stream : interval.streams) {
    const record::TcpInfoSample* info = stream.tcp_info.get();
    if (!stream.sender || info == nullptr) continue;
    dsack += info->dsack_dups;
    seen += info->reord_seen;
  }
  return {dsack, seen};
}

// The sender's TCP_INFO at the end of its last counted interval; the DSACK and reordering counts
// are taken from the end of the omitted warm-up on.
std::optional<SenderTcp> LastSenderTcp(const std::vector<record::IntervalRecord>& intervals) {
  std::pair<uint64_t, uint64_t> base{0, 0};
  for (const auto& interval : intervals) {
    if (interval.omitted) base = ReorderCounts(interval);
  }
  for (auto it = intervals.rbegin(); it != intervals.rend(); ++it) {
    if (it->omitted) continue;
    SenderTcp tcp;
    const auto [dsack, seen] = ReorderCounts(*it);
    tcp.dsack_dups = dsack > base.first ? dsack - base.first : 0;
    tcp.reord_seen = seen > base.second ? seen - base.second : 0;
    int known = 0;
    for (const auto& stream : it->streams) {
      const record::TcpInfoSample* info = stream.tcp_info.get();
      if (!stream.sender || info == nullptr) continue;
      ++known;
      tcp.busy_us += info->busy_time_us;
      tcp.rwnd_limited_us += info->rwnd_limited_us;
      tcp.sndbuf_limited_us += info->sndbuf_limited_us;
      tcp.snd_mss = std::max(tcp.snd_mss, info->snd_mss);
      tcp.reordering = std::max(tcp.reordering, info->reordering);
      if (info->snd_wnd > 0 && (tcp.snd_wnd == 0 || info->snd_wnd < tcp.snd_wnd)) {
        tcp.snd_wnd = info->snd_wnd;
      }
    }
    if (known == 0) continue;
    // Over every counted interval, as analysis computes it for the store and compare: the
    // last interval alone once stood here under the same name.
    tcp.mean_rtt_us = analysis::SenderMeanRttUs(intervals).value_or(0);
    return tcp;
  }
  return std::nullopt;
}

}  // namespace

RunView::RunView(const record::RunRecord& run) : run_(run) {
  bool local_client = analysis::RoleOf(run.local) == analysis::Role::kClient;
  local_ = MakeEnd(run.local, true, local_client, run.spec.direction);
  if (run.remote.known()) {
    remote_ = MakeEnd(run.remote.value(), false, !local_client, run.spec.direction);
  }
  BuildFlows();
}

std::vector<const End*> RunView::ends() const {
  std::vector<const End*> out = {&local_};
  if (remote_) out.push_back(&*remote_);
  return out;
}

bool RunView::ipv6() const {
  for (const auto& c : run_.connections) {
    if (c.local_host.find(':') != std::string::npos) return true;
  }
  return false;
}

void RunView::BuildFlows() {
  if (local_.sends) flows_.push_back(MakeFlow(true));
  if (local_.receives) flows_.push_back(MakeFlow(false));
}

Flow RunView::MakeFlow(bool local_sends) const {
  Flow flow;
  flow.local_sends = local_sends;
  flow.sender = local_sends ? &local_ : remote();
  flow.receiver = local_sends ? remote() : &local_;
  const analysis::DirectionTotals totals = analysis::TotalsOf(run_, local_sends);
  flow.streams = totals.streams;
  flow.bytes_sent = totals.bytes_sent;
  flow.bytes_received = totals.bytes_received;
  flow.seconds = totals.seconds;
  flow.retransmits = totals.retransmits;
  flow.udp_packets = totals.udp_packets;
  flow.udp_lost = totals.udp_lost;
  flow.bits_per_second = analysis::ReceiverBitsPerSecond(totals);

  const record::EndpointRecord* sender = flow.sender ? flow.sender->record : nullptr;
  if (sender != nullptr) {
    const auto& intervals =
        (local_sends && sender->intervals.empty()) ? run_.intervals : sender->intervals;
    flow.tcp = LastSenderTcp(intervals);
  }

  // Each counted interval's goodput, by analysis's one rule for what counts.
  flow.interval_bits_per_second = analysis::IntervalBitsPerSecond(run_, local_sends);
  return flow;
}

std::vector<const record::HostInterval*> RunView::Samples(const End& end) const {
  if (end.record == nullptr) return {};
  return analysis::CountedSamples(run_, *end.record);
}

bool RunView::UnshapedSoftwarePath() const {
  for (const End* end : ends()) {
    const record::NicFacts& nic = end->record->nic;
    if (nic.loopback) continue;
    if (!IsSoftwareNic(nic)) return false;
    if (QdiscRate(nic) > 0) return false;
  }
  // With a stock peer only the local end is known; its NIC decides.
  return true;
}

bool RunView::SharedHost() const { return remote_ && analysis::SharedHost(run_); }

bool RunView::SharedProtocolCounters() const {
  return SharedHost() && local_.record->nic.loopback && remote_->record->nic.loopback;
}

std::string RunView::SharedPlace(bool receive_side) const {
  std::vector<const End*> side;
  for (const End* end : ends()) {
    if (receive_side ? end->receives : end->sends) side.push_back(end);
  }
  return side.size() == 1 ? side.front()->name : HostPlace();
}

std::string RunView::HostPlace() const {
  const auto& host = local_.record->host.hostname;
  return fmt::format("host {} (both ends)", host.known() ? host.value() : std::string("?"));
}

bool IsSoftwareNic(const record::NicFacts& nic) { return analysis::IsSoftwareNic(nic); }

uint64_t QdiscRate(const record::NicFacts& nic) {
  return nic.qdisc.known() ? nic.qdisc.value().rate_bits_per_second : 0;
}

std::string FlowName(const Flow& flow) {
  auto name = [](const End* end, const char* unreported) {
    return end ? end->name : std::string(unreported);
  };
  return fmt::format("{} to {}", name(flow.sender, "remote (sender, not reported)"),
                     name(flow.receiver, "remote (receiver, not reported)"));
}

std::string IntervalText(double start, double end) {
  return fmt::format("{:.1f}-{:.1f} s", start, end);
}

double Mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double sum = 0;
  for (double v : values) sum += v;
  return sum / values.size();
}

double CoefficientOfVariation(const std::vector<double>& values) {
  double mean = Mean(values);
  if (values.size() < 2 || mean <= 0) return 0;
  double sq = 0;
  for (double v : values) sq += (v - mean) * (v - mean);
  return std::sqrt(sq / values.size()) / mean;
}

}  // namespace nicbench::diagnosis
