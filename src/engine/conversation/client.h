// The client side of one throughput test, speaking iperf3's control protocol (3.12) to a
// `nicbench serve` or a stock `iperf3 -s`. Owned by the engine layer; the cli calls RunClient.
//
// Thread safety: RunClient is reentrant (no globals); each call owns its sockets, its DataPath
// and its RunRecord. The interval sink is called on the calling thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
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
  // Ask a nicbench server to send each interval's host sample as it closes, so the sink can
  // show both ends while the test runs (only for a live terminal; the results carry them all).
  bool live_samples = false;
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
};

// Called once per finished interval with this end's view, for live terminal lines. Never
// called in JSON mode by the cli; the record holds the same intervals anyway.
// `run` is the record so far (spec, connections); `local` is this host's sample of the same
// interval (null when none was taken); `remote` the server's, when it came in time (live
// samples). A server sample that comes after its interval was shown is passed alone, with
// `interval` and `local` null.
// Called on the controller thread: with an interval when it closes (and this end's and a
// nicbench server's sample for it), with only `remote` for a server sample that came after its
// interval was shown, and once with neither, when the data streams have connected.
using IntervalSink =
    std::function<void(const record::RunRecord& run, const record::IntervalRecord* interval,
                       const record::HostInterval* local, const record::HostInterval* remote)>;

struct ClientOutcome {
  record::RunRecord record;  // filled as far as the test got; record.error set on failure
  // Ok, or why the run failed; its kind is never kOther (kConnect, kBusy, kPeerError,
  // kProtocol, kData, kInterrupted), enough for the cli to pick an exit code.
  Status status = Ok();
  // A broken conversation is told in the user's terms (client_errors.h); this is the
  // protocol's own account of it, for -d/--debug. Empty otherwise.
  std::string detail;
  bool ok() const { return status.has_value(); }
};

// Runs one test. Never throws; every failure is in the outcome (record.error).
ClientOutcome RunClient(const ClientConfig& config, const IntervalSink& sink = {});

}  // namespace nicbench::engine
