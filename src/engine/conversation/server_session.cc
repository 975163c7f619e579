// The server's side of one test (spec section 5, mirrored): parameters with the one Validate and
// the server's limits, streams routed by the acceptor (TCP) or set up under the port's UDP lock,
// the measuring loop until TEST_END (or the safety timer), then the results exchange.
#include "engine/conversation/server_session.h"

#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <map>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "base/log.h"
#include "base/units.h"
#include "engine/conversation/peer_results.h"
#include "engine/conversation/record_lifecycle.h"
#include "engine/conversation/server_role.h"
#include "engine/conversation/stream_plan.h"
#include "engine/measure/host_observer.h"
#include "engine/measure/measure_loop.h"
#include "net/socket.h"
#include "protocol/clock_exchange.h"
#include "protocol/control_channel.h"
#include "protocol/params.h"
#include "protocol/server_proof.h"
#include "record/json.h"

namespace nicbench::engine {
namespace {

using std::chrono::milliseconds;
namespace wire = protocol;

// How long the data still on its way at TEST_END may take to arrive (CountInFlight); on a
// link where it takes longer the count is short by what had not arrived.
constexpr milliseconds kInFlightLimit{2000};
// How long a running test may go without moving its first byte (StallWatch).
constexpr milliseconds kFirstDataLimit{10000};

// iperf3 3.12 i_errno values for parameter problems (src/iperf_api.h), which a stock client
// prints as text: "test duration too long", "number of parallel streams too large", ...
constexpr int kIeDuration = 5;
constexpr int kIeNumStreams = 6;
constexpr int kIeBlockSize = 7;
constexpr int kIeBufSize = 8;
constexpr int kIeTotalRate = 27;

// What a refused client prints: the limit that refused it and, for a limit the server's
// operator sets, the option that sets it (`-P 500` once said only "out of range 1..128").
std::string RefusalText(const record::SpecError& problem, const record::TestSpec& spec) {
  std::string text = "refused: " + problem.message;
  if (problem.violation == record::SpecViolation::kParallel && spec.parallel > 0) {
    text += spec.rr.enabled() ? " (the server's --max-rr-flows)" : " (the server's --max-streams)";
  }
  return text;
}

int IperfErrnoFor(record::SpecViolation violation) {
  switch (violation) {
    case record::SpecViolation::kDuration: return kIeDuration;
    case record::SpecViolation::kParallel: return kIeNumStreams;
    case record::SpecViolation::kBlockSize: return kIeBlockSize;
    case record::SpecViolation::kWindow: return kIeBufSize;
    case record::SpecViolation::kRate: return kIeTotalRate;
    default: return wire::iperf_errno::kRecvParams;
  }
}

const char* DirectionWord(record::Direction d) {
  switch (d) {
    case record::Direction::kForward: return "forward";
    case record::Direction::kReverse: return "reverse";
    default: return "bidir";
  }
}

// --get-server-output: the server's rendering of the test, as text or (a -J server, as
// iperf3's) as a JSON document.
void PutServerOutput(const ServerConfig& config, const record::RunRecord& record,
                     protocol::PeerResults& ours) {
  if (!config.render_output) return;
  std::string text = config.render_output(record);
  if (!config.render_output_json) {
    ours.server_output_text = std::move(text);
    return;
  }
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_discarded()) ours.server_output_json = std::move(doc);
}

}  // namespace

struct ServerSession::State : EndRun {
  bool peer_is_nicbench = false;
  bool want_samples = false;
  bool live_samples = false;  // send each interval's host sample as it closes
  int samples_sent = 0;
  bool params_read = false;
  std::string user;  // the authenticated user (loggable form), when the server asks for one
  // A CRR test's token from the client (params.h Extension::crr_token): each CRR connection
  // must begin with it. Empty = the client sent none (an older nicbench).
  std::string crr_token;
  bool rr_stamps = false;        // the client made the clock exchanges: responses carry timestamps
  uint64_t memory_reserved = 0;  // from shared_.memory, given back when the test ends
  uint64_t fds_reserved = 0;     // from shared_.fds, likewise
  // A forward TCP test ended by bytes or blocks keeps receiving after TEST_END until the
  // client's results say what it sent (CountInFlight): the final interval closes then.
  bool count_in_flight = false;
};

ServerSession::ServerSession(net::UniqueFd control, std::string cookie, std::string peer,
                             ServerShared& shared,
                             std::chrono::steady_clock::time_point setup_deadline,
                             std::function<void()> on_finished)
    : control_(std::move(control)),
      cookie_(std::move(cookie)),
      peer_(std::move(peer)),
      shared_(shared),
      setup_deadline_(setup_deadline),
      on_finished_(std::move(on_finished)),
      stop_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

ServerSession::~ServerSession() {
  if (stop_fd_ >= 0) close(stop_fd_);
}

net::UniqueFd ServerSession::OfferStream(net::UniqueFd fd, bool udp) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!accepting_streams_ || streams_udp_ != udp || streams_.size() >= streams_wanted_) return fd;
  streams_.push_back(std::move(fd));
  streams_arrived_.notify_all();
  return net::UniqueFd();
}

void ServerSession::Terminate() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    terminating_ = true;
    streams_arrived_.notify_all();
    // Wakes a read that waits on the control socket (a client stalled in the parameter or
    // results exchange) at once instead of after its timeout: the read sees EOF. Writes still
    // work, so the test thread can send SERVER_TERMINATE.
    if (control_) shutdown(control_.get(), SHUT_RD);
  }
  uint64_t one = 1;
  (void)!write(stop_fd_, &one, sizeof one);
}

void ServerSession::TellError(int i_errno, int sys_errno) {
  told_error_ = true;
  (void)wire::SendServerError(control_.get(), i_errno, sys_errno);
}

void ServerSession::TellSetUpFailure(State& st, int i_errno, const Status& status) {
  if (status || told_error_ || stopping()) return;
  // A stock client prints iperf3's sentence for the code ("unable to receive parameters from
  // client: Connection timed out") instead of "connection closed by the peer".
  // A wait bounded by the deadline ends up to a millisecond before it (its timeout is whole
  // milliseconds): a failure that close is the deadline's.
  int sys_errno = status.error().sys_errno;
  if (sys_errno == 0 && st.clock->Now() + milliseconds(5) >= setup_deadline_) sys_errno = ETIMEDOUT;
  TellError(i_errno, sys_errno);
  if (st.peer_is_nicbench) {
    (void)wire::SendJson(control_.get(),
                         nlohmann::json{{"error", "set-up failed: " + status.error().ToString()}});
  }
}

Status ServerSession::Refuse(State& st, int i_errno, const std::string& why,
                             std::string_view to_client) {
  TellError(i_errno, 0);
  // A stock client prints iperf3's sentence for i_errno (with iperf3's own maxima in it); a
  // nicbench client reads our words, which name the option and the real limit.
  if (st.peer_is_nicbench) {
    const std::string text = to_client.empty() ? why : std::string(to_client);
    (void)wire::SendJson(control_.get(), nlohmann::json{{"error", text}});
  }
  return Fail(why);
}

Status ServerSession::Authenticate(State& st, const protocol::DecodedParams& params) {
  protocol::Authenticator* auth = shared_.config.authenticator.get();
  if (auth == nullptr) {
    if (!params.has_authtoken) return Ok();
    return Refuse(st, wire::iperf_errno::kAuthTest,
                  "the client asked for authentication, "
                  "which this server does not offer (no --rsa-private-key-path)");
  }
  // The client hears only "test authorization failed" (iperf3's IEAUTHTEST), whatever the
  // reason: telling a wrong password from an unknown user would help guess user names. The
  // reason goes to the server's log (Finish) with the client's address.
  constexpr std::string_view kToClient =
      "test authorization failed (the user, password, key, padding or clock was not accepted)";
  if (params.authtoken.empty()) {
    return Refuse(st, wire::iperf_errno::kAuthTest,
                  "authentication refused: the client sent no token (it needs --username and "
                  "--rsa-public-key-path)",
                  kToClient);
  }
  auto user = auth->Verify(params.authtoken, static_cast<int64_t>(std::time(nullptr)));
  if (!user) {
    return Refuse(st, wire::iperf_errno::kAuthTest,
                  "authentication refused: " + user.error().message, kToClient);
  }
  st.user = protocol::LoggableName(*user);
  return Ok();
}

Status ServerSession::Handshake(State& st) {
  const milliseconds timeout = std::max(
      milliseconds(0), std::chrono::duration_cast<milliseconds>(setup_deadline_ - st.clock->Now()));
  if (auto s = wire::SendState(control_.get(), wire::State::kParamExchange); !s) return s;
  auto doc = wire::ReadJson(control_.get(), timeout, wire::kMaxParamsBytes, "the parameters");
  if (!doc) return tl::unexpected(doc.error());
  if (doc->is_object() && doc->contains("sctp")) {
    return Refuse(st, wire::iperf_errno::kNoSctp,
                  "refused: the client asked for SCTP; nicbench tests TCP and UDP");
  }
  auto params = wire::DecodeParamsJson(*doc);
  if (!params) return Refuse(st, wire::iperf_errno::kRecvParams, params.error().ToString());
  st.spec = params->spec;
  // A nicbench peer's exact times and flags are already back in the spec (params.h).
  st.peer_is_nicbench = params->peer_is_nicbench();
  st.want_samples = st.peer_is_nicbench && params->ext->want_samples;
  st.live_samples = st.want_samples && params->ext->live_samples;
  st.params_read = true;
  if (auto s = Authenticate(st, *params); !s) return s;
  if (auto problem = record::Validate(st.spec, shared_.config.limits)) {
    return Refuse(st, IperfErrnoFor(problem->violation), RefusalText(*problem, st.spec));
  }
  const uint64_t limit = shared_.config.total_rate_limit_bits_per_second;
  if (limit != 0 && RequestedTotalRate(st.spec) > limit) {
    return Refuse(st, wire::iperf_errno::kTotalRate,
                  fmt::format("refused: {} in total (-b x -P) exceeds the server's "
                              "--server-bitrate-limit of {}",
                              FormatBitRate(static_cast<double>(RequestedTotalRate(st.spec))),
                              FormatBitRate(static_cast<double>(limit))));
  }
  if (auto s = ProveKey(st, *params); !s) return s;
  if (auto s = Announce(st, *params); !s) return s;
  if (st.spec.server_affinity >= 0) {
    // -A N,M: this test's controller thread on CPU M; its DataPath workers, created later by
    // this thread, inherit the mask. Other tests keep theirs.
    if (auto s = PinThisThread(st.spec.server_affinity); !s) {
      return Refuse(st, wire::iperf_errno::kAffinity, "refused: " + s.error().ToString());
    }
  }
  return ReserveBudgets(st);
}

Status ServerSession::ProveKey(State& st, const protocol::DecodedParams& params) {
  if (!params.ext || params.ext->prove_key.empty()) return Ok();
  const protocol::RsaKey* key = shared_.config.identity_key.get();
  nlohmann::json proof;
  if (key != nullptr) {
    auto signature = protocol::SignServerProof(*key, cookie_, params.ext->prove_key);
    if (!signature) return Refuse(st, wire::iperf_errno::kRecvParams, signature.error().message);
    proof = {{"signature", *signature}};
  } else {
    proof = {{"error", "this server has no key to prove (it runs without --rsa-private-key-path)"}};
  }
  if (auto s = wire::SendState(control_.get(), wire::State::kNicbenchServerProof); !s) return s;
  if (auto s = wire::SendJson(control_.get(), proof); !s) return s;
  if (key != nullptr) return Ok();
  told_error_ = true;  // the client was told, in the proof's place
  return Fail(
      "refused: the client pins a server key (--server-key) and this server has none "
      "(--rsa-private-key-path)");
}

// A TCP RR client asked for the clock exchanges (protocol/clock_exchange.h): they go now, and
// the test's responses are stamped. A test that could not carry the stamps gets none, and its
// client reads NICBENCH_RR_READY at once, as from an older server.
Status ServerSession::ServeClock(State& st, const protocol::DecodedParams& params) {
  const uint32_t n = params.ext->clock_exchanges;
  if (n == 0 || st.spec.rr.mode != record::RrMode::kRr ||
      st.spec.transport != record::Transport::kTcp ||
      st.spec.rr.response_bytes < protocol::kStampBytes) {
    return Ok();
  }
  if (auto s = wire::SendState(control_.get(), wire::State::kNicbenchClock); !s) return s;
  const milliseconds timeout = std::max(
      milliseconds(0), std::chrono::duration_cast<milliseconds>(setup_deadline_ - st.clock->Now()));
  if (auto s = protocol::ServeClockExchanges(control_.get(), n, timeout); !s) return s;
  st.rr_stamps = true;
  return Ok();
}

Status ServerSession::Announce(State& st, const protocol::DecodedParams& params) {
  if (st.spec.rr.enabled()) {
    if (auto s = ServeClock(st, params); !s) return s;
    // A stock client never asks for one (the mode rides in our extension only).
    wire::State ready = wire::State::kNicbenchRrReady;
    if (st.spec.rr.mode == record::RrMode::kCrr && !params.ext->crr_token.empty()) {
      st.crr_token = params.ext->crr_token;
      ready = wire::State::kNicbenchCrrTokenReady;
    }
    return wire::SendState(control_.get(), ready);
  }
  if (st.peer_is_nicbench && params.ext->announce) {
    return wire::SendState(control_.get(), wire::State::kNicbenchReady);
  }
  return Ok();
}

Status ServerSession::ReserveBudgets(State& st) {
  const size_t streams = PlanStreams(st.spec, /*is_client=*/false).size();
  const int workers = WorkerThreadsFor(shared_.config.threads, streams);
  const uint64_t fds = TestDescriptors(st.spec, workers);
  if (!shared_.fds.TryReserve(fds)) {
    // "unable to create a new test: Too many open files"
    TellError(wire::iperf_errno::kNewTest, EMFILE);
    return Fail(
        fmt::format("refused: it needs {} descriptors, {} of the budget of {} are in "
                    "use (the descriptor limit less a reserve)",
                    fds, shared_.fds.in_use(), shared_.fds.limit()));
  }
  st.fds_reserved = fds;
  const uint64_t need = TestBufferBytes(st.spec, workers);
  if (shared_.memory.TryReserve(need)) {
    st.memory_reserved = need;
    return Ok();
  }
  // A stock client prints "unable to create a new test: Cannot allocate memory".
  TellError(wire::iperf_errno::kNewTest, ENOMEM);
  return Fail(fmt::format(
      "refused: its buffers need {}, more than the {} left of the {} "
      "memory budget (--max-memory)",
      FormatBytes(static_cast<double>(need)),
      FormatBytes(static_cast<double>(shared_.memory.limit() -
                                      std::min(shared_.memory.limit(), shared_.memory.in_use()))),
      FormatBytes(static_cast<double>(shared_.memory.limit()))));
}

Status ServerSession::AwaitStreams() {
  std::unique_lock<std::mutex> lock(mutex_);
  streams_arrived_.wait_until(lock, setup_deadline_,
                              [&] { return terminating_ || streams_.size() >= streams_wanted_; });
  accepting_streams_ = false;
  if (terminating_) return Fail("server stopping");
  if (streams_.size() < streams_wanted_) {
    return Fail(fmt::format("only {} of {} data streams connected in time", streams_.size(),
                            streams_wanted_));
  }
  return Ok();
}

Status ServerSession::SetUpTcpStreams(State& st) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    streams_wanted_ = st.streams.size();
    streams_udp_ = false;
    accepting_streams_ = true;
  }
  if (auto s = wire::SendState(control_.get(), wire::State::kCreateStreams); !s) return s;
  if (auto s = AwaitStreams(); !s) return s;
  const net::SocketOptions options = DataSocketOptions(st.spec);
  for (auto& fd : streams_) {
    // The window is set right after accept: the listener is shared by every test, so it cannot
    // carry one test's buffer sizes (docs/engine.md: the window-scaling caveat).
    int family = AF_INET6;
    if (auto local = net::SocketAddress::Local(fd.get())) family = local->family();
    if (auto s = net::ApplySocketOptions(fd.get(), family, SOCK_STREAM, options); !s) {
      LogWarning("data stream options: " + s.error().ToString());
    }
    if (shared_.config.on_data_socket) shared_.config.on_data_socket(fd.get());
    st.stream_fds.push_back(std::move(fd));
  }
  streams_.clear();
  if (auto name = net::CongestionName(st.stream_fds.front().get())) st.congestion_used = *name;
  return Ok();
}

Status ServerSession::SetUpUdpStreams(State& st) {
  auto peer = net::SocketAddress::Peer(control_.get());
  if (!shared_.udp_hellos || !peer) {
    TellError(wire::iperf_errno::kStreamListen, EADDRINUSE);
    return Fail("the server's UDP port is not open (it could not be bound at start)");
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    streams_wanted_ = st.streams.size();
    streams_udp_ = true;
    accepting_streams_ = true;
  }
  const net::SocketOptions options = DataSocketOptions(st.spec);  // carries --dont-fragment
  UdpHellos& hellos = *shared_.udp_hellos;
  hellos.Expect(this, UdpHellos::PlainHost(*peer), st.streams.size(), options,
                [this](net::UniqueFd fd) { return !OfferStream(std::move(fd), /*udp=*/true); });
  // Another test of the same host may be taking its hellos: CREATE_STREAMS only once it is done.
  Status s = hellos.WaitTurn(this, setup_deadline_, [this] { return stopping(); })
                 ? Ok()
                 : Fail("another test from the same address kept setting up its UDP streams");
  if (s) s = wire::SendState(control_.get(), wire::State::kCreateStreams);
  if (s) s = AwaitStreams();
  hellos.Forget(this);
  if (!s) return s;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& fd : streams_) {
    if (shared_.config.on_data_socket) shared_.config.on_data_socket(fd.get());
    st.stream_fds.push_back(std::move(fd));
  }
  streams_.clear();
  return Ok();
}

Status ServerSession::SetUpStreams(State& st) {
  st.streams = PlanStreams(st.spec, /*is_client=*/false);
  // Each stream is one connect and cookie more to wait for (a request/response test may have
  // 1,024): the set-up budget grows with them, so it stays bounded.
  setup_deadline_ += kSetupPerStream * st.streams.size();
  Status s =
      st.spec.transport == record::Transport::kTcp ? SetUpTcpStreams(st) : SetUpUdpStreams(st);
  if (!s) return s;
  // The control connection first, as the client's record has it (the report lists the rest).
  AddConnection(st.record, control_.get());
  for (const auto& fd : st.stream_fds) AddConnection(st.record, fd.get());
  if (!st.stream_fds.empty()) ReadSocketBuffers(st.stream_fds.front().get(), st.spec, st.record);
  st.path = DataPath::Create(shared_.config.threads);
  st.record.local.worker_threads = WorkerThreadsFor(shared_.config.threads, st.streams.size());
  if (auto refused = RefuseForFile(shared_.config.file, st.spec)) {
    return Refuse(st, wire::iperf_errno::kFile, *refused);
  }
  if (shared_.config.file.enabled()) st.file = std::make_shared<FileTransfer>(shared_.config.file);
  const bool alone = EachFlowAlone(shared_.config.threads, st.streams.size());
  for (size_t i = 0; i < st.streams.size(); ++i) {
    FlowConfig flow = MakeFlowConfig(st.stream_fds[i].Release(), st.streams[i], st.spec, alone);
    flow.file = st.file;
    flow.peer_drains = st.peer_is_nicbench;
    flow.crr_token = st.crr_token;
    if (st.rr_stamps) flow.rr_stamps = true, flow.rr_alone = false;  // stamped on the epoll path
    if (auto a = st.path->AddFlow(flow); !a) {
      if (st.file) return Refuse(st, wire::iperf_errno::kFile, a.error().ToString());
      return a;
    }
  }
  st.path->SetBudget(MakeBudget(st.spec));
  auto peer = net::SocketAddress::Peer(control_.get());
  // Only a nicbench client gets the samples back, so only its tests are sampled.
  st.threads->Enter();
  st.host.emplace(peer ? peer->HostString() : std::string(), st.want_samples, st.threads);
  if (auto t = wire::SendState(control_.get(), wire::State::kTestStart); !t) return t;
  // The host's baseline is read before the data starts, so the counted window (Measure takes
  // its start right after this) starts with the data, as the client's does.
  st.host->Begin();
  if (auto t = wire::SendState(control_.get(), wire::State::kTestRunning); !t) return t;
  st.path->AccountThreads(st.threads);
  st.cpu.Start(st.threads.get());
  return st.path->Start();
}

void ServerSession::SendLiveSample(State& st) {
  if (!st.live_samples || !st.host->last()) return;
  nlohmann::json message = {{"index", st.samples_sent++}, {"sample", *st.host->last()}};
  // A failure here is the client gone; the measuring loop finds out on its own.
  if (wire::SendState(control_.get(), wire::State::kNicbenchSample)) {
    (void)wire::SendJson(control_.get(), message);
  }
}

// What the server's role tells the client goes through the session, which owns the connection.
class ServerSession::Teller final : public ServerTeller {
 public:
  Teller(ServerSession& session, State& st) : session_(session), st_(st) {}
  void TellError(int i_errno, int sys_errno) override { session_.TellError(i_errno, sys_errno); }
  Status Refuse(int i_errno, const std::string& why) override {
    return session_.Refuse(st_, i_errno, why);
  }
  void SendLiveSample() override { session_.SendLiveSample(st_); }

 private:
  ServerSession& session_;
  State& st_;
};

Status ServerSession::Measure(State& st) {
  const bool by_time = st.spec.bytes == 0 && st.spec.blocks == 0;
  st.count_in_flight = !by_time && st.spec.transport == record::Transport::kTcp &&
                       std::none_of(st.streams.begin(), st.streams.end(),
                                    [](const StreamRole& r) { return r.sender; });
  auto waiter = EpollWaiter::Create(control_.get(), st.path->DoneFd(), stop_fd_);
  if (!waiter) return tl::unexpected(waiter.error());
  MeasureLoopOptions options;
  options.ender = MeasureLoopOptions::Ender::kPeer;
  options.stall_limit = shared_.config.receive_timeout;
  // A test that has not moved one byte since TEST_RUNNING is a client holding the slot, not a
  // slow link (a client sends its first block at once, even at -b 1k): it ends well before
  // --rcv-timeout.
  options.first_data_limit = kFirstDataLimit;
  // The safety timer: a client that never sends TEST_END cannot hold the slot. A test until
  // interrupted (-t 0) is held to --max-duration, as a test by bytes is.
  const bool timed = by_time && st.spec.duration.count() > 0;
  options.give_up_after =
      (timed ? st.spec.duration + st.spec.omit : shared_.config.limits.max_duration) +
      shared_.config.grace;
  DataPathFlows flows(*st.path, st.streams, st.spec.transport);
  Teller teller(*this, st);
  ServerRoleConfig role_config;
  role_config.control_fd = control_.get();
  role_config.control_timeout = shared_.config.control_timeout;
  role_config.total_rate_limit_bits_per_second = shared_.config.total_rate_limit_bits_per_second;
  role_config.total_rate_window = shared_.config.total_rate_window;
  ServerRole role(st, role_config, teller);
  if (auto s = MeasureLoop(st, options, *st.clock, **waiter, flows, role).Run(); !s) {
    return s;
  }
  // The client sent TEST_END. A forward TCP test ended by bytes or blocks counts on until the
  // client's results say what it sent (CountInFlight).
  if (st.count_in_flight) return Ok();
  st.path->Stop();
  (void)st.path->Join();
  auto counters = st.path->Snapshot();
  AddQueuedBytes(*st.path, st.spec.transport, counters);
  CloseAtPeerEnd(st, counters, flows.TcpInfos());
  // Close the data sockets now, as iperf3's server does at TEST_END: a stock client in
  // reverse mode drains them until they close before it answers EXCHANGE_RESULTS.
  st.path.reset();
  return Ok();
}

void ServerSession::CountInFlight(State& st, const protocol::PeerResults& theirs) {
  // A stock client sends TEST_END as soon as its last write returns, with up to a send buffer
  // of data still on the way (a nicbench client waits for its send queues to empty first).
  // Its results come before ours, so we wait for what each stream sent, briefly.
  std::map<int, uint64_t> sent;
  for (const protocol::PeerStream& s : theirs.streams) sent[s.id] = s.bytes;
  const auto limit = st.clock->Now() + kInFlightLimit;
  for (;;) {
    auto counters = st.path->Snapshot();
    AddQueuedBytes(*st.path, st.spec.transport, counters);
    const bool all = std::all_of(counters.begin(), counters.end(),
                                 [&](const FlowCounters& c) { return c.bytes >= sent[c.id]; });
    if (all || st.path->Failed() || st.clock->Now() >= limit) break;
    std::this_thread::sleep_for(milliseconds(1));
  }
  st.path->Stop();
  (void)st.path->Join();
  auto counters = st.path->Snapshot();
  AddQueuedBytes(*st.path, st.spec.transport, counters);
  CloseAtPeerEnd(st, counters, ReadTcpInfos(*st.path, st.streams, st.spec.transport));
  st.path.reset();
}

Status ServerSession::ExchangeResults(State& st) {
  const milliseconds timeout = shared_.config.control_timeout;
  if (auto s = wire::SendState(control_.get(), wire::State::kExchangeResults); !s) return s;
  auto doc =
      wire::ReadJson(control_.get(), timeout, wire::kMaxParamsBytes * 16, "the client's results");
  if (!doc) return tl::unexpected(doc.error());
  auto theirs = protocol::DecodeResultsJson(std::move(*doc));
  if (!theirs) return tl::unexpected(theirs.error());
  if (st.count_in_flight) CountInFlight(st, *theirs);
  const record::CpuUtilization cpu = st.cpu.Read();
  st.record.local.cpu = cpu;
  st.record.local.congestion_used = st.congestion_used;
  EndData(st);
  if (auto s = FinishRecord(st, *theirs, /*asked_for_output=*/false); !s) return s;
  protocol::PeerResults ours =
      MakeLocalResults(st.totals, cpu, st.spec.transport, st.congestion_used);
  if (st.peer_is_nicbench) ours.extension = nlohmann::json(st.record.local);
  if (st.spec.get_server_output) PutServerOutput(shared_.config, st.record, ours);
  const nlohmann::ordered_json results = protocol::EncodeResults(ours);
  ours.extension.reset();  // the document holds its own copy of our record while it is sent
  if (auto s = wire::SendJson(control_.get(), results); !s) return s;
  if (auto s = wire::SendState(control_.get(), wire::State::kDisplayResults); !s) return s;
  auto done = wire::ReadState(control_.get(), timeout, "IPERF_DONE");
  if (!done) return tl::unexpected(done.error());
  return Ok();
}

// `serve --log-tests`: what the test was and what it moved. A request/response test is named
// as one ("TCP RR -P 1") and counted in transactions: its few bytes make no useful bit rate.
namespace {
// `user`: the authenticated user's loggable name, or empty.
std::string TestLogLine(const EndRun& st, bool params_read, const Status& status,
                        const std::string& user) {
  if (!params_read) {
    return "(no parameters): " +
           (status ? std::string("ok") : "failed: " + status.error().ToString());
  }
  const bool rr = st.spec.rr.enabled();
  std::string kind = rr ? record::RrModeName(st.spec.rr.mode) : DirectionWord(st.spec.direction);
  if (rr) std::transform(kind.begin(), kind.end(), kind.begin(), ::toupper);
  std::string what =
      fmt::format("{} {} -P {}", record::TransportName(st.spec.transport), kind, st.spec.parallel);
  if (!user.empty()) what += " user " + user;
  if (!status) return what + ": failed: " + status.error().ToString();
  const double seconds = st.record.test_seconds;
  if (rr) {
    uint64_t answered = 0;
    for (const FlowTotals& t : st.totals) answered += t.transactions;
    return fmt::format("{}: ok, {} transactions answered in {:.2f} s ({})", what, answered, seconds,
                       seconds > 0 ? fmt::format("{:.0f}/s", answered / seconds) : "no rate");
  }
  uint64_t received = 0;
  for (const auto& s : st.record.streams) received += s.bytes_received;
  return fmt::format("{}: ok, {} received in {:.2f} s ({})", what,
                     FormatBytes(static_cast<double>(received)), seconds,
                     seconds > 0 ? FormatBitRate(received * 8.0 / seconds) : "no rate");
}
}  // namespace

void ServerSession::Finish(State& st, const Status& status) {
  if (st.path) {
    st.path->Stop();
    (void)st.path->Join();
  }
  if (!status) st.record.error = status.error().ToString();
  (status ? shared_.tests_ok : shared_.tests_failed)++;
  if (shared_.config.log_tests) {
    std::fprintf(stderr, "nicbench: test %.8s from %s: %s\n", cookie_.c_str(), peer_.c_str(),
                 TestLogLine(st, st.params_read, status, st.user).c_str());
  }
  if (shared_.sink && st.params_read) shared_.sink(st.record);
}

void ServerSession::Run() {
  State st;
  BeginRecord(st.record, record::Role::kServer, "the client does not send its record");
  st.record.cookie = cookie_;
  Status status = Ok();
  try {
    status = Handshake(st);
    TellSetUpFailure(st, wire::iperf_errno::kRecvParams, status);
    st.record.spec = st.spec;
    if (status) {
      status = SetUpStreams(st);
      TellSetUpFailure(st, wire::iperf_errno::kStreamAccept, status);
    }
    if (status) status = Measure(st);
    if (status) status = ExchangeResults(st);
  } catch (const std::exception& e) {
    status = Fail(std::string("internal error: ") + e.what());
  }
  if (!status && stopping()) {
    // The server is stopping (Terminate): the client hears it whatever step it was in.
    (void)wire::SendState(control_.get(), wire::State::kServerTerminate, milliseconds(200));
  }
  Finish(st, status);
  st.path.reset();  // frees the buffers the reservation stood for
  shared_.memory.Release(st.memory_reserved);
  shared_.fds.Release(st.fds_reserved);
  {
    std::lock_guard<std::mutex> lock(mutex_);  // Terminate may be using the fd
    control_.Reset();
  }
  finished_ = true;
  if (on_finished_) on_finished_();
}

}  // namespace nicbench::engine
