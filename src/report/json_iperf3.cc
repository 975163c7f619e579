// The iperf3-shaped "intervals" and "end" members of the JSON report. Member names, nesting and
// units follow iperf3 3.12's -J output (docs/json-schema.md lists them). Where a value is
// unknown the member keeps iperf3's 0 (its parsers expect a number) and "unknown" beside it
// says why.
#include <algorithm>

#include "analysis/figures.h"
#include "analysis/stream_sender.h"
#include "record/json_rr.h"
#include "report/format.h"
#include "report/json_parts.h"
#include "report/sums.h"

namespace nicbench::report::json_parts {
namespace {

constexpr const char* kNoDuration = "not present: zero-length interval";

bool IsTcp(const record::RunRecord& run) { return run.spec.transport == record::Transport::kTcp; }

void PutTcpInfo(Json& j, const record::StreamInterval& s) {
  if (s.tcp_info.known()) {
    const record::TcpInfoSample& t = s.tcp_info.value();
    // iperf3 reports the congestion window in bytes; TCP_INFO counts it in segments.
    j["snd_cwnd"] = static_cast<uint64_t>(t.snd_cwnd) * t.snd_mss;
    j["snd_wnd"] = t.snd_wnd;
    j["rtt"] = t.rtt_us;
    j["rttvar"] = t.rttvar_us;
    j["pmtu"] = t.pmtu;
    j["reorder"] = t.reord_seen;  // iperf3 3.17+: reordering events seen (cumulative)
    return;
  }
  const std::string reason = record::UnknownReason(s.tcp_info.why(), s.tcp_info.detail());
  for (const char* key : {"snd_cwnd", "snd_wnd", "rtt", "rttvar", "pmtu", "reorder"}) {
    j[key] = 0;
    j["unknown"][key] = reason;
  }
}

void PutUdpReceived(Json& j, uint64_t packets, uint64_t lost, double jitter_seconds) {
  j["jitter_ms"] = jitter_seconds * 1000.0;
  j["lost_packets"] = lost;
  j["packets"] = packets;
  PutIperf3Number(j, "lost_percent",
                  packets > 0 ? std::optional<double>(100.0 * lost / packets) : std::nullopt,
                  "not present: no packets");
}

Json StreamIntervalJson(const record::StreamInterval& s, bool tcp) {
  Json j{{"socket", s.id},
         {"start", s.start},
         {"end", s.end},
         {"seconds", s.end - s.start},
         {"bytes", s.bytes}};
  PutIperf3Number(j, "bits_per_second",
                  BitsPerSecond(static_cast<double>(s.bytes), s.end - s.start), kNoDuration);
  if (tcp && s.sender) {
    j["retransmits"] = s.retransmits;
    PutTcpInfo(j, s);
  } else if (!tcp && s.sender) {
    j["packets"] = s.packets;
  } else if (!tcp) {
    PutUdpReceived(j, s.packets, s.lost, s.jitter_seconds);
  }
  j["omitted"] = s.omitted;
  j["sender"] = s.sender;
  return j;
}

Json IntervalSumJson(const IntervalSum& sum, bool tcp) {
  Json j{{"start", sum.start},
         {"end", sum.end},
         {"seconds", sum.end - sum.start},
         {"bytes", sum.bytes}};
  PutIperf3Number(j, "bits_per_second", sum.bits_per_second, kNoDuration);
  if (tcp && sum.sender) {
    j["retransmits"] = sum.retransmits;
  } else if (!tcp && sum.sender) {
    j["packets"] = sum.packets;
  } else if (!tcp) {
    PutUdpReceived(j, sum.packets, sum.lost, sum.jitter_seconds);
  }
  j["omitted"] = sum.omitted;
  j["sender"] = sum.sender;
  return j;
}

// The largest window the peer advertised on a stream, from whichever end sent on it.
record::Measured<uint64_t> MaxSndWnd(const record::RunRecord& run, int id) {
  const std::vector<record::IntervalRecord>* view = nullptr;
  for (const auto& totals : run.streams) {
    if (totals.id != id) continue;
    if (totals.sender) {
      view = &run.intervals;
    } else if (run.remote.known()) {
      view = &run.remote.value().intervals;
    } else {
      return record::Measured<uint64_t>::Unknown(run.remote.why(), "sender is the peer");
    }
  }
  bool any = false;
  uint64_t max_wnd = 0;
  for (const record::IntervalRecord& interval : view ? *view : run.intervals) {
    for (const record::StreamInterval& s : interval.streams) {
      if (s.id != id || !s.sender || !s.tcp_info.known()) continue;
      any = true;
      max_wnd = std::max<uint64_t>(max_wnd, s.tcp_info.value().snd_wnd);
    }
  }
  if (!any) return record::Measured<uint64_t>::Unknown(record::Missing::kAbsent, "no TCP_INFO");
  return max_wnd;
}

// iperf3 3.17+'s end "reorder": the sender's reordering events over the test (TCP_INFO
// reord_seen at its last sample), from whichever end sent on the stream.
record::Measured<uint64_t> Reorder(const record::RunRecord& run, int id) {
  const std::vector<record::IntervalRecord>* view = &run.intervals;
  for (const auto& totals : run.streams) {
    if (totals.id != id || totals.sender) continue;
    if (!run.remote.known()) {
      return record::Measured<uint64_t>::Unknown(run.remote.why(), "sender is the peer");
    }
    view = &run.remote.value().intervals;
  }
  for (auto it = view->rbegin(); it != view->rend(); ++it) {
    for (const record::StreamInterval& s : it->streams) {
      if (s.id == id && s.sender && s.tcp_info.known()) return s.tcp_info.value().reord_seen;
    }
  }
  return record::Measured<uint64_t>::Unknown(record::Missing::kAbsent, "no TCP_INFO");
}

Json SideJson(const record::StreamTotals& s, bool sent) {
  const double seconds = sent ? s.seconds_sent : s.seconds_received;
  const uint64_t bytes = sent ? s.bytes_sent : s.bytes_received;
  Json j{{"socket", s.id}, {"start", 0}, {"end", seconds}, {"seconds", seconds}, {"bytes", bytes}};
  PutIperf3Number(j, "bits_per_second", BitsPerSecond(static_cast<double>(bytes), seconds),
                  kNoDuration);
  return j;
}

constexpr const char kNotExchanged[] = "not present: the test ended before the results exchange";

// A UDP sender's counts alone: how many it sent; loss and jitter are the receiver's to know.
void PutUdpUnreported(Json& j, uint64_t packets) {
  j["packets"] = packets;
  for (const char* key : {"jitter_ms", "lost_packets", "lost_percent"}) {
    j[key] = nullptr;
    j["unknown"][key] = kNotExchanged;
  }
}

Json EndStreamJson(const record::RunRecord& run, const record::StreamTotals& s) {
  if (!IsTcp(run)) {
    Json udp = SideJson(s, s.sender || s.peer_reported);
    if (!s.peer_reported && s.sender) {
      PutUdpUnreported(udp, s.packets);
    } else {
      PutUdpReceived(udp, s.packets, s.lost, s.jitter_seconds);
    }
    udp["out_of_order"] = s.out_of_order;
    udp["sender"] = s.sender;
    return Json{{"udp", std::move(udp)}};
  }
  if (!s.peer_reported) {
    // Only this end's side was measured; the other is left out rather than shown as 0.
    Json side = SideJson(s, s.sender);
    if (s.sender) PutIperf3Measured(side, "retransmits", s.retransmits);
    side["sender"] = s.sender;
    Json j{{s.sender ? "sender" : "receiver", std::move(side)}};
    j["unknown"][s.sender ? "receiver" : "sender"] = kNotExchanged;
    return j;
  }
  Json sender = SideJson(s, true);
  const analysis::SenderTcp tcp = analysis::StreamSenderTcp(run, s);
  PutIperf3Measured(sender, "retransmits", s.retransmits);
  PutIperf3Measured(sender, "max_snd_cwnd", tcp.max_snd_cwnd);
  PutIperf3Measured(sender, "max_snd_wnd", MaxSndWnd(run, s.id));
  PutIperf3Measured(sender, "max_rtt", tcp.max_rtt_us);
  PutIperf3Measured(sender, "min_rtt", tcp.min_rtt_us);
  PutIperf3Measured(sender, "mean_rtt", tcp.mean_rtt_us);
  PutIperf3Measured(sender, "reorder", Reorder(run, s.id));
  sender["sender"] = s.sender;
  Json receiver = SideJson(s, false);
  receiver["sender"] = s.sender;
  return Json{{"sender", std::move(sender)}, {"receiver", std::move(receiver)}};
}

Json EndSumJson(const EndSum& sum, bool tcp, bool sent) {
  Json j{{"start", 0}, {"end", sum.seconds}, {"seconds", sum.seconds}, {"bytes", sum.bytes}};
  PutIperf3Number(j, "bits_per_second", sum.bits_per_second, kNoDuration);
  if (tcp && sent) PutIperf3Measured(j, "retransmits", sum.retransmits);
  if (!tcp) {
    // iperf3 puts the receiver's loss and jitter in every UDP sum but sum_sent, where both
    // are 0.
    PutUdpReceived(j, sum.packets, sent ? 0 : sum.lost, sent ? 0.0 : sum.jitter_seconds);
  }
  j["sender"] = sum.sender;
  return j;
}

void PutEndSums(Json& end, const record::RunRecord& run, StreamSet set, const char* suffix) {
  const bool tcp = IsTcp(run);
  const EndSum sent = SumSent(run.streams, set);
  const EndSum received = SumReceived(run.streams, set);
  if (sent.streams == 0 || received.streams == 0) {
    // An incomplete run: only the side this end measured is summed.
    const std::string sent_key = std::string("sum_sent") + suffix;
    const std::string received_key = std::string("sum_received") + suffix;
    if (sent.streams > 0) {
      end[sent_key] = EndSumJson(sent, tcp, true);
      if (!tcp) PutUdpUnreported(end[sent_key], sent.packets);
    } else {
      end["unknown"][sent_key] = kNotExchanged;
    }
    if (received.streams > 0) {
      end[received_key] = EndSumJson(received, tcp, false);
    } else {
      end["unknown"][received_key] = kNotExchanged;
    }
    return;
  }
  if (!tcp) {
    // UDP's "sum": bytes and rate as sent, loss, jitter and duration as received (iperf3
    // 3.12).
    Json sum = EndSumJson(received, false, false);
    sum["bytes"] = sent.bytes;
    PutIperf3Number(sum, "bits_per_second", sent.bits_per_second, kNoDuration);
    sum["sender"] = sent.sender;
    end[std::string("sum") + suffix] = std::move(sum);
  }
  end[std::string("sum_sent") + suffix] = EndSumJson(sent, tcp, true);
  end[std::string("sum_received") + suffix] = EndSumJson(received, tcp, false);
}

Json CpuJson(const record::RunRecord& run) {
  Json cpu = Json::object();
  auto put = [&cpu](const char* prefix, const record::Measured<record::CpuUtilization>& m) {
    const std::string total = std::string(prefix) + "_total", user = std::string(prefix) + "_user",
                      system = std::string(prefix) + "_system";
    const std::string reason = m.known() ? "" : record::UnknownReason(m.why(), m.detail());
    PutIperf3Number(cpu, total.c_str(),
                    m.known() ? std::optional(m.value().total_percent) : std::nullopt, reason);
    PutIperf3Number(cpu, user.c_str(),
                    m.known() ? std::optional(m.value().user_percent) : std::nullopt, reason);
    PutIperf3Number(cpu, system.c_str(),
                    m.known() ? std::optional(m.value().system_percent) : std::nullopt, reason);
  };
  put("host", run.local.cpu);
  // A stock iperf3 peer sends its CPU use in its results too (run.peer).
  put("remote", run.remote.known() ? run.remote.value().cpu : run.peer.cpu);
  return cpu;
}

void PutCongestion(Json& end, const record::RunRecord& run) {
  const bool local_sends = run.spec.direction != record::Direction::kReverse;
  const bool local_is_client = run.local.role != record::Role::kServer;
  // Forward: the client sends. In bidir iperf3 names the client's direction.
  const bool local_is_sender = local_sends == local_is_client;
  auto put = [&](const char* key, bool local) {
    if (local) {
      end[key] = run.local.congestion_used;
    } else if (run.remote.known()) {
      end[key] = run.remote.value().congestion_used;
    } else if (!run.peer.congestion_used.empty()) {
      end[key] = run.peer.congestion_used;  // a stock iperf3 peer's results name it too
    } else {
      end[key] = "";
      end["unknown"][key] = "not reported by peer: its results did not name it";
    }
  };
  put("sender_tcp_congestion", local_is_sender);
  put("receiver_tcp_congestion", !local_is_sender);
}

// In bidir, iperf3's "sum" is the client-to-server direction on both ends and
// "sum_bidir_reverse" the other: the local senders on the client, the local receivers on the
// server.
StreamSet Forward(const record::RunRecord& run) {
  return run.local.role == record::Role::kServer ? StreamSet::kLocalReceives
                                                 : StreamSet::kLocalSends;
}

StreamSet Backward(const record::RunRecord& run) {
  return run.local.role == record::Role::kServer ? StreamSet::kLocalSends
                                                 : StreamSet::kLocalReceives;
}

}  // namespace

Json IntervalsJson(const record::RunRecord& run) {
  const bool tcp = IsTcp(run);
  const bool bidir = run.spec.direction == record::Direction::kBidirectional;
  Json intervals = Json::array();
  for (const record::IntervalRecord& interval : run.intervals) {
    Json streams = Json::array();
    for (const record::StreamInterval& s : interval.streams) {
      streams.push_back(StreamIntervalJson(s, tcp));
    }
    Json j{{"streams", std::move(streams)}};
    j["sum"] = IntervalSumJson(SumInterval(interval, bidir ? Forward(run) : StreamSet::kAll), tcp);
    if (bidir) j["sum_bidir_reverse"] = IntervalSumJson(SumInterval(interval, Backward(run)), tcp);
    // Request/response tests: beside iperf3's members (docs/rr.md).
    if (interval.rr) j["rr"] = Json(nlohmann::json(*interval.rr));
    intervals.push_back(std::move(j));
  }
  return intervals;
}

Json EndJson(const record::RunRecord& run) {
  Json end = Json::object();
  if (run.streams.empty()) return end;  // iperf3 leaves "end" empty when the test never ran
  Json streams = Json::array();
  for (const record::StreamTotals& s : run.streams) {
    Json stream = EndStreamJson(run, s);
    PutDiskfile(stream, run, s);
    streams.push_back(std::move(stream));
  }
  end["streams"] = std::move(streams);
  if (run.spec.direction == record::Direction::kBidirectional) {
    PutEndSums(end, run, Forward(run), "");
    PutEndSums(end, run, Backward(run), "_bidir_reverse");
  } else {
    PutEndSums(end, run, StreamSet::kAll, "");
  }
  end["cpu_utilization_percent"] = CpuJson(run);
  if (run.incomplete) end["incomplete"] = true;
  if (IsTcp(run)) PutCongestion(end, run);
  // The service demand is analysis's (the record holds the CPU times it comes from).
  if (run.rr) end["rr"] = Json(nlohmann::json(analysis::RrSummaryWithDemand(run)));
  return end;
}

}  // namespace nicbench::report::json_parts
