// The monitor's judge: every observation goes through it (from the live loop and from a
// replay), which updates the running metrics, asks the watches (monitor_rules.h) what holds and
// hands the events that open or resolve to the sinks. Internal to the job layer.
// Thread safety: thread-compatible; one thread calls it.
#pragma once

#include <string>

#include "engine/client.h"
#include "job/monitor.h"
#include "job/monitor_rules.h"
#include "record/monitor.h"

namespace nicbench::job {

class MonitorJudge {
 public:
  MonitorJudge(const std::string& id, const std::string& peer, const Thresholds& thresholds,
               const MonitorSinks& sinks);

  void SetBaseline(const std::vector<record::RunRecord>& runs) { tests_.SetBaseline(runs); }
  void OnSample(const record::HostInterval& sample, const std::string& iface, const LinkState& link,
                double at_unix);
  // A finished periodic test (stored through the sinks), or one that failed.
  void OnTest(const engine::ClientOutcome& outcome, double at_unix);
  void OnProbe(const ProbeWindow& window, double at_unix);
  // An interval of the probe window in progress, as it closed (evidence for host events).
  void OnProbeInterval(const ProbeInterval& interval, double at_unix);
  // Whether the peer answered the last test or probe; `why` when it did not.
  void OnPeer(bool reached, const std::string& why, double at_unix);

  const record::MonitorMetrics& metrics() const { return metrics_; }

 private:
  void Emit(std::string_view source, const std::vector<Condition>& now, double at_unix);
  void CountSample(const record::HostInterval& sample);

  const MonitorSinks& sinks_;
  EventBook book_;
  HostWatch host_;
  HostWatch peer_host_;  // a nicbench peer's samples, sent with each probe window's results
  LinkWatch link_;
  TestWatch tests_;
  LatencyWatch latency_;
  record::MonitorMetrics metrics_;
};

// The bounds of the latency histogram the metrics keep, seconds (Prometheus's le labels).
const std::vector<double>& LatencyBounds();

}  // namespace nicbench::job
