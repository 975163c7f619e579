// One test on the server: its controller thread runs the conversation after the cookie
// (parameters, limits, streams, the measuring loop, results), and the acceptor hands it the data
// connections that carry its cookie while it is in CREATE_STREAMS. See server.h.
//
// Thread safety: Run on the test's own thread; OfferStream, Terminate and finished from the
// acceptor thread (they lock).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "engine/conversation/server.h"
#include "engine/conversation/server_budget.h"
#include "engine/conversation/udp_hellos.h"
#include "net/socket_address.h"
#include "net/unique_fd.h"
#include "protocol/params.h"
#include "protocol/results.h"
#include "record/run_record.h"

namespace nicbench::engine {

// Shared by the tests of one server: the UDP port's hello router, the listening address, the
// config, the budgets and the sink.
struct ServerShared {
  ServerConfig config;
  net::SocketAddress listen_address;      // port filled in
  std::unique_ptr<UdpHellos> udp_hellos;  // null when the UDP port could not be bound
  ResourceBudget memory;  // bytes of the tests' buffers (ServerConfig::memory_budget_bytes)
  ResourceBudget fds;     // descriptors for tests and pending connections (accept_gate.h)
  TestSink sink;
  std::atomic<int> tests_ok{0}, tests_failed{0};
};

class ServerSession {
 public:
  // `setup_deadline`: when everything before the data must be done (ServerConfig::setup_timeout
  // after the accept).
  ServerSession(net::UniqueFd control, std::string cookie, std::string peer, ServerShared& shared,
                std::chrono::steady_clock::time_point setup_deadline,
                std::function<void()> on_finished);
  ~ServerSession();
  ServerSession(const ServerSession&) = delete;
  ServerSession& operator=(const ServerSession&) = delete;

  void Run();
  // A data connection that sent this test's cookie (or, `udp`, a UDP stream's connected
  // socket). Returns it back (not taken) when the test is not waiting for streams of that
  // kind; the acceptor then refuses it.
  net::UniqueFd OfferStream(net::UniqueFd fd, bool udp = false);
  // The server is stopping: SERVER_TERMINATE to the client, end the test.
  void Terminate();
  bool finished() const { return finished_.load(); }
  const std::string& cookie() const { return cookie_; }

 private:
  struct State;  // the test's working values (server_session.cc)
  class Teller;  // what the server's role (server_role.h) tells the client, through us
  Status Handshake(State& st);
  // iperf3 authentication when the server requires it (ServerConfig::authenticator).
  Status Authenticate(State& st, const protocol::DecodedParams& params);
  // run --server-key: the signature of the client's nonce and our cookie, or (no key) the
  // refusal, before any other state byte of the test.
  Status ProveKey(State& st, const protocol::DecodedParams& params);
  // NICBENCH_RR_READY (or, with a CRR token, NICBENCH_CRR_TOKEN_READY), or NICBENCH_READY.
  Status Announce(State& st, const protocol::DecodedParams& params);
  // A TCP RR client's clock exchanges (protocol/clock_exchange.h), before Announce's byte; the
  // test's responses are then stamped.
  Status ServeClock(State& st, const protocol::DecodedParams& params);
  Status ReserveBudgets(State& st);
  Status SetUpStreams(State& st);
  Status SetUpTcpStreams(State& st);
  Status SetUpUdpStreams(State& st);
  // Waits until every stream asked for has come (or the set-up deadline, or a stop).
  Status AwaitStreams();
  Status Measure(State& st);
  // With live samples asked for: the host sample of the interval that just closed, to the client.
  void SendLiveSample(State& st);
  Status ExchangeResults(State& st);
  // Counts what a client's streams sent before TEST_END and had not arrived yet.
  void CountInFlight(State& st, const protocol::PeerResults& theirs);
  void Finish(State& st, const Status& status);
  // SERVER_ERROR i_errno to the client, and to a nicbench client `to_client` (default: `why`)
  // as words; returns `why` as the test's failure.
  Status Refuse(State& st, int i_errno, const std::string& why, std::string_view to_client = {});
  // SERVER_ERROR with iperf3's error code, remembering that the client was told.
  void TellError(int i_errno, int sys_errno);
  // A set-up that failed without telling the client (a deadline passed, streams did not come):
  // SERVER_ERROR with the code of the step, and our words for a nicbench client.
  void TellSetUpFailure(State& st, int i_errno, const Status& status);
  bool stopping() {
    std::lock_guard<std::mutex> lock(mutex_);
    return terminating_;
  }

  net::UniqueFd control_;
  std::string cookie_;
  std::string peer_;
  ServerShared& shared_;
  std::chrono::steady_clock::time_point setup_deadline_;
  std::function<void()> on_finished_;
  int stop_fd_ = -1;         // eventfd: Terminate writes it
  bool told_error_ = false;  // SERVER_ERROR went out (the test thread's own)

  std::mutex mutex_;
  std::condition_variable streams_arrived_;
  bool accepting_streams_ = false;
  bool streams_udp_ = false;
  bool terminating_ = false;
  size_t streams_wanted_ = 0;
  std::deque<net::UniqueFd> streams_;
  std::atomic<bool> finished_{false};
};

}  // namespace nicbench::engine
