// The client side of one throughput test, speaking iperf3's control protocol (3.12) to a
// `nicbench serve` or a stock `iperf3 -s`. Owned by the engine layer; jobs call RunClient.
//
// Thread safety: RunClient is reentrant (no globals); each call owns its sockets, its DataPath
// and its RunRecord. Its events are told on the calling thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"
#include "engine/files/file_io.h"
#include "protocol/auth_token.h"
#include "record/run_record.h"
#include "record/test_spec.h"

namespace nicbench::engine {

// iperf3 authentication (run --username, --rsa-public-key-path): a fresh token is made for
// each test from these (docs/security.md).
struct ClientAuth {
  std::string username;
  protocol::Secret password;
  protocol::RsaKey server_key;  // the server's public key
  protocol::RsaPadding padding = protocol::RsaPadding::kOaep;
};

struct ClientConfig {
  std::string host;  // name or literal address of the server
  uint16_t port = 5201;
  record::TestSpec spec;  // REQUIRES: record::Validate(spec) passed
  std::chrono::milliseconds connect_timeout{10000};
  // Every step before the data (parameters, streams, TEST_START) must be done this long after
  // the control connection is up; after TEST_END, the whole ending (results, DISPLAY_RESULTS)
  // gets 10 s plus a tenth of the test's duration, at most this long. A server that keeps
  // sending (live samples, say) cannot stretch a step.
  std::chrono::milliseconds control_timeout{30000};
  int threads = 0;  // DataPath workers; 0 = WorkerThreadsFor's default
  // A running test whose data stops moving this long ends (iperf3's --rcv-timeout and its
  // default; here for both directions). 0 = never.
  std::chrono::milliseconds receive_timeout{120000};
  int stop_fd = -1;  // optional: readable (eventfd/signalfd) = the user interrupted the test
  // Sample CPU, interrupts and counters at every interval on this end and ask a nicbench
  // server to do the same. Off only to measure what sampling itself costs.
  bool sample_host = true;
  // Ask a nicbench server to send each interval's host sample as it closes, so the events can
  // show both ends while the test runs (only for a live terminal; the results carry them all).
  bool live_samples = false;
  // A request/response test: each interval's stats carry its whole latency distribution
  // (RrStats::latency_buckets), for a caller that pools the live intervals of a span (the
  // monitor). Off: the intervals keep their summaries only, as `run` records them.
  bool interval_latency_buckets = false;
  // --cntl-ka: TCP keepalive on the control connection (0 = the kernel's default for that knob).
  bool control_keepalive = false;
  int keepalive_idle_s = 0, keepalive_interval_s = 0, keepalive_count = 0;
  // -F: send this file (each stream reads it whole; the test ends at its end), or with -R
  // write what arrives into it. Local only: iperf3 does not tell the peer.
  FileOptions file;
  // Credentials for a server that requires them; null = none sent.
  std::shared_ptr<const ClientAuth> auth;
  // run --server-key: the server must prove it holds the private half of this public key
  // (protocol/server_proof.h) before anything else of the test, or the run fails (a stock
  // iperf3 server cannot, nor a nicbench server without --rsa-private-key-path). Null = not
  // asked. `server_key_path` names it in errors.
  std::shared_ptr<const protocol::RsaKey> server_key;
  std::string server_key_path;
  // A TCP RR test (a kept probe of run --under-load): ask the server for this many clock
  // exchanges over the control connection (protocol/clock_exchange.h) and for timestamped
  // responses (spec.rr.response_bytes >= protocol::kStampBytes), so the record has each
  // transaction's one-way delays (RrStats::up, down) and the offset they were corrected with
  // (RrSummary::clock). 0 = none. A server that does not take part (a stock iperf3, an older
  // nicbench) leaves them out, and `clock_unknown` of the outcome says why.
  uint32_t clock_exchanges = 0;
  // An earlier estimate of the same two clocks (the idle phase's, on an idle path): used in
  // place of this test's own when its bound is the smaller.
  std::optional<record::ClockOffset> clock_hint;
};

// What a running client tells its caller, for live output (terminal lines, --json-stream, a
// progress line). Every event comes on the thread that called RunClient, in this order:
// Connected once, then Interval per closed interval (only when spec.interval > 0) with
// LateRemoteSample between them whenever a server sample came after its interval was told.
// The defaults do nothing, so this base class is also "no events"; a record holds the same
// intervals and samples at the end anyway, so a caller that renders only the end needs none.
class ClientEvents {
 public:
  virtual ~ClientEvents() = default;
  // The data streams have connected; `run` holds the spec and the connections so far.
  virtual void Connected(const record::RunRecord& /*run*/) {}
  // An interval closed. `local`: this host's sample of it (null when none was taken);
  // `remote`: a nicbench server's (live samples), null when it did not come in time.
  virtual void Interval(const record::RunRecord& /*run*/,
                        const record::IntervalRecord& /*interval*/,
                        const record::HostInterval* /*local*/,
                        const record::HostInterval* /*remote*/) {}
  // The server's sample of an interval that was already told without it.
  virtual void LateRemoteSample(const record::RunRecord& /*run*/,
                                const record::HostInterval& /*remote*/) {}
};

struct ClientOutcome {
  record::RunRecord record;  // filled as far as the test got; record.error set on failure
  // Ok, or why the run failed; its kind is never kOther (kConnect, kBusy, kPeerError,
  // kProtocol, kData, kInterrupted), enough for the cli to pick an exit code.
  Status status = Ok();
  // A broken conversation is told in the user's terms (client_errors.h); this is the
  // protocol's own account of it, for -d/--debug. Empty otherwise.
  std::string detail;
  // ClientConfig::clock_exchanges asked for, and the record has no clock (RrSummary::clock):
  // why (the server does not take part, or the exchanges failed). Empty otherwise.
  std::string clock_unknown;
  bool ok() const { return status.has_value(); }
};

// Runs one test, telling `events` as it goes. Never throws; every failure is in the outcome
// (record.error).
ClientOutcome RunClient(const ClientConfig& config, ClientEvents& events);
// The same without events.
ClientOutcome RunClient(const ClientConfig& config);

}  // namespace nicbench::engine
