#include "analysis/stream_limits.h"

#include <algorithm>
#include <array>
#include <map>

namespace nicbench::analysis {
namespace {

struct Reading {
  double at = 0;  // seconds since the test started
  const record::TcpInfoSample* info = nullptr;
};

struct StreamReadings {
  Reading base;  // the end of the omitted warm-up; info null when there was none
  Reading last;  // the last counted interval's
  double first_start = -1;
};

double Seconds(uint64_t us) { return static_cast<double>(us) / 1e6; }

StreamLimit Judge(int id, bool local_sends, const StreamReadings& r) {
  auto delta = [&](uint64_t record::TcpInfoSample::*field) {
    const uint64_t before = r.base.info ? r.base.info->*field : 0;
    const uint64_t after = r.last.info->*field;
    return after > before ? Seconds(after - before) : 0.0;
  };
  StreamLimit s;
  s.id = id;
  s.local_sends = local_sends;
  s.seconds = r.last.at - (r.base.info ? r.base.at : std::max(r.first_start, 0.0));
  s.busy_seconds = delta(&record::TcpInfoSample::busy_time_us);
  s.rwnd_limited_seconds = delta(&record::TcpInfoSample::rwnd_limited_us);
  s.sndbuf_limited_seconds = delta(&record::TcpInfoSample::sndbuf_limited_us);
  s.network_seconds =
      std::max(0.0, s.busy_seconds - s.rwnd_limited_seconds - s.sndbuf_limited_seconds);
  s.application_seconds = std::max(0.0, s.seconds - s.busy_seconds);
  const std::array<std::pair<Limit, double>, 4> parts = {{
      {Limit::kNetwork, s.network_seconds},
      {Limit::kReceiveWindow, s.rwnd_limited_seconds},
      {Limit::kSendBuffer, s.sndbuf_limited_seconds},
      {Limit::kApplication, s.application_seconds},
  }};
  const auto top = std::max_element(
      parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  s.limit = top->first;
  const double whole = std::max(s.seconds, s.busy_seconds);
  s.limit_share = whole > 0 ? top->second / whole : 0;
  return s;
}

void Collect(const std::vector<record::IntervalRecord>& intervals, bool local_sends,
             std::vector<StreamLimit>& out) {
  std::map<int, StreamReadings> streams;
  for (const record::IntervalRecord& interval : intervals) {
    for (const record::StreamInterval& s : interval.streams) {
      const record::TcpInfoSample* info = s.tcp_info.get();
      if (!s.sender || info == nullptr) continue;
      StreamReadings& r = streams[s.id];
      if (r.first_start < 0) r.first_start = interval.start;
      (interval.omitted ? r.base : r.last) = Reading{interval.end, info};
    }
  }
  for (const auto& [id, r] : streams) {
    // A kernel before 4.10 leaves the chrono times 0: nothing to judge.
    if (r.last.info == nullptr || r.last.info->busy_time_us == 0) continue;
    out.push_back(Judge(id, local_sends, r));
  }
}

}  // namespace

const char* LimitName(Limit limit) {
  switch (limit) {
    case Limit::kApplication: return "application";
    case Limit::kReceiveWindow: return "receive window";
    case Limit::kSendBuffer: return "send buffer";
    case Limit::kNetwork: return "network";
  }
  return "network";
}

std::vector<StreamLimit> StreamLimits(const record::RunRecord& run) {
  std::vector<StreamLimit> out;
  if (run.spec.transport != record::Transport::kTcp || run.spec.rr.enabled()) return out;
  // The local end's own view is run.intervals when its record keeps no copy.
  Collect(run.local.intervals.empty() ? run.intervals : run.local.intervals, true, out);
  if (run.remote.known()) Collect(run.remote.value().intervals, false, out);
  return out;
}

}  // namespace nicbench::analysis
