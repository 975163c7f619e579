// `nicbench monitor` (docs/monitor.md): the pure judgement of what the monitor sees. Each watch
// takes one kind of observation (a host sample, the link's state, a periodic test, a window of
// latency probes, whether the peer answered) and says which conditions hold now; the EventBook
// turns the conditions of each source into events, opened when a condition first holds and
// resolved when it no longer does. No clock, no I/O: the times are the observations' own, so
// a recorded series replays to the same events.
// Thread safety: thread-compatible; the monitor uses them from its main thread only.
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "record/host_sample.h"
#include "record/monitor.h"
#include "record/run_record.h"

namespace nicbench::job {

// When a condition counts. Options of `monitor` (docs/monitor.md), so a test can use short ones.
struct Thresholds {
  // A core counts as saturated by interrupt work when hard irq plus softirq take at least this
  // share of it, for at least `saturated_for`.
  double saturated_percent = 90;
  std::chrono::milliseconds saturated_for{10000};
  // Whether the load explains a saturated core: the NIC's interrupt rate (hard irq) or the
  // packets the core's softnet processed (softirq) must have risen at least this factor above
  // the rate before the saturation. Below it, for hard irq the seed-2 signature: a handler or
  // poll loop that spins while interrupts come as before.
  double irq_rise_factor = 2;
  // Degradation: the median goodput of a test's intervals at least this many percent below the
  // baseline's, and significant by compare's U test (analysis/statistics.h).
  double degraded_percent = 10;
  int baseline_tests = 3;  // tests per direction that make the session's baseline
  // Latency: a probe window's p99 above `latency_factor` times the baseline's and at least
  // `latency_floor_ms` above it (a factor alone fires on 20 us against 10 us).
  double latency_factor = 3;
  double latency_floor_ms = 1;
  int baseline_windows = 3;  // probe windows that make the latency baseline
  int latency_windows = 2;   // consecutive windows above it before the event opens
  // Probes above that threshold a window needs to count (when its distribution is known): in a
  // window of fewer than 100 probes the p99 is its slowest probe, and one probe scheduled late
  // on a sub-millisecond path is not a rise.
  uint64_t latency_slow_probes = 2;
  double loss_percent = 1;  // probes or UDP datagrams lost
  // A counter event (softnet, NIC errors) resolves after this many samples without a rise.
  int quiet_samples = 5;
  // Softnet time squeezes count from this rate on: a busy host (or the monitor's own test)
  // squeezes now and then without losing anything; backlog drops count from the first.
  double squeezes_per_second = 10;
};

// A condition that holds now, keyed by kind and subject.
struct Condition {
  record::EventKind kind = record::EventKind::kDegraded;
  std::string subject;
  std::string summary;
  std::vector<std::string> evidence;
  // How long the condition has held before the observation that reports it (a core saturated
  // for 10 s); 0 when it began within that observation.
  double held_seconds = 0;
};

// Opens and resolves events. Each source ("host", "link", "test:forward", "probe", "peer",
// "store") reports all of its conditions at once; a condition of that source that held before
// and is not reported now resolves (with the evidence it had when it opened).
class EventBook {
 public:
  explicit EventBook(std::string monitor) : monitor_(std::move(monitor)) {}

  // The events this update opens and resolves, resolutions first.
  std::vector<record::MonitorEvent> Update(std::string_view source,
                                           const std::vector<Condition>& now, double at_unix);

  // Open events by kind name, every kind present.
  std::map<std::string, int> OpenByKind() const;
  size_t open() const { return open_.size(); }

 private:
  struct Open {
    std::string source;
    record::MonitorEvent event;
  };
  std::string monitor_;
  uint64_t next_id_ = 1;
  std::map<std::string, Open> open_;  // by source + kind + subject
};

// The host's samples: cores saturated by interrupt work, softnet drops and squeezes, the NIC's
// error and drop counters. A core saturated by hard irq is judged by the interrupt rate (the
// NIC's lines, else all); one saturated by softirq by the packets its softnet processed (a
// flood arrives as packets, and on a software device such as veth, or with RPS, it raises no
// interrupt at all), the softirq named by the network softirq that ran more often on it.
class HostWatch {
 public:
  // `prefix` goes before every subject ("peer " for the peer's host: "peer cpu0").
  explicit HostWatch(const Thresholds& t, std::string prefix = "")
      : t_(t), prefix_(std::move(prefix)) {}
  // `sample` covers [start, end] seconds; only its length is used.
  std::vector<Condition> Judge(const record::HostInterval& sample);

 private:
  std::optional<Condition> Saturated(const record::HostInterval& sample, int cpu, double share,
                                     double seconds);
  // The rates "before": kept from calm samples (no core saturated), frozen when one begins.
  void Remember(const record::HostInterval& sample, bool any_hot);
  void Counters(const record::HostInterval& sample, std::vector<Condition>& out);

  Thresholds t_;
  std::string prefix_;
  std::map<int, double> saturated_seconds_;  // per CPU, how long it has been saturated
  std::deque<double> calm_irq_rates_;        // the interrupt rate of recent calm samples
  std::optional<double> irq_rate_before_;    // frozen when a saturation begins
  // Per CPU, the packets its softnet processed a second in recent calm samples, and their mean
  // frozen when a saturation begins.
  std::map<int, std::deque<double>> calm_packet_rates_;
  std::map<int, double> packet_rate_before_;
  bool before_frozen_ = false;
  int64_t samples_ = 0, softnet_rise_ = -1000, nic_rise_ = -1000;
  std::vector<std::string> softnet_evidence_, nic_evidence_;
};

// The link of the watched interface, read from /sys/class/net/IF/{carrier,speed}.
struct LinkState {
  std::optional<bool> carrier;
  std::optional<int64_t> speed_mbps;  // unknown on veth and loopback, or without carrier
};
class LinkWatch {
 public:
  std::vector<Condition> Judge(const std::string& iface, const LinkState& link);

 private:
  std::optional<int64_t> first_speed_;
};

// Per-interval goodput of a test's counted intervals (omitted ones left out), bits/s: the
// samples both the baseline and each new test are judged with.
std::vector<double> IntervalGoodputs(const record::RunRecord& run);
// "forward", "reverse", "bidirectional".
std::string DirectionName(const record::RunRecord& run);

// The periodic tests of one direction against the baseline (the first tests of the session, or
// stored runs given at the start).
class TestWatch {
 public:
  explicit TestWatch(const Thresholds& t) : t_(t) {}
  // Stored runs that make the baseline instead of the session's first tests.
  void SetBaseline(const std::vector<record::RunRecord>& runs);
  std::vector<Condition> Judge(const record::RunRecord& run);

 private:
  struct Direction {
    std::vector<double> baseline;
    int baseline_tests = 0;
    bool fixed = false;  // from stored runs
  };
  Thresholds t_;
  std::map<std::string, Direction> directions_;
};

// One window of latency probes: request/response p99 against a nicbench peer, connect time
// against a stock iperf3.
struct ProbeWindow {
  std::string what;  // "rr" or "connect"
  uint64_t sent = 0, answered = 0;
  std::optional<record::LatencySummary> latency;
  std::vector<record::LatencyBucket> buckets;  // the whole distribution, for the metrics
  // A nicbench peer's own host over the window (its samples from the probe test's results).
  std::vector<record::HostInterval> peer_samples;
};
// One interval (about a second) of a request/response probe window, as the probe test closed it
// while the window ran: its whole distribution.
struct ProbeInterval {
  double seconds = 0;                          // its length; it ended when it was posted
  std::vector<record::LatencyBucket> buckets;  // ascending, as RrStats::latency_buckets
};

class LatencyWatch {
 public:
  explicit LatencyWatch(const Thresholds& t) : t_(t) {}
  std::vector<Condition> Judge(const ProbeWindow& window);
  // A probe window's interval as it closed, ending at `at_unix`: kept a few minutes for
  // During. Windows are judged whole (Judge); these are evidence only.
  void Live(const ProbeInterval& interval, double at_unix);
  // Evidence for a host event whose condition has held since `since_unix`, seen at `now_unix`:
  // the p99 of the probes taken since then (the live intervals mostly after it) against the
  // baseline ("latency probe: request/response over the last 10 s (100 probes): p99 150.00
  // ms, baseline 0.20 ms"). A window that ended before the condition began says nothing of it,
  // so without live probes in the span (a stock iperf3's connect times come by window only)
  // the latest window's figure is given as such; "" before any probe.
  std::string During(double since_unix, double now_unix) const;
  // The latest window's p99 against the baseline ("request/response p99 1500.00 ms, baseline
  // 0.20 ms"); "" before any window. A nicbench peer's samples come with the window they were
  // taken in: this is their evidence.
  const std::string& Latest() const { return latest_; }

 private:
  struct LiveInterval {
    double end_unix = 0;
    ProbeInterval interval;
  };
  Thresholds t_;
  std::vector<double> baseline_p99_us_;
  std::string latest_;
  std::string what_ = "request/response";  // the latest window's kind of probe
  std::deque<LiveInterval> live_;          // the last few minutes' intervals, oldest first
  int high_windows_ = 0;                   // consecutive windows above the threshold
};

}  // namespace nicbench::job
