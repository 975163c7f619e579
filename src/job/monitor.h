// `nicbench monitor PEER` (docs/monitor.md): a job that runs until it is told to stop. This
// host is sampled every `sample_interval` (CPU per core by kind, interrupts per line, softirqs,
// softnet, the NIC's counters and link state, through probes::HostDeltaReader as `run` samples
// it); the periodic tests run every `every` through the engine's client as `run` runs them;
// between them a light latency probe runs (paced request/response, job/under_load.h's probe
// config, against a nicbench peer; TCP connect time against a stock iperf3). What is seen is
// judged by job/monitor_rules.h into events. A peer that goes away is an event and is retried
// with backoff, never an end; a run the store cannot take is an event too.
//
// Thread safety: RunMonitor runs the tests and probes on one thread of its own and calls every
// sink on the calling thread only.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/client.h"
#include "job/monitor_rules.h"
#include "probes/file_source.h"
#include "record/monitor.h"

namespace nicbench::job {

struct MonitorSpec {
  std::string id;    // the monitor's id: tags its runs and events
  std::string peer;  // as the user named it (the tests' host)
  // The periodic tests, run one after the other each period (default: forward then reverse).
  // REQUIRES: non-empty, each passed record::Validate, all to the same host and port.
  std::vector<engine::ClientConfig> tests;
  std::chrono::milliseconds every{600000};
  std::chrono::milliseconds sample_interval{1000};
  std::chrono::milliseconds probe_window{10000};  // one latency figure per window
  uint32_t probe_rate = 10;                       // request/response probes a second
  std::vector<record::RunRecord> baseline;        // --baseline's runs; empty = the first tests
  Thresholds thresholds;
  std::string nic_interface;  // the interface that routes to the peer; "" or "lo": none
  std::string record_dir;     // --record: each sample's files written as a series there
  // Readable when something outside wants the monitor's attention (a signal): it then calls
  // MonitorSinks::woken, which says whether to stop. -1: none (stop only by `woken`).
  int wake_fd = -1;
  probes::FileSource* files = nullptr;  // null: the live machine
  bool stock_peer = false;  // a stock iperf3 (ProbePeer): connect times instead of probes
};

// What the peer is, from a one-second request/response probe: nicbench (answers it) or a
// stock iperf3 (refuses it as a test it cannot run). An error (kConnect: unreachable; any other
// kind: it does not speak iperf3's protocol) names the peer. REQUIRES: spec.tests non-empty.
Result<bool> ProbePeerIsStock(const MonitorSpec& spec);

struct MonitorSinks {
  std::function<void(const record::MonitorEvent&)> event;
  // Stores a finished periodic test (tagged with the monitor's id by the caller); an error
  // opens a store-unavailable event and the monitor goes on.
  std::function<Status(const record::RunRecord&)> run;
  std::function<void(const record::MonitorMetrics&)> metrics;  // after every change
  std::function<bool()> woken;                                 // true = stop now
};

// Runs until `sinks.woken` says stop. The current test or probe is interrupted; a test cut
// short is not stored. Errors only when the host cannot be sampled at all at the start.
Status RunMonitor(const MonitorSpec& spec, const MonitorSinks& sinks);

// --replay DIR: the series --record wrote (or a fixture in its layout) judged as the live
// monitor would have judged its samples: host and link events only (a recording has no tests).
// Error when DIR holds no series or fewer than two samples.
Status ReplayMonitor(const std::string& dir, const std::string& id, const Thresholds& thresholds,
                     const MonitorSinks& sinks);

}  // namespace nicbench::job
