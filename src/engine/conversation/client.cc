// The client's conversation (spec section 5): connect, cookie, parameters, streams, the
// measuring loop with interval sampling and the end condition, then the results exchange. Each step
// is a function returning Status; RunClient strings them together and fills the record.
#include "engine/conversation/client.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "base/log.h"
#include "engine/conversation/client_errors.h"
#include "engine/conversation/client_role.h"
#include "engine/conversation/client_run.h"
#include "engine/conversation/peer_results.h"
#include "engine/conversation/record_lifecycle.h"
#include "engine/conversation/stream_plan.h"
#include "engine/conversation/udp_handshake.h"
#include "engine/measure/host_observer.h"
#include "engine/measure/measure_loop.h"
#include "net/descriptor_limit.h"
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

// The ending (TEST_END to DISPLAY_RESULTS) gets this plus a tenth of the test's duration.
constexpr milliseconds kEndingTimeout{10000};

net::Family FamilyOf(record::AddressFamily f) {
  switch (f) {
    case record::AddressFamily::kIpv4: return net::Family::kIpv4;
    case record::AddressFamily::kIpv6: return net::Family::kIpv6;
    default: return net::Family::kAny;
  }
}

Status ConnectControl(ClientRun& run) {
  auto addresses = net::Resolve(run.config.host, run.config.port, FamilyOf(run.spec.family));
  if (!addresses) return Fail(ErrorKind::kConnect, addresses.error());
  Error last{"no address"};
  net::SocketOptions options;
  options.no_delay = true;  // every control message is its own small write, as iperf3 does
  options.bind_device = run.spec.bind_device;
  options.mptcp = run.spec.mptcp;
  options.keepalive = run.config.control_keepalive;
  options.keepalive_idle_s = run.config.keepalive_idle_s;
  options.keepalive_interval_s = run.config.keepalive_interval_s;
  options.keepalive_count = run.config.keepalive_count;
  for (const net::SocketAddress& addr : *addresses) {
    auto fd = net::Connect(addr, run.spec.bind_address, 0, options, run.config.connect_timeout);
    if (fd) {
      run.control = std::move(*fd);
      run.server = addr;
      run.setup_deadline = run.clock->Now() + run.config.control_timeout;
      AddConnection(run.record, run.control.get());
      return Ok();
    }
    last = fd.error();
  }
  // The errno goes along, so a caller can tell a refusal (nothing listens) from a timeout.
  return Fail(ErrorKind::kConnect, "unable to connect to server: " + last.message, last.sys_errno);
}

// UDP without -l: the control connection's MSS, else 1460, as the 3.12 client does.
void FillUdpBlockSize(ClientRun& run) {
  if (run.spec.transport != record::Transport::kUdp || run.spec.block_bytes != 0) return;
  auto mss = net::GetIntOption(run.control.get(), IPPROTO_TCP, TCP_MAXSEG, "TCP_MAXSEG");
  uint32_t block = mss && *mss > 0 ? static_cast<uint32_t>(*mss) : 1460;
  run.spec.block_bytes = std::min<uint32_t>(block, 65507);
}

bool AsksForClock(const ClientRun& run) {
  return run.config.clock_exchanges > 0 && run.spec.rr.mode == record::RrMode::kRr &&
         run.spec.transport == record::Transport::kTcp &&
         run.spec.rr.response_bytes >= protocol::kStampBytes;
}

// The server's part of the clock exchanges (NICBENCH_CLOCK came): this test's estimate, or the
// caller's earlier one when its bound is the smaller. A failed estimate (a clock stepped during
// every exchange) leaves the test without one-way delays, not failed.
Status TakeClock(ClientRun& run) {
  auto samples = protocol::RunClockExchanges(run.control.get(), run.config.clock_exchanges,
                                             Left(run, run.setup_deadline));
  if (!samples) return Fail(ErrorKind::kProtocol, samples.error());
  auto own = protocol::EstimateClockOffset(std::move(*samples));
  if (!own) {
    run.clock_unknown = own.error().message;
    return Ok();
  }
  run.clock_offset = *own;
  if (const auto& hint = run.config.clock_hint; hint && hint->bound_us < own->bound_us) {
    run.clock_offset = *hint;
    run.clock_offset->carried = true;
  }
  return Ok();
}

// A nicbench server answers a request/response test's parameters with NICBENCH_RR_READY; a
// stock iperf3 server ignores our extension and asks for the streams of a bulk test: stop now.
Status ExpectRrReady(ClientRun& run) {
  auto state = ReadServerState(run, Left(run, run.setup_deadline), "the server's answer to --rr");
  if (!state) return tl::unexpected(state.error());
  if (*state == wire::State::kNicbenchClock && AsksForClock(run)) {
    if (auto s = TakeClock(run); !s) return s;
    state = ReadServerState(run, Left(run, run.setup_deadline), "the server's answer to --rr");
    if (!state) return tl::unexpected(state.error());
  } else if (AsksForClock(run)) {
    run.clock_unknown =
        "the server does not timestamp its answers (a nicbench before one-way delay)";
  }
  if (*state == wire::State::kNicbenchRrReady) return Ok();  // an older nicbench: no token
  if (*state == wire::State::kNicbenchCrrTokenReady && !run.crr_token.empty()) {
    run.crr_token_taken = true;
    return Ok();
  }
  if (*state == wire::State::kCreateStreams) {
    return Fail(ErrorKind::kPeerCannot,
                fmt::format("iperf3 has no request/response test: run `nicbench serve` on {}",
                            run.config.host));
  }
  return Fail(ErrorKind::kProtocol,
              "expected NICBENCH_RR_READY from the server, got " + wire::StateName(*state));
}

// run --server-key: the server's first answer to the parameters must be its proof of the
// pinned key (protocol/server_proof.h). A refusal (SERVER_ERROR, ACCESS_DENIED) is reported as
// such; anything else means the server did not prove it, and the run stops before any data.
Status CheckServerProof(ClientRun& run, const std::string& nonce) {
  const std::string pinned = "--server-key " + run.config.server_key_path;
  auto state = ReadServerState(run, Left(run, run.setup_deadline), "the server's proof of its key");
  if (!state) return tl::unexpected(state.error());
  if (*state != wire::State::kNicbenchServerProof) {
    return Fail(ErrorKind::kPeerCannot,
                fmt::format("the server did not prove it holds the key of {} (it answered {}: "
                            "a stock iperf3 server or an older nicbench cannot)",
                            pinned, wire::StateName(*state)));
  }
  auto doc = wire::ReadJson(run.control.get(), Left(run, run.setup_deadline), 16 * 1024,
                            "the server's proof of its key");
  if (!doc) return Fail(ErrorKind::kProtocol, doc.error());
  const auto signature = doc->find("signature");
  if (signature == doc->end() || !signature->is_string()) {
    const auto error = doc->find("error");
    const std::string why = error != doc->end() && error->is_string()
                                ? "the server: " + error->get<std::string>()
                                : std::string("the server sent no signature");
    return Fail(ErrorKind::kPeerCannot,
                fmt::format("the server did not prove it holds the key of {}: {}", pinned, why));
  }
  auto verified = protocol::VerifyServerProof(*run.config.server_key, run.cookie, nonce,
                                              signature->get<std::string>());
  if (!verified) {
    return Fail(ErrorKind::kPeerError,
                fmt::format("refusing the server: it is not the one of {} ({}); another host, "
                            "or the server's key changed",
                            pinned, verified.error().message));
  }
  return Ok();
}

Status ExchangeParams(ClientRun& run) {
  run.cookie = wire::MakeCookie();
  run.record.cookie = run.cookie;
  auto sent = wire::SendCookie(run.control.get(), run.cookie);
  if (!sent) return Fail(ErrorKind::kProtocol, sent.error());
  // Where iperf3 reads its tcp_mss_default: the control connection, once the cookie is out.
  auto mss = net::GetIntOption(run.control.get(), IPPROTO_TCP, TCP_MAXSEG, "TCP_MAXSEG");
  if (mss && *mss > 0) run.record.control_mss_bytes = static_cast<uint32_t>(*mss);
  if (auto s = Expect(run, wire::State::kParamExchange, Left(run, run.setup_deadline)); !s)
    return s;
  FillUdpBlockSize(run);
  wire::Extension ext;  // the exact times and our flags ride in it (params.h)
  ext.want_samples = run.config.sample_host;
  ext.live_samples = run.config.sample_host && run.config.live_samples;
  ext.announce = true;
  if (run.config.server_key) ext.prove_key = protocol::MakeProofNonce();
  if (run.spec.rr.mode == record::RrMode::kCrr) {
    run.crr_token = protocol::MakeCrrToken();
    ext.crr_token = run.crr_token;
  }
  if (AsksForClock(run)) ext.clock_exchanges = run.config.clock_exchanges;
  std::string token;
  if (const ClientAuth* auth = run.config.auth.get()) {
    auto made = protocol::EncodeAuthToken(auth->username, auth->password, auth->server_key,
                                          auth->padding, static_cast<int64_t>(std::time(nullptr)));
    if (!made) return Fail(ErrorKind::kProtocol, made.error());
    token = std::move(*made);
  }
  auto params = wire::SendJson(run.control.get(), wire::EncodeParams(run.spec, ext, token));
  if (!params) return Fail(ErrorKind::kProtocol, params.error());
  if (run.config.server_key) {
    if (auto s = CheckServerProof(run, ext.prove_key); !s) return s;
  }
  return run.spec.rr.enabled() ? ExpectRrReady(run) : Ok();
}

// EMFILE says which limit: every stream is a descriptor here (and, on loopback, at the server).
std::string StreamConnectError(const ClientRun& run, const Error& error) {
  std::string text = "unable to connect stream: " + error.ToString();
  if (error.sys_errno == EMFILE) {
    text += fmt::format(
        " ({} streams need more descriptors than the limit of {}; raise it "
        "with `ulimit -n`)",
        run.streams.size(), net::DescriptorLimit());
  }
  return text;
}

Status ConnectTcpStreams(ClientRun& run) {
  const net::SocketOptions options = DataSocketOptions(run.spec);
  for (size_t i = 0; i < run.streams.size(); ++i) {
    uint16_t port = run.spec.client_port ? static_cast<uint16_t>(run.spec.client_port + i) : 0;
    auto fd =
        net::Connect(run.server, run.spec.bind_address, port, options, run.config.connect_timeout);
    if (!fd) return Fail(ErrorKind::kConnect, StreamConnectError(run, fd.error()));
    auto sent = wire::SendCookie(fd->get(), run.cookie);
    if (!sent) return Fail(ErrorKind::kProtocol, sent.error());
    if (i == 0) {
      if (auto name = net::CongestionName(fd->get())) run.congestion_used = *name;
      ReadSocketBuffers(fd->get(), run.spec, run.record);
    }
    AddConnection(run.record, fd->get());
    run.stream_fds.push_back(std::move(*fd));
  }
  return Ok();
}

Status ConnectUdpStreams(ClientRun& run) {
  for (size_t i = 0; i < run.streams.size(); ++i) {
    uint16_t port = run.spec.client_port ? static_cast<uint16_t>(run.spec.client_port + i) : 0;
    auto fd = UdpClientHandshake(run.server, run.spec, port, Left(run, run.setup_deadline));
    if (!fd) return Fail(ErrorKind::kConnect, fd.error());
    if (i == 0) ReadSocketBuffers(fd->get(), run.spec, run.record);
    AddConnection(run.record, fd->get());
    run.stream_fds.push_back(std::move(*fd));
  }
  return Ok();
}

// A nicbench server says so first (NICBENCH_READY, asked for by Extension::announce); a stock
// iperf3 server goes straight to CREATE_STREAMS.
Status AwaitCreateStreams(ClientRun& run) {
  const std::string what = "a state byte before CREATE_STREAMS";
  auto state = ReadServerState(run, Left(run, run.setup_deadline), what);
  if (state && *state == wire::State::kNicbenchReady) {
    run.peer_is_nicbench = true;
    state = ReadServerState(run, Left(run, run.setup_deadline), what);
  }
  return CheckExpected(state, wire::State::kCreateStreams);
}

Status CreateStreams(ClientRun& run) {
  if (auto s = AwaitCreateStreams(run); !s) return s;
  // The host's facts and baseline take milliseconds to read. They are read now, before the
  // streams connect: once they have, the server sends TEST_START and TEST_RUNNING and starts
  // its clock without waiting, so any time we spent after that would be missing from the
  // server's counted window (a timed test's two ends then disagree by that much).
  run.record.spec = run.spec;
  run.threads->Enter();
  run.host.emplace(run.server.HostString(), run.config.sample_host, run.threads);
  run.host->Begin();
  run.streams = PlanStreams(run.spec, /*is_client=*/true);
  // As the server does: each stream's connect adds to the set-up budget (1,024 RR flows).
  run.setup_deadline += kSetupPerStream * run.streams.size();
  Status connected = run.spec.transport == record::Transport::kTcp ? ConnectTcpStreams(run)
                                                                   : ConnectUdpStreams(run);
  if (!connected) return connected;
  if (auto s = Expect(run, wire::State::kTestStart, Left(run, run.setup_deadline)); !s) return s;
  Status running = Expect(run, wire::State::kTestRunning, Left(run, run.setup_deadline));
  run.data_start = run.clock->Now();
  return running;
}

Status StartData(ClientRun& run) {
  run.path = DataPath::Create(run.config.threads);
  run.record.local.worker_threads = WorkerThreadsFor(run.config.threads, run.streams.size());
  if (run.config.file.enabled()) run.file = std::make_shared<FileTransfer>(run.config.file);
  const bool alone = EachFlowAlone(run.config.threads, run.streams.size());
  for (size_t i = 0; i < run.streams.size(); ++i) {
    FlowConfig flow = MakeFlowConfig(run.stream_fds[i].Release(), run.streams[i], run.spec, alone);
    flow.file = run.file;
    flow.peer_drains = run.peer_is_nicbench;
    if (run.crr_token_taken) flow.crr_token = run.crr_token;
    if (run.clock_offset) {
      flow.rr_stamps = true;
      flow.rr_alone = false;  // the stamps are read on the epoll path
      flow.clock_offset_ns = std::llround(run.clock_offset->offset_us * 1000);
    }
    if (auto s = run.path->AddFlow(flow); !s) return Fail(ErrorKind::kData, s.error());
  }
  run.path->SetBudget(MakeBudget(run.spec));
  // The client ends a byte/block test; its receivers tell it the moment they have it (-R -k).
  run.path->SetReceiveBudget(MakeBudget(run.spec));
  run.path->AccountThreads(run.threads);
  run.cpu.Start(run.threads.get());
  if (auto s = run.path->Start(); !s) return Fail(ErrorKind::kData, s.error());
  return Ok();
}

bool HasReceivers(const std::vector<StreamRole>& streams) {
  for (const StreamRole& s : streams) {
    if (!s.sender) return true;
  }
  return false;
}

// The measuring loop (this end decides the end), then TEST_END. Returns the sampler's totals in
// run.totals.
Status Measure(ClientRun& run) {
  auto waiter = EpollWaiter::Create(run.control.get(), run.path->DoneFd(), run.config.stop_fd);
  if (!waiter) return Fail(ErrorKind::kData, waiter.error());
  MeasureLoopOptions options;
  options.ender = MeasureLoopOptions::Ender::kSelf;
  options.stall_limit = run.config.receive_timeout;
  options.keep_measured_on_failure = true;
  options.interval_latency_buckets = run.config.interval_latency_buckets;
  DataPathFlows flows(*run.path, run.streams, run.spec.transport);
  ClientRole role(run);
  Status looped = MeasureLoop(run, options, *run.clock, **waiter, flows, role).Run();
  // The role gives a kind to what it ended; the rest is the wait itself failing.
  if (!looped && looped.error().kind == ErrorKind::kOther) {
    return Fail(ErrorKind::kData, looped.error());
  }
  if (!looped) return looped;
  // Without receivers nothing is left to drain; stopping first keeps our senders from writing
  // into sockets the server is about to close.
  if (run.spec.bytes != 0 || run.spec.blocks != 0) {
    WaitForSendQueues(*run.path, run.streams, run.spec.transport, std::chrono::seconds(3));
  }
  if (!HasReceivers(run.streams)) run.path->Stop();
  auto sent = wire::SendState(run.control.get(), wire::State::kTestEnd);
  if (!sent) return Fail(ErrorKind::kProtocol, sent.error());
  const milliseconds ending = kEndingTimeout + std::chrono::duration_cast<milliseconds>(
                                                   (run.spec.omit + run.spec.duration) / 10);
  run.ending_deadline = run.clock->Now() + std::min(ending, run.config.control_timeout);
  return Ok();
}

// A nicbench server's own record rides in its results (the extension); a stock one sends none.
void TakeRemoteRecord(ClientRun& run, protocol::PeerResults& theirs) {
  if (!theirs.extension) {
    run.record.remote = record::Measured<record::EndpointRecord>::Unknown(
        record::Missing::kNotReported, "the server is not nicbench");
    return;
  }
  auto remote = record::EndpointFromJson(*theirs.extension);
  if (remote) {
    run.record.remote = std::move(*remote);
  } else {
    run.record.remote = record::Measured<record::EndpointRecord>::Unknown(
        record::Missing::kError,
        "the server's extension did not read: " + remote.error().ToString());
  }
  theirs.extension.reset();  // read into run.record.remote
}

Status ExchangeResults(ClientRun& run) {
  if (auto s = Expect(run, wire::State::kExchangeResults, Left(run, run.ending_deadline)); !s)
    return s;
  const record::CpuUtilization cpu = run.cpu.Read();
  run.record.local.cpu = cpu;
  protocol::PeerResults ours =
      MakeLocalResults(run.totals, cpu, run.spec.transport, run.congestion_used);
  if (auto s = wire::SendJson(run.control.get(), protocol::EncodeResults(ours)); !s) {
    return Fail(ErrorKind::kProtocol, s.error());
  }
  auto doc = wire::ReadJson(run.control.get(), Left(run, run.ending_deadline),
                            wire::kMaxResultsBytes, "the server's results");
  if (!doc) return Fail(ErrorKind::kProtocol, doc.error());
  auto theirs = protocol::DecodeResultsJson(std::move(*doc));
  *doc = nlohmann::json();  // its record was moved out; the rest is not needed either
  if (!theirs) return Fail(ErrorKind::kProtocol, theirs.error());
  if (auto s = FinishRecord(run, *theirs, run.spec.get_server_output); !s) {
    return Fail(ErrorKind::kProtocol, s.error());
  }
  TakeRemoteRecord(run, *theirs);
  if (!theirs->congestion_used.empty() && run.congestion_used.empty()) {
    run.congestion_used = theirs->congestion_used;
  }
  run.record.local.congestion_used = run.congestion_used;
  if (auto s = Expect(run, wire::State::kDisplayResults, Left(run, run.ending_deadline)); !s)
    return s;
  (void)wire::SendState(run.control.get(), wire::State::kIperfDone);
  // A server whose -F write failed after our last byte went out (a full disk) could not end
  // the test early; its file record carries the error, and the test failed all the same.
  if (run.record.remote.known()) {
    const auto& file = run.record.remote.value().file;
    if (file && !file->error.empty())
      return Fail(ErrorKind::kData, "the server's -F: " + file->error);
  }
  return Ok();
}

void FinishData(ClientRun& run) {
  if (!run.path) return;
  run.path->Stop();
  // A worker failure after the end condition (the server closed its sockets) changes nothing
  // that was measured; one before it already ended the test through the done fd or a short count.
  (void)run.path->Join();
}

// A run that failed after data moved keeps this end's totals (the peer's side unknown) and its
// process CPU time so far, marked incomplete.
void KeepIncomplete(ClientRun& run) {
  if (run.totals.empty() || !run.record.streams.empty()) return;
  auto totals = CombineTotals(run.totals, protocol::PeerResults{}, run.spec.transport);
  if (!totals) return;
  for (record::StreamTotals& s : *totals) s.peer_reported = false;
  run.record.streams = std::move(*totals);
  run.record.incomplete = true;
  if (!run.record.local.cpu.known()) run.record.local.cpu = run.cpu.Read();
}

}  // namespace

ClientOutcome RunClient(const ClientConfig& config) {
  ClientEvents none;
  return RunClient(config, none);
}

ClientOutcome RunClient(const ClientConfig& config, ClientEvents& events) {
  ClientRun run(config);
  run.events = &events;
  BeginRecord(run.record, record::Role::kClient, "the test did not reach the results exchange");
  run.record.server_host = config.host;
  run.record.server_port = config.port;
  Status status = ConnectControl(run);
  if (status) status = ExchangeParams(run);
  if (status) status = CreateStreams(run);
  run.record.spec = run.spec;
  // The streams are connected: a terminal prints iperf3's "Connecting to host" and "connected
  // to" lines at once, before the first interval.
  if (status) events.Connected(run.record);
  if (status) status = StartData(run);
  ClientPhase phase = ClientPhase::kSetup;
  if (status) {
    phase = ClientPhase::kTest;
    status = Measure(run);
  }
  if (status) {
    phase = ClientPhase::kResults;
    status = ExchangeResults(run);
  }
  FinishData(run);
  ClientOutcome outcome;
  if (!status) {
    // Every failure above has a kind; one that came through without is the conversation's.
    if (status.error().kind == ErrorKind::kOther) status.error().kind = ErrorKind::kProtocol;
    UserError told = InUserTerms(status.error(), phase);
    status = tl::unexpected(told.error);
    outcome.detail = std::move(told.detail);
    run.record.error = status.error().ToString();
    KeepIncomplete(run);
  }
  EndData(run);
  if (run.clock_offset && run.record.rr) run.record.rr->clock = run.clock_offset;
  if (AsksForClock(run) && !run.clock_offset) {
    outcome.clock_unknown = !run.clock_unknown.empty()
                                ? run.clock_unknown
                                : "the test ended before the clock exchanges";
  }
  outcome.status = status;
  outcome.record = std::move(run.record);
  return outcome;
}

}  // namespace nicbench::engine
