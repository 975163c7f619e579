// `run --under-load` (docs/latency.md): how much a test delays everything else. An idle phase
// runs the probes alone, then the test runs with the probes beside it, and the record gets both
// phases' probes (record::UnderLoad); analysis/under_load.h derives the figures.
//
// The probes are two request/response tests of their own against the same server, paced
// (--rr-rate) at half the probe rate each: one keeps its connection (a request and response on
// a connection that is already open), one opens a new connection for each probe (its connect
// time is the handshake under load). Between nicbench ends the kept probe's responses carry the
// server's receive and send times and its test estimates the clocks' offset over its control
// connection first (protocol/clock_exchange.h), so each probe's delay up and down is recorded
// too; the loaded phase keeps the idle phase's estimate when that is the narrower (taken on an
// idle path). A stock iperf3 server answers no probes (and runs one test
// at a time): the phases then say so, and only the load's own view is left (its TCP_INFO RTT,
// this host's queues). The loaded phase's probes start after the test's warm-up (-O), which
// is not yet its working condition.
//
// Thread safety: RunUnderLoad is reentrant; it runs the probes on threads of its own and tells
// the events on the calling thread only (the load's).
#pragma once

#include <chrono>
#include <cstdint>

#include "engine/client.h"

namespace nicbench::job {

struct ProbeOptions {
  uint32_t rate_per_second = 100;  // both probes together (the responsiveness draft's rate)
  std::chrono::milliseconds idle{3000};
};

// Limits that both the cli and a spec built in code are held to.
inline constexpr uint32_t kMaxProbeRate = 1000;
inline constexpr std::chrono::milliseconds kMinIdle{1000};

// The test of `load` with the probes beside it. The outcome is the load's; its record's
// under_load holds the probes. REQUIRES: a timed test (load.spec.bytes == 0, blocks == 0), not
// a request/response one.
// `events` are the load's (the probes tell none).
engine::ClientOutcome RunUnderLoad(const engine::ClientConfig& load, const ProbeOptions& probes,
                                   engine::ClientEvents& events);

// The probe test's config: `mode` (kRr or kCrr) at `rate` a second for `duration`, to the
// load's server with the load's credentials and addressing, no host sampling.
engine::ClientConfig ProbeConfig(const engine::ClientConfig& load, record::RrMode mode,
                                 uint32_t rate, std::chrono::milliseconds duration);

// Runs the test of `config`, and again every 100 ms for up to 2 s while the server is settling
// (busy with this job's tests before, which it frees a moment after they end; after a stock
// iperf3 refused a probe, any failure before data moved), unless `stop_fd` becomes readable.
// The monitor's periodic tests go through it as well.
// Each try tells `events` (a retry starts again with Connected).
engine::ClientOutcome RunSettled(const engine::ClientConfig& config, int stop_fd, bool after_stock,
                                 engine::ClientEvents& events);
engine::ClientOutcome RunSettled(const engine::ClientConfig& config, int stop_fd,
                                 bool after_stock = false);

}  // namespace nicbench::job
