#include "cli/option_tables.h"

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "base/units.h"
#include "cli/option_tables_fleet.h"
#include "cli/option_tables_tools.h"

namespace nicbench::cli {
namespace {

using engine::ClientConfig;
using engine::ServerConfig;
using job::MonitorSpec;
using record::SpecLimits;
using record::TestSpec;

constexpr auto kSpec = &ClientConfig::spec;
constexpr auto kLimits = &ServerConfig::limits;
constexpr Range kPort{0, 65535};
constexpr Range kBytes{0, UINT64_MAX, Reading::kByteSize};
constexpr Range kBits{0, UINT64_MAX, Reading::kBitRate};

// -S: a TOS byte, decimal or 0x.. (as iperf3 reads it).
Status SetTos(std::string_view name, const std::string& text, ClientConfig& client) {
  uint64_t value = 0;
  if (text.size() > 2 && (text[1] == 'x' || text[1] == 'X') && text[0] == '0') {
    size_t used = 0;
    try {
      value = std::stoull(text.substr(2), &used, 16);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() - 2) return Fail(fmt::format("{}: '{}' is not a number", name, text));
  } else {
    auto parsed = ParseInRange(name, text, {});
    if (!parsed) return tl::unexpected(parsed.error());
    value = *parsed;
  }
  if (value > 255) return Fail(fmt::format("{}: {} is out of range 0..255", name, text));
  client.spec.tos = static_cast<int>(value);
  return Ok();
}

// -f: iperf3's units letter.
Status SetFormat(std::string_view name, const std::string& text, ClientConfig& client) {
  if (text.size() != 1 || std::string_view("kmgtKMGTaA").find(text[0]) == std::string::npos) {
    return Fail(fmt::format("{}: '{}' is not one of k m g t K M G T", name, text));
  }
  client.spec.format = text[0] == 'A' ? 'a' : text[0];
  return Ok();
}

// serve --max-duration: seconds > 0, up to a year.
Status SetMaxDuration(std::string_view name, const std::string& text, ServerConfig& config) {
  auto s = ParseSeconds(text);
  if (!s || *s <= 0 || *s > 86400 * 365) return Fail(fmt::format("{}: expected seconds > 0", name));
  config.limits.max_duration = std::chrono::milliseconds(static_cast<int64_t>(*s * 1000));
  return Ok();
}

// The test itself: what is sent, how, and between which addresses (iperf3's options); then the
// payload, the output and the run's shape. -n, -k, -l, -b, -R, -u, -4/-6 and the ports mean
// more than their own text (--rr takes -l and -n; -n and -k exclude each other): the
// validation pass in run_command.cc reads them.
const RunRow kRunRows[] = {
    {"host", "server to test against (nicbench or iperf3); none = loopback", &RunArgs::host},
    {"-c,--client", "server host (iperf3 spelling)", &RunArgs::host},
    {"-p,--port", "server port (default 5201)", &RunArgs::port,
     SetNumber<kPort, &ClientConfig::port>, "70000"},
    {"-t,--time", "seconds to transmit (default 10)", &RunArgs::time,
     SetMillis<kSpec, &TestSpec::duration>, "abc", "time"},
    {"-n,--bytes", "bytes to transmit instead of -t (K/M/G suffix)", &RunArgs::bytes,
     SetNumber<Range{1, UINT64_MAX, Reading::kByteSize}, kSpec, &TestSpec::bytes>, "1Q", "num"},
    {"-k,--blockcount", "blocks to transmit instead of -t", &RunArgs::blocks,
     SetNumber<Range{1, UINT64_MAX, Reading::kByteSize}, kSpec, &TestSpec::blocks>, "many",
     "blockcount"},
    {"-i,--interval", "seconds between reports (default 1, 0 = none)", &RunArgs::interval,
     SetMillis<kSpec, &TestSpec::interval>, "often"},
    {"-P,--parallel", "parallel streams per direction (1..2048); --rr/--crr: flows (1..1024)",
     &RunArgs::parallel, SetNumber<Range{0, 100000}, kSpec, &TestSpec::parallel>, "many",
     "parallel"},
    {"-R,--reverse", "server sends, client receives", &RunArgs::reverse, nullptr, nullptr,
     "reverse"},
    {"--bidir", "both directions at once", &RunArgs::bidir, nullptr, nullptr, "bidirectional"},
    {"-u,--udp", "UDP instead of TCP", &RunArgs::udp, nullptr, nullptr, "udp"},
    {"-b,--bitrate", "target bits/s per stream (k/m/g; UDP default 1M)", &RunArgs::rate,
     SetNumber<kBits, kSpec, &TestSpec::rate_bits_per_second>, "fast", "bandwidth"},
    {"-l,--length", "block length in bytes (K/M suffix)", &RunArgs::length,
     SetNumber<Range{1, UINT64_MAX, Reading::kByteSize}, kSpec, &TestSpec::block_bytes>, "0",
     "len"},
    {"-w,--window", "socket buffer size (SO_SNDBUF/SO_RCVBUF)", &RunArgs::window,
     SetNumber<kBytes, kSpec, &TestSpec::window_bytes>, "wide", "window"},
    {"-M,--set-mss", "TCP maximum segment size", &RunArgs::mss,
     SetNumber<Range{}, kSpec, &TestSpec::mss_bytes>, "big", "MSS"},
    {"-N,--no-delay", "TCP_NODELAY on data sockets", &RunArgs::nodelay,
     SetFlag<kSpec, &TestSpec::no_delay>, nullptr, "nodelay"},
    {"-C,--congestion", "TCP congestion control algorithm", &RunArgs::congestion,
     SetText<kSpec, &TestSpec::congestion>, nullptr, "congestion"},
    {"-S,--tos", "IP type of service (0..255, 0x.. accepted)", &RunArgs::tos, SetTos, "300", "TOS"},
    {"-Z", "zero-copy send with sendfile (as iperf3 -Z)", &RunArgs::sendfile, nullptr, nullptr,
     "zerocopy"},
    {"--zerocopy", "zero-copy send method: sendfile or msg (MSG_ZEROCOPY)", &RunArgs::zerocopy,
     nullptr, "bogus", "zerocopy"},
    {"--skip-rx-copy", "receive with MSG_TRUNC (no copy to user space)", &RunArgs::skip_rx_copy,
     SetFlag<kSpec, &TestSpec::skip_rx_copy>},
    {"-B,--bind", "local address to bind", &RunArgs::bind, SetText<kSpec, &TestSpec::bind_address>},
    {"--cport", "local port for the data streams", &RunArgs::cport,
     SetNumber<kPort, kSpec, &TestSpec::client_port>, "99999"},
    {"-4,--version4", "IPv4 only", &RunArgs::ipv4},
    {"-6,--version6", "IPv6 only", &RunArgs::ipv6},
    {"-T,--title", "prefix for every output line", &RunArgs::title,
     SetText<kSpec, &TestSpec::title>, nullptr, "title"},
    {"-O,--omit", "seconds to omit at the start (warm-up)", &RunArgs::omit,
     SetMillis<kSpec, &TestSpec::omit>, "-1", "omit"},
    {"--get-server-output", "fetch the server's results too", &RunArgs::server_output,
     SetFlag<kSpec, &TestSpec::get_server_output>, nullptr, "get_server_output"},
    {"--udp-counters-64bit", "64-bit UDP sequence numbers", &RunArgs::counters64,
     SetFlag<kSpec, &TestSpec::udp_counters_64bit>, nullptr, "udp_counters_64bit"},
    {"--udp-offload,--gsro",
     "UDP segmentation offload: the sender hands the kernel up to 64 KiB of datagrams\n"
     "per send (UDP_SEGMENT), a nicbench receiver takes them coalesced (UDP_GRO); the\n"
     "datagrams on the wire are the same (docs/engine.md)",
     &RunArgs::udp_offload, SetFlag<kSpec, &TestSpec::udp_offload>},
    {"--repeating-payload", "payload 0123456789... instead of random", &RunArgs::repeating,
     SetFlag<kSpec, &TestSpec::repeating_payload>, nullptr, "repeating_payload"},
    {"-J,--json", "one JSON document on stdout", &RunArgs::json},
    {"--both-directions",
     "forward then reverse against HOST, then compare the two directions\n"
     "side by side (as the loopback job does); JSON: one document per line, the second with "
     "\"directions\"",
     &RunArgs::both_directions},
    {"--loopback", "test over loopback in both directions (the default when no host is given)",
     &RunArgs::loopback},
    {"--connect-timeout", "control connect timeout in ms", &RunArgs::connect_timeout,
     SetNumber<Range{1, 3600000}, &ClientConfig::connect_timeout>, "0"},
    {"--rcv-timeout", "end the test if its data stops this long, ms (default 120000; 0 = never)",
     &RunArgs::rcv_timeout, SetNumber<Range{0, 86400000}, &ClientConfig::receive_timeout>, "-1"},
    {"--threads", "worker threads (0 = one per stream up to 4 streams, else one per CPU)",
     &RunArgs::threads, SetNumber<Range{0, 256}, &ClientConfig::threads>, "257"},
    {"--no-samples",
     "do not sample CPU, interrupts and counters on either end (to measure what\n"
     "sampling costs); facts and throughput are still recorded",
     &RunArgs::no_samples},
    {"--remote-facts",
     "a `nicbench collect` capture of the server's host (collect --script on a\n"
     "far end that runs a stock iperf3): its facts and sample join the diagnosis",
     &RunArgs::remote_facts, nullptr, "/nonexistent/capture", nullptr, kExistingDirectory},
};

const OptionRow<Iperf3RunArgs, ClientConfig> kIperf3RunRows[] = {
    {"--fq-rate", "fair-queue pacing rate per stream (SO_MAX_PACING_RATE, k/m/g bit/s)",
     &Iperf3RunArgs::fq_rate, SetNumber<kBits, kSpec, &TestSpec::fq_rate_bits_per_second>, "fast",
     "fqrate"},
    {"--pacing-timer", "microseconds between a paced sender's rate checks (default 1000)",
     &Iperf3RunArgs::pacing_timer,
     SetNumber<Range{1, 10000000, Reading::kByteSize}, kSpec, &TestSpec::pacing_timer_us>, "0",
     "pacing_timer"},
    {"-A,--affinity", "N[,M]: pin nicbench to CPU N (and the server's test to CPU M)",
     &Iperf3RunArgs::affinity, nullptr, "5000", "server_affinity"},
    {"-f,--format", "units of the text rates: k m g t (bits) K M G T (bytes)",
     &Iperf3RunArgs::format, SetFormat, "x"},
    {"-V,--verbose", "more detail: the test's setup, CPU use, congestion control",
     &Iperf3RunArgs::verbose},
    {"-d,--debug", "the effective options and parameters on stderr", &Iperf3RunArgs::debug},
    {"--logfile", "send all output (stdout and stderr) to this file", &Iperf3RunArgs::logfile},
    {"--dscp", "DSCP bits of the TOS byte: 0..63 or a name (EF, AF41, CS1)", &Iperf3RunArgs::dscp,
     nullptr, "64", "TOS"},
    {"--bind-dev", "bind the sockets to this interface (SO_BINDTODEVICE)", &Iperf3RunArgs::bind_dev,
     nullptr, "a-name-longer-than-an-interface-name"},
    {"-L,--flowlabel", "IPv6 flow label of the data streams (0..1048575)",
     &Iperf3RunArgs::flowlabel, SetNumber<Range{0, 0xFFFFF}, kSpec, &TestSpec::flowlabel>,
     "2000000", "flowlabel"},
    {"--dont-fragment", "UDP: set the don't-fragment bit", &Iperf3RunArgs::dont_fragment, nullptr,
     nullptr, "dont_fragment"},
    {"--extra-data", "text carried in the JSON output (extra_data)", &Iperf3RunArgs::extra_data,
     SetText<kSpec, &TestSpec::extra_data>, nullptr, "extra_data"},
    {"--cntl-ka", "[IDLE/INTERVAL/COUNT]: TCP keepalive on the control connection",
     &Iperf3RunArgs::cntl_ka, nullptr, "1/2/3/4", nullptr, kOptionalValue},
    {"--snd-timeout", "ms of unacknowledged data before a TCP stream fails (TCP_USER_TIMEOUT)",
     &Iperf3RunArgs::snd_timeout, nullptr, "soon"},
    {"-m,--mptcp", "Multipath TCP instead of TCP (Linux >= 5.6)", &Iperf3RunArgs::mptcp},
    {"--sctp", "refused: nicbench tests TCP and UDP", &Iperf3RunArgs::sctp},
};

const OptionRow<Iperf3ServeArgs> kIperf3ServeRows[] = {
    {"--server-bitrate-limit",
     "RATE[/SECONDS]: end a test whose total rate over SECONDS (default 5) exceeds RATE",
     &Iperf3ServeArgs::bitrate_limit, nullptr, "0"},
    {"--logfile", "send all output (stdout and stderr) to this file", &Iperf3ServeArgs::logfile},
    {"-A,--affinity", "pin the server to this CPU", &Iperf3ServeArgs::affinity, nullptr, "5000"},
    {"-V,--verbose", "accepted for iperf3 scripts (each test is logged)",
     &Iperf3ServeArgs::verbose},
    {"-d,--debug", "accepted for iperf3 scripts (each test is logged)", &Iperf3ServeArgs::debug},
    {"--sctp", "refused: nicbench tests TCP and UDP", &Iperf3ServeArgs::sctp},
};

// Applied only to a --rr/--crr test (rr_options.cc); -l and -n are read there too.
const OptionRow<RrArgs, TestSpec> kRrRows[] = {
    {"--rr",
     "request/response test: each flow sends a request and waits for the response\n"
     "(netperf's TCP_RR; with -u UDP_RR); needs `nicbench serve` on HOST. -l REQ[,RESP]\n"
     "sets the message sizes (default 1,1), -n N a number of transactions, -P flows\n"
     "(up to 1024)",
     &RrArgs::rr},
    {"--crr", "connect, request, response, close for every transaction (netperf's TCP_CRR)",
     &RrArgs::crr},
    {"--rr-burst", "transactions in flight per flow in --rr/--crr (default 1, up to 1024)",
     &RrArgs::burst, SetNumber<Range{}, &TestSpec::rr, &record::RrSpec::burst>, "many"},
    {"--rr-timeout", "UDP --rr: a request without a response this long is lost, ms (default 1000)",
     &RrArgs::timeout, SetNumber<Range{}, &TestSpec::rr, &record::RrSpec::timeout_ms>, "soon"},
    {"--rr-spin",
     "--rr/--crr: both ends poll the socket up to this many microseconds before\n"
     "they sleep in a wait (0..10000, default 0: sleep at once, as netperf does);\n"
     "takes a sleeping core's wake-up out of each transaction, costs busy cores",
     &RrArgs::spin, SetNumber<Range{}, &TestSpec::rr, &record::RrSpec::spin_us>, "fast"},
    {"--rr-rate",
     "--rr/--crr: start transactions on a schedule of N a second (1..10000, one TCP\n"
     "flow; up to --rr-burst waiting for answers) instead of back to back: a probe of\n"
     "the path's latency, not of its rate",
     &RrArgs::rate, SetNumber<Range{}, &TestSpec::rr, &record::RrSpec::rate_per_second>, "often"},
};

const OptionRow<FileArgs> kFileRows[] = {
    {"-F,--file",
     "send this file (the test ends at its end), or with -R write what arrives into it; the "
     "file calls are timed, for the disk's own rate",
     &FileArgs::file},
    {"--direct", "-F opens the file with O_DIRECT (no page cache) where the filesystem allows",
     &FileArgs::direct},
};

const OptionRow<OutputArgs> kOutputRows[] = {
    {"--html", "also write the run as a self-contained HTML report with charts (docs/report.md)",
     &OutputArgs::html},
    {"--json-stream", "newline-delimited JSON events as the test runs (iperf3 --json-stream)",
     &OutputArgs::json_stream},
    {"--timestamps{%c }",
     "prefix each output line with the time (--timestamps=FORMAT: strftime, default '%c ')",
     &OutputArgs::timestamps, nullptr, nullptr, nullptr, kValueFlag},
    {"--forceflush", "flush output at every interval (always done)", &OutputArgs::forceflush},
};

const OptionRow<StoreArgs> kStoreRows[] = {
    {"--store",
     "result store: a SQLite file or a postgresql:// URL (default $NICBENCH_STORE,\n"
     "else $XDG_DATA_HOME/nicbench/results.db, else ~/.local/share/nicbench/results.db)",
     &StoreArgs::store},
    {"--no-store", "do not store this run in the result store", &StoreArgs::no_store},
    {"--label", "tag the stored run KEY=VALUE (repeatable)", &StoreArgs::labels, nullptr,
     "no-equals-sign", nullptr, kRepeatable},
};

const OptionRow<UnderLoadArgs> kUnderLoadRows[] = {
    {"--under-load",
     "latency under load: probes alone for an idle phase, then beside the test; says\n"
     "how much the test delays everything else and in which queue (docs/latency.md)",
     &UnderLoadArgs::on},
    {"--probe-rate", "--under-load: probes a second, both kinds together (2..1000, default 100)",
     &UnderLoadArgs::rate},
    {"--idle-time", "--under-load: seconds of probes alone before the test (1..60, default 3)",
     &UnderLoadArgs::idle},
};

const OptionRow<RunAuthArgs> kRunAuthRows[] = {
    {"--username", "authenticate as this user (password from IPERF3_PASSWORD or a prompt)",
     &RunAuthArgs::username},
    {"--rsa-public-key-path", "the server's RSA public key (PEM) to encrypt the credentials with",
     &RunAuthArgs::public_key},
    {"--use-pkcs1-padding", "pad with PKCS#1 v1.5 instead of OAEP (iperf3 servers before 3.17)",
     &RunAuthArgs::pkcs1},
    {"--server-key",
     "the server's RSA public key (PEM): a nicbench server must prove it holds its private "
     "half, else the run is refused",
     &RunAuthArgs::server_key},
};

const OptionRow<ServeAuthArgs> kServeAuthRows[] = {
    {"--rsa-private-key-path",
     "require iperf3 authentication: the server's RSA private key (PEM, mode 600)",
     &ServeAuthArgs::private_key},
    {"--authorized-users-path", "file of username,sha256hex lines (the hash of \"{user}password\")",
     &ServeAuthArgs::users},
    {"--time-skew-threshold", "seconds a token's time may differ from the server's (default 10)",
     &ServeAuthArgs::skew},
    {"--use-pkcs1-padding",
     "accept PKCS#1 v1.5 tokens too (iperf3 clients before 3.17), besides OAEP",
     &ServeAuthArgs::pkcs1},
    {"--allow", "serve only clients in this CIDR (repeatable; IPv4 and IPv6)",
     &ServeAuthArgs::allow, nullptr, "10.1.2.3/8", nullptr, kRepeatable},
    {"--deny", "refuse clients in this CIDR (repeatable; wins over --allow)", &ServeAuthArgs::deny,
     nullptr, "example.com", nullptr, kRepeatable},
    {"--max-tests-per-subnet",
     "tests from one subnet at once (default: no limit; see --subnet-prefix-v4/v6)",
     &ServeAuthArgs::max_per_subnet, nullptr, "0"},
    {"--subnet-prefix-v4",
     "prefix length of an IPv4 subnet for --max-tests-per-subnet (default 24)",
     &ServeAuthArgs::subnet_v4},
    {"--subnet-prefix-v6",
     "prefix length of an IPv6 subnet for --max-tests-per-subnet (default 64)",
     &ServeAuthArgs::subnet_v6},
};

const ServeRow kServeRows[] = {
    {"-p,--port", "TCP/UDP port to listen on (default 5201)", &ServeArgs::port,
     SetNumber<kPort, &ServerConfig::port>, "70000"},
    {"-1,--once,--one-off", "exit after one test", &ServeArgs::once, SetFlag<&ServerConfig::once>},
    {"-D,--daemon", "fork and detach from the terminal", &ServeArgs::daemon},
    {"-I,--pidfile", "write the server's pid to this file", &ServeArgs::pidfile},
    {"-B,--bind", "listen on this address only (default: all, IPv4+IPv6)", &ServeArgs::bind,
     SetText<&ServerConfig::bind_address>},
    {"--idle-timeout", "exit after this many seconds without a test", &ServeArgs::idle_timeout,
     SetNumber<Range{1, uint64_t{86400} * 365}, &ServerConfig::idle_timeout>, "0"},
    {"--max-tests", "tests running at once (default 4)", &ServeArgs::max_tests,
     SetNumber<Range{1, 1024}, &ServerConfig::max_tests>, "0"},
    {"--max-duration", "longest test accepted, seconds (t + omit)", &ServeArgs::max_duration,
     SetMaxDuration, "0"},
    {"--max-rate", "highest per-stream rate accepted (k/m/g bit/s)", &ServeArgs::max_rate,
     SetNumber<Range{1, UINT64_MAX, Reading::kBitRate}, kLimits,
               &SpecLimits::max_rate_bits_per_second>,
     "0"},
    {"--max-streams", "most parallel streams per direction accepted (1..2048, default 128)",
     &ServeArgs::max_streams,
     SetNumber<Range{1, record::kMaxParallelStreams}, kLimits, &SpecLimits::max_parallel>, "0"},
    {"--max-rr-flows",
     "most request/response flows (-P of --rr/--crr) accepted (1..1024, default 1024)",
     &ServeArgs::max_rr_flows, SetNumber<Range{1, 1024}, kLimits, &SpecLimits::max_rr_flows>, "0"},
    {"--max-block", "largest block length accepted (K/M bytes)", &ServeArgs::max_block,
     SetNumber<Range{1, 16u << 20, Reading::kByteSize}, kLimits, &SpecLimits::max_block_bytes>,
     "32M"},
    {"--threads", "worker threads per test (0 = one per stream up to 4 streams, else one per CPU)",
     &ServeArgs::threads, SetNumber<Range{0, 256}, &ServerConfig::threads>, "257"},
    {"--rcv-timeout",
     "end a test whose data stops this long, ms (default 120000, as iperf3; 0 = never)",
     &ServeArgs::rcv_timeout, SetNumber<Range{0, 86400000}, &ServerConfig::receive_timeout>, "-1"},
    {"--max-tests-per-client,--max-tests-per-address",
     "tests from one client address at once (default: --max-tests minus 1)",
     &ServeArgs::max_per_address, SetNumber<Range{1, 1024}, &ServerConfig::max_tests_per_address>,
     "0"},
    {"--max-tests-per-client-per-hour",
     "tests one client address may start in any hour (default: no limit)", &ServeArgs::max_per_hour,
     SetNumber<Range{1, 1000000}, &ServerConfig::max_tests_per_address_per_hour>, "x"},
    {"--max-connections-per-second",
     "new connections one client address may open a second (1..1000000, default 1000, with a "
     "burst of one whole test set-up); beyond it one already closed or sending garbage is "
     "closed at once, and a silent one waits in 16 places, not 1100",
     &ServeArgs::max_connection_rate,
     SetNumber<Range{1, 1000000}, &ServerConfig::max_connections_per_second>, "0", nullptr,
     kParseEmpty},
    {"--max-memory", "buffers of all tests together (K/M/G bytes, default 256M); more is refused",
     &ServeArgs::max_memory,
     SetNumber<Range{1u << 20, UINT64_MAX, Reading::kByteSize}, &ServerConfig::memory_budget_bytes>,
     "1K"},
    {"-J,--json", "one JSON document per test on stdout", &ServeArgs::json},
};

constexpr int64_t kSecondMs = 1000;

const MonitorRow kMonitorRows[] = {
    {"peer", "the peer to watch: `nicbench serve` or a stock iperf3 -s", &MonitorArgs::peer},
    {"-p,--port", "the peer's port (default 5201)", &MonitorArgs::port, nullptr, "70000"},
    {"--every", "time between periodic tests: 30s, 10m, 1h (default 10m)", &MonitorArgs::every,
     SetDuration<kSecondMs, 86400 * kSecondMs, &MonitorSpec::every>, "0"},
    {"--test",
     "the periodic test, as run's options in one word list (default\n"
     "'-t 5 --both-directions': five seconds each way)",
     &MonitorArgs::test, nullptr, "-t abc"},
    {"--sample-interval", "time between samples of this host, 0.1s..60s (default 1s)",
     &MonitorArgs::sample_interval,
     SetDuration<kSecondMs / 10, 60 * kSecondMs, &MonitorSpec::sample_interval>, "10ms"},
    {"--probe-window", "latency probes between tests: one figure per window, 1s..10m (default 10s)",
     &MonitorArgs::probe_window,
     SetDuration<kSecondMs, 600 * kSecondMs, &MonitorSpec::probe_window>, "0.5s"},
    {"--probe-rate",
     "request/response probes a second against a nicbench peer, 1..100 (default 10)",
     &MonitorArgs::probe_rate, SetNumber<Range{1, 100}, &MonitorSpec::probe_rate>, "0"},
    {"--baseline",
     "stored runs to judge the tests against (a selector as compare takes);\n"
     "default: the session's first --baseline-tests tests each direction",
     &MonitorArgs::baseline, nullptr, "nonsense:1"},
    {"--baseline-tests", "tests that make the baseline, 1..100 (default 3)",
     &MonitorArgs::baseline_tests,
     SetNumber<Range{1, 100}, &MonitorSpec::thresholds, &job::Thresholds::baseline_tests>, "0"},
    {"--saturated-for", "a core busy in irq/softirq this long is an event (default 10s)",
     &MonitorArgs::saturated_for,
     SetDuration<kSecondMs / 10, 3600 * kSecondMs, &MonitorSpec::thresholds,
                 &job::Thresholds::saturated_for>,
     "soon"},
    {"--saturated-percent",
     "irq+softirq share of a core that counts as saturated, 50..100 (default 90)",
     &MonitorArgs::saturated_percent,
     SetDecimal<50, 100, &MonitorSpec::thresholds, &job::Thresholds::saturated_percent>, "20"},
    {"--degraded-percent",
     "goodput this far below the baseline (and significant) is an event, 1..99\n(default 10)",
     &MonitorArgs::degraded_percent,
     SetDecimal<1, 99, &MonitorSpec::thresholds, &job::Thresholds::degraded_percent>, "100"},
    {"--events", "append the events as NDJSON to FILE (SIGHUP reopens it)", &MonitorArgs::events},
    {"--json", "NDJSON events on stdout even on a terminal", &MonitorArgs::json},
    {"--log",
     "append the monitor's own diagnostic lines (its stderr) to FILE instead\n"
     "(SIGHUP reopens it)",
     &MonitorArgs::log},
    {"--metrics-listen",
     "serve Prometheus metrics at http://ADDR:PORT/metrics (ADDR defaults to\n127.0.0.1)",
     &MonitorArgs::metrics_listen, nullptr, "127.0.0.1:99999"},
    {"--record", "write every sample's /proc and /sys files under DIR", &MonitorArgs::record,
     SetText<&MonitorSpec::record_dir>},
    {"--replay", "judge a recorded series (--record DIR) instead of a peer", &MonitorArgs::replay},
    {"--interface", "the interface to watch (default: the route to PEER)", &MonitorArgs::iface},
    {"--id", "the monitor's id (default: PEER:PORT and the start time)", &MonitorArgs::id},
    {"--lock-dir", "where the one-monitor-per-peer lock lives (default $XDG_RUNTIME_DIR/nicbench)",
     &MonitorArgs::lock_dir},
};

const StandRow kStandUpRows[] = {
    {"--name", "stand name: 1-8 lower-case letters/digits (default nb)", &StandArgs::name, nullptr,
     "Bad_Name"},
    {"--hosts", "number of hosts, 2-32 (default 2; >2 adds a switch)", &StandArgs::hosts, nullptr,
     "1", nullptr, kIntValue},
    {"--profile", "link profile: 100baseTX, 1000baseT, 10GBASE-T, unlimited (default 1000baseT)",
     &StandArgs::profile, nullptr, "56k"},
    {"--mtu", "MTU of every veth end (default 1500)", &StandArgs::mtu, nullptr, "huge", nullptr,
     kIntValue},
    {"--tso", "TCP segmentation offload on|off (default: kernel's)", &StandArgs::tso, nullptr,
     "maybe"},
    {"--gso", "generic segmentation offload on|off", &StandArgs::gso, nullptr, "maybe"},
    {"--gro", "generic receive offload on|off", &StandArgs::gro, nullptr, "maybe"},
    {"--checksum", "tx and rx checksum offload on|off", &StandArgs::checksum, nullptr, "maybe"},
    {"--delay", "one-way delay in ms per egress (needs netem)", &StandArgs::delay_ms, nullptr,
     "long", nullptr, kIntValue},
    {"--queue-limit",
     "the shaper's queue: bytes (64K) or time at the rate (50ms; default 50ms):\n"
     "a deep or a shallow buffer for latency under load (docs/latency.md)",
     &StandArgs::queue_limit, nullptr, "deep"},
    {"--queue-limit-on",
     "HOST (h1): --queue-limit on that host's own egress only, the other egresses\n"
     "at the default: one direction deep, as an upload buffer in a modem",
     &StandArgs::queue_limit_on, nullptr, "h0"},
    {"--bottleneck",
     "with --hosts 3 or more: the switch's ports at this slower profile (the hosts'\n"
     "links at --profile), so the queue forms in a hop that forwards, as at a router;\n"
     "--queue-limit then applies to it",
     &StandArgs::bottleneck, nullptr, "56k"},
    {"--queue",
     "fq_codel or cake under the shaper (the root when unlimited) on every veth\n"
     "egress, in place of its byte FIFO; refused (exit 3) on a kernel without it",
     &StandArgs::queue, nullptr, "foo"},
};

const StandRow kStandDownRows[] = {
    {"--name", "stand name (default nb)", &StandArgs::name, nullptr, "Bad_Name"},
    {"--force",
     "stop processes still running inside the stand (SIGTERM, then SIGKILL); without it, down "
     "refuses and names them",
     &StandArgs::force},
};

const StandRow kStandExecRows[] = {
    {"--name", "stand name (default nb)", &StandArgs::name, nullptr, "Bad_Name"},
    {"host", "host: h1, h2, ... or NAME-h1", &StandArgs::host, nullptr, nullptr, nullptr,
     kRequired},
    {"command", "the command and its arguments (after --)", &StandArgs::command, nullptr, nullptr,
     nullptr, kRequired},
};

}  // namespace

std::span<const RunRow> RunRows() { return kRunRows; }
std::span<const ServeRow> ServeRows() { return kServeRows; }
std::span<const MonitorRow> MonitorRows() { return kMonitorRows; }
std::span<const StandRow> StandUpRows() { return kStandUpRows; }
std::span<const StandRow> StandDownRows() { return kStandDownRows; }
std::span<const StandRow> StandExecRows() { return kStandExecRows; }
std::span<const OptionRow<Iperf3RunArgs, ClientConfig>> Iperf3RunRows() { return kIperf3RunRows; }
std::span<const OptionRow<Iperf3ServeArgs>> Iperf3ServeRows() { return kIperf3ServeRows; }
std::span<const OptionRow<RrArgs, TestSpec>> RrRows() { return kRrRows; }
std::span<const OptionRow<FileArgs>> FileRows() { return kFileRows; }
std::span<const OptionRow<OutputArgs>> OutputRows() { return kOutputRows; }
std::span<const OptionRow<StoreArgs>> StoreRows() { return kStoreRows; }
std::span<const OptionRow<UnderLoadArgs>> UnderLoadRows() { return kUnderLoadRows; }
std::span<const OptionRow<RunAuthArgs>> RunAuthRows() { return kRunAuthRows; }
std::span<const OptionRow<ServeAuthArgs>> ServeAuthRows() { return kServeAuthRows; }

std::vector<RowView> CommandRows(std::string_view command) {
  std::vector<RowView> out;
  if (command == "run") {
    AppendViews(out, RunRows());
    AppendViews(out, StoreRows());
    AppendViews(out, OutputRows());
    AppendViews(out, Iperf3RunRows());
    AppendViews(out, FileRows());
    AppendViews(out, RrRows());
    AppendViews(out, UnderLoadRows());
    AppendViews(out, RunAuthRows());
  } else if (command == "serve") {
    AppendViews(out, ServeRows());
    AppendViews(out, Iperf3ServeRows());
    AppendViews(out, FileRows());
    AppendViews(out, ServeAuthRows());
  } else if (command == "monitor") {
    AppendViews(out, MonitorRows());
    AppendViews(out, StoreRows());
  } else if (command == "stand up") {
    AppendViews(out, StandUpRows());
  } else if (command == "stand down") {
    AppendViews(out, StandDownRows());
  } else if (command == "stand exec") {
    AppendViews(out, StandExecRows());
  } else if (!AppendToolRows(command, out)) {
    AppendFleetRows(command, out);
  }
  return out;
}

}  // namespace nicbench::cli
