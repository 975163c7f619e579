// The client's run and its reads of the server's control messages, shared by the client's
// conversation (client.cc) and its part in the measuring loop (client_role.h). Every read is
// bounded by a deadline on the run's clock, so a unit test drives them on a FakeClock.
//
// Thread safety: a ClientRun and these functions belong to the thread that runs RunClient.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "engine/conversation/client.h"
#include "engine/measure/measure_loop.h"
#include "net/socket_address.h"
#include "net/unique_fd.h"
#include "protocol/wire.h"
#include "record/run_record.h"

namespace nicbench::engine {

// Everything one client run holds; lives on RunClient's stack (client.cc).
struct ClientRun : EndRun {
  explicit ClientRun(const ClientConfig& c) : config(c) { spec = c.spec; }
  const ClientConfig& config;
  net::UniqueFd control;
  net::SocketAddress server;
  std::string cookie;
  // Live samples (ClientConfig::live_samples): the server's samples by interval index that
  // arrived before our own interval closed, and how many of ours have closed.
  ClientEvents* events = nullptr;
  std::map<int, record::HostInterval> remote_live;
  int closed_intervals = 0;
  int live_taken = 0;             // live samples read so far
  bool live_warned = false;       // the one warning about dropped samples was given
  bool peer_is_nicbench = false;  // the server said NICBENCH_READY (a bulk test)
  // A CRR test's token (params.h Extension::crr_token), and whether the server takes it
  // (NICBENCH_CRR_TOKEN_READY): only then do the CRR connections begin with it.
  std::string crr_token;
  bool crr_token_taken = false;
  // ClientConfig::clock_exchanges: the offset the test's one-way delays are corrected with,
  // or why there is none.
  std::optional<record::ClockOffset> clock_offset;
  std::string clock_unknown;
  MonoTime data_start{};       // when TEST_RUNNING came
  MonoTime setup_deadline{};   // every step before the data (ClientConfig::control_timeout)
  MonoTime ending_deadline{};  // TEST_END to DISPLAY_RESULTS
};

// The time left until `deadline` on the run's clock, 0 once past.
std::chrono::milliseconds Left(const ClientRun& run, MonoTime deadline);

// Reads one state byte; a live sample is taken in and reported as nullopt.
Result<std::optional<protocol::State>> ReadServerMessage(ClientRun& run,
                                                         std::chrono::milliseconds timeout,
                                                         std::string_view what);

// ACCESS_DENIED, SERVER_ERROR (its tail read) and SERVER_TERMINATE become failures with
// iperf3's text; any other state is returned.
Result<protocol::State> CheckServerState(ClientRun& run, protocol::State state);

// Reads the next state byte, taking in any live samples before it, and checks it.
// `timeout` bounds the whole step, live samples included.
Result<protocol::State> ReadServerState(ClientRun& run, std::chrono::milliseconds timeout,
                                        std::string_view what);

// A failure unless `state` is `want`.
Status CheckExpected(const Result<protocol::State>& state, protocol::State want);
// ReadServerState, then CheckExpected.
Status Expect(ClientRun& run, protocol::State want, std::chrono::milliseconds timeout);

}  // namespace nicbench::engine
