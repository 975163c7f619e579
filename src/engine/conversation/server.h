// `nicbench serve`: accepts tests from nicbench and stock iperf3 (3.12) clients. One acceptor
// thread runs an epoll loop over the listening socket, a stop fd and the connections that have
// not yet sent their 37-byte cookie; a new cookie starts a test (one controller thread each,
// at most max_tests at once), a cookie of a test in CREATE_STREAMS routes the socket to it as a
// data stream, anything else gets ACCESS_DENIED and is closed. See docs/engine.md.
//
// Thread safety: Create/Run/port from one thread; RequestStop from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/result.h"
#include "engine/files/file_io.h"
#include "net/access_list.h"
#include "protocol/authenticator.h"
#include "record/run_record.h"
#include "record/test_spec.h"

namespace nicbench::engine {

// ServerConfig::max_connections_per_second's default (serve --max-connections-per-second).
inline constexpr int kDefaultMaxConnectionsPerSecond = 1000;

struct ServerConfig {
  std::string bind_address;  // empty = "::" with IPV6_V6ONLY=0 (IPv4 and IPv6)
  uint16_t port = 5201;      // 0 = ephemeral (see Server::port())
  bool once = false;         // exit after one test (finished or failed)
  // Exit after this long without any test (0 = never). iperf3 restarts instead; a supervisor
  // (systemd, the --daemon parent) restarts nicbench if wanted.
  std::chrono::seconds idle_timeout{0};
  int max_tests = 4;  // tests running at once; more get ACCESS_DENIED
  // --max-duration, --max-rate, --max-streams (default iperf3's 128), --max-block
  record::SpecLimits limits{.max_parallel = record::kDefaultServerMaxStreams};
  // Every read on a control connection after the data has flowed waits at most this long.
  std::chrono::milliseconds control_timeout{10000};
  // Everything before the data flows (cookie, parameters, streams) must be done this long
  // after the connection was accepted: a stock client needs milliseconds, a silent one holds
  // a slot no longer than this.
  std::chrono::milliseconds setup_timeout{5000};
  // A running test whose data stops moving (nothing received, nothing sent) this long ends
  // with SERVER_ERROR IENOMSG; iperf3's --rcv-timeout and its default. 0 = never.
  std::chrono::milliseconds receive_timeout{120000};
  // Tests from one client address at once; 0 = max_tests - 1 (at least 1), so one address
  // cannot take every slot.
  int max_tests_per_address = 0;
  // Tests one client address may start in any hour (a sliding hour); more get ACCESS_DENIED.
  // 0 = no limit.
  int max_tests_per_address_per_hour = 0;
  // New connections one client address may open a second (serve --max-connections-per-second,
  // engine/connection_rate.h), with a burst of one whole set-up (the per-address pending quota:
  // 1,100, or 4 x max_parallel + 2). A connection beyond it is looked at once as it is accepted
  // and closed unless its cookie is already there (docs/protocol.md, "Budgets"), so a
  // connect/close flood costs an accept and a close, not a pending slot and an epoll round.
  // 1,000: far above what a client needs (a test opens 1 + streams connections; tests one after
  // another stay below a few hundred a second) and far below a flood (14,000 a second from one
  // address was measured). 0 = no limit.
  int max_connections_per_second = kDefaultMaxConnectionsPerSecond;
  // Tests from one subnet at once (serve --max-tests-per-subnet); more get ACCESS_DENIED, as
  // beyond the per-address limit. A subnet is a client address's first subnet_prefix_v4 bits
  // (IPv4) or subnet_prefix_v6 bits (IPv6): one host with many addresses, or a neighbourhood of
  // hosts, cannot take every slot. 0 = no limit.
  int max_tests_per_subnet = 0;
  int subnet_prefix_v4 = 24;
  int subnet_prefix_v6 = 64;
  // serve --allow/--deny: a connection from an address the list does not permit gets
  // ACCESS_DENIED right after accept, before a byte is read (control and data connections
  // alike; a UDP stream's hello is taken only from its test's control address, so the list
  // covers it too). Empty = everyone.
  net::AccessList access;
  // serve --rsa-private-key-path and --authorized-users-path: every test must carry a good
  // iperf3 authentication token (docs/security.md); null = no authentication.
  std::shared_ptr<protocol::Authenticator> authenticator;
  // The same private key: a nicbench client that pins it (run --server-key) gets this server's
  // proof of holding it (protocol/server_proof.h); null = the server has no key to prove, and
  // such a client is refused.
  std::shared_ptr<const protocol::RsaKey> identity_key;
  // A test is ended by the server once duration + omit + grace has passed (iperf3: 40 s).
  std::chrono::milliseconds grace{10000};
  int threads = 0;  // DataPath workers per test; 0 = WorkerThreadsFor's default
  // What every test's buffers together may take (server_budget.h); a test whose buffers would
  // not fit is refused with SERVER_ERROR before anything is allocated. 256 MiB fits a small NAS
  // and any ordinary test (-P 8 with 128 KiB blocks needs 1 MiB).
  uint64_t memory_budget_bytes = 256ull << 20;
  bool log_tests = true;  // one line per test to stderr
  // Renders a finished test for a client that asked --get-server-output (the cli passes the
  // report layer's text renderer; empty = the server sends no output text).
  std::function<std::string(const record::RunRecord&)> render_output;
  // Tests: called on the test's controller thread with each data socket once the test's socket
  // options are set on it, so a test can read them back with getsockopt.
  std::function<void(int fd)> on_data_socket;
  // render_output makes a JSON document: it goes to the client as server_output_json.
  bool render_output_json = false;
  // --server-bitrate-limit: a test whose total rate (all streams, both directions) over the
  // last `total_rate_window` exceeds this ends with iperf3's IETOTALRATE; 0 = no limit.
  uint64_t total_rate_limit_bits_per_second = 0;
  std::chrono::seconds total_rate_window{5};
  // serve -F: every TCP test's streams read this file when the server sends (-R) or write
  // what they receive into it, as iperf3 -s -F does.
  FileOptions file;
};

// Called on the test's controller thread when a test ends, with the server's record of it
// (the cli renders it in -J mode). May be called from several threads at once.
using TestSink = std::function<void(const record::RunRecord&)>;

struct ServerStats {
  int tests_started = 0;
  int tests_ok = 0;
  int tests_failed = 0;
  int refused = 0;  // ACCESS_DENIED sent (busy, bad cookie, or --allow/--deny)
};

class Server {
 public:
  static Result<std::unique_ptr<Server>> Create(const ServerConfig& config, TestSink sink = {});
  virtual ~Server() = default;

  // The bound port (useful with port 0).
  virtual uint16_t port() const = 0;
  // Serves until RequestStop, `stop_fd` readable (-1 = none; e.g. a signalfd), --once done or
  // the idle timeout. On a stop, running tests get SERVER_TERMINATE and are joined.
  // Returns true when it ended by stop_fd/RequestStop (interrupted), false otherwise.
  virtual Result<bool> Run(int stop_fd = -1) = 0;
  virtual void RequestStop() = 0;
  virtual ServerStats stats() const = 0;
};

}  // namespace nicbench::engine
