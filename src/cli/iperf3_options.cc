#include "cli/iperf3_options.h"

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "base/units.h"
#include "cli/option_tables.h"
#include "record/json.h"
#include "report/wrap.h"

namespace nicbench::cli {
namespace {

constexpr uint32_t kMaxBurst = 1000;  // iperf3's MAX_BURST

// iperf3's --dscp names (src/dscp.c): the class selectors, assured forwarding, EF, VA, LE.
struct DscpName {
  std::string_view name;
  int value;
};
constexpr std::array<DscpName, 25> kDscpNames = {{
    {"cs0", 0},   {"cs1", 8},   {"cs2", 16},  {"cs3", 24},  {"cs4", 32},
    {"cs5", 40},  {"cs6", 48},  {"cs7", 56},  {"af11", 10}, {"af12", 12},
    {"af13", 14}, {"af21", 18}, {"af22", 20}, {"af23", 22}, {"af31", 26},
    {"af32", 28}, {"af33", 30}, {"af41", 34}, {"af42", 36}, {"af43", 38},
    {"ef", 46},   {"va", 44},   {"le", 1},    {"nqb", 45},  {"df", 0},
}};

Result<int> ParseDscp(const std::string& text) {
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const DscpName& d : kDscpNames) {
    if (lower == d.name) return d.value;
  }
  // A number in C's notation, as iperf3 reads it (strtol base 0): 46, 0x2e, 056.
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 0);
  if (text.empty() || end == nullptr || *end != '\0') {
    return Fail(fmt::format("--dscp: '{}' is neither 0..63 nor a name such as EF or AF41", text));
  }
  if (value < 0 || value > 63) return Fail(fmt::format("--dscp: {} is out of range 0..63", text));
  return static_cast<int>(value);
}

// -A N[,M]: the client's CPU, then the server's (either may be left out: "N", ",M").
Status ParseAffinity(const std::string& text, int* client_cpu, int* server_cpu) {
  const size_t comma = text.find(',');
  const std::string first = text.substr(0, comma);
  const std::string second = comma == std::string::npos ? "" : text.substr(comma + 1);
  if (first.empty() && second.empty()) return Fail("-A: expected N or N,M (CPU numbers)");
  if (!first.empty()) {
    auto n = ParseInRange("-A", first, Range{0, CPU_SETSIZE - 1});
    if (!n) return tl::unexpected(n.error());
    *client_cpu = static_cast<int>(*n);
  }
  if (!second.empty()) {
    auto m = ParseInRange("-A", second, Range{0, CPU_SETSIZE - 1});
    if (!m) return tl::unexpected(m.error());
    *server_cpu = static_cast<int>(*m);
  }
  return Ok();
}

// --cntl-ka[=IDLE/INTERVAL/COUNT]: keepalive on the control connection, each part optional.
Status ParseKeepalive(const std::string& text, engine::ClientConfig& client) {
  client.control_keepalive = true;
  int* parts[] = {&client.keepalive_idle_s, &client.keepalive_interval_s, &client.keepalive_count};
  std::istringstream in(text);
  std::string part;
  for (int i = 0; std::getline(in, part, '/'); ++i) {
    if (i >= 3) return Fail("--cntl-ka: expected IDLE/INTERVAL/COUNT");
    if (part.empty()) continue;
    auto v = ParseInRange("--cntl-ka", part, Range{1, 32767});
    if (!v) return tl::unexpected(v.error());
    *parts[i] = static_cast<int>(*v);
  }
  return Ok();
}

Status ApplyTransportOptions(const Iperf3RunArgs& a, record::TestSpec& spec) {
  const bool udp = spec.transport == record::Transport::kUdp;
  if (a.sctp) return Fail("--sctp: SCTP is not supported; nicbench tests TCP and UDP");
  if (a.mptcp && udp) return Fail("-m/--mptcp applies to TCP only");
  spec.mptcp = a.mptcp;
  if (a.dont_fragment && !udp) {
    return Fail("--dont-fragment applies to UDP only (TCP's path MTU discovery sets DF itself)");
  }
  spec.dont_fragment = a.dont_fragment;
  if (!a.snd_timeout.empty()) {
    if (udp) return Fail("--snd-timeout applies to TCP only");
    auto ms = ParseInRange("--snd-timeout", a.snd_timeout, Range{0, INT32_MAX});
    if (!ms) return tl::unexpected(ms.error());
    spec.snd_timeout_ms = static_cast<uint32_t>(*ms);
  }
  if (!a.bind_dev.empty()) {
    if (a.bind_dev.size() >= IFNAMSIZ) {
      return Fail(fmt::format("--bind-dev: '{}' is longer than an interface name", a.bind_dev));
    }
    spec.bind_device = a.bind_dev;
  }
  return Ok();
}

Status ApplyDscp(const Iperf3RunArgs& a, record::TestSpec& spec) {
  if (!a.dscp.empty()) {
    auto dscp = ParseDscp(a.dscp);
    if (!dscp) return tl::unexpected(dscp.error());
    // The DSCP is the TOS byte's upper six bits; -S's two ECN bits stay.
    spec.tos = (spec.tos & 0x3) | (*dscp << 2);
  }
  return Ok();
}

// The width output folds to: the terminal's when stdout is one (its window size, else
// $COLUMNS, else 80); 0 when piped, so a script reads every line whole.
size_t FoldWidth() {
  if (isatty(STDOUT_FILENO) != 1) return 0;
  winsize window{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &window) == 0 && window.ws_col > 0) return window.ws_col;
  if (const char* columns = std::getenv("COLUMNS")) {
    if (const int n = std::atoi(columns); n > 0) return static_cast<size_t>(n);
  }
  return 80;
}

}  // namespace

TextOutput::TextOutput(const std::string& title, bool verbose, bool debug, std::string timestamps)
    : prefix_(title.empty() ? "" : title + ":  "),
      timestamps_(std::move(timestamps)),
      verbose_(verbose),
      debug_(debug) {}

void TextOutput::Print(const std::string& text) const {
  std::string stamp;
  if (!timestamps_.empty()) {
    char buffer[256] = {};
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    std::strftime(buffer, sizeof buffer, timestamps_.c_str(), &local);
    stamp = buffer;
  }
  const std::string prefix = stamp + prefix_;
  // Folded to what is left of the terminal after the prefix (never narrower than 40).
  const size_t width = FoldWidth();
  const std::string folded =
      width == 0
          ? text
          : report::WrapToWidth(text, std::max<size_t>(40, width - std::min(width, prefix.size())));
  std::string out;
  size_t start = 0;
  while (start < folded.size()) {
    const size_t end = folded.find('\n', start);
    const size_t stop = end == std::string::npos ? folded.size() : end + 1;
    out += prefix;
    out.append(folded, start, stop - start);
    start = stop;
  }
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
}

void AddIperf3RunOptions(CLI::App& app, Iperf3RunArgs& a) {
  AddRows(app, a, Iperf3RunRows());
  a.cntl_ka_option = app.get_option("--cntl-ka");
}

void AddIperf3ServeOptions(CLI::App& app, Iperf3ServeArgs& a) {
  AddRows(app, a, Iperf3ServeRows());
}

void RepeatsTakeTheLast(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    // A row marked kRepeatable (--label K=V, serve --allow/--deny CIDR) keeps every value.
    if (option->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll) continue;
    if (option->get_type_size() != 0 && !option->get_positional()) {
      option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    }
  }
}

Status CheckHostGivenOnce(const CLI::App& app) {
  if (app.count("host") > 0 && app.count("--client") > 0) {
    return Fail("give the server either as HOST or with -c HOST, not both");
  }
  return Ok();
}

Status SplitBurst(std::string& rate, Iperf3RunArgs& args) {
  const size_t slash = rate.find('/');
  if (slash == std::string::npos) return Ok();
  const std::string burst = rate.substr(slash + 1);
  rate.resize(slash);
  auto n = ParseInRange("-b RATE/BURST", burst, Range{1, kMaxBurst});
  if (!n) return tl::unexpected(n.error());
  args.burst = static_cast<uint32_t>(*n);
  if (rate.empty()) rate = "0";  // "-b /10": unlimited rate, bursts of 10
  return Ok();
}

Status ApplyIperf3RunArgs(const Iperf3RunArgs& a, record::TestSpec& spec,
                          engine::ClientConfig& client, int* client_cpu) {
  if (auto s = ApplyTransportOptions(a, spec); !s) return s;
  if (auto s = ApplyRows(a, Iperf3RunRows(), client); !s) return s;
  if (auto s = ApplyDscp(a, spec); !s) return s;
  if (!a.affinity.empty()) {
    if (auto s = ParseAffinity(a.affinity, client_cpu, &spec.server_affinity); !s) return s;
  }
  if (a.burst != 0) spec.burst = a.burst;
  // --cntl-ka without a value leaves every knob at the kernel's default.
  if (!a.cntl_ka.empty() || (a.cntl_ka_option != nullptr && a.cntl_ka_option->count() > 0)) {
    if (auto s = ParseKeepalive(a.cntl_ka, client); !s) return s;
  }
  return Ok();
}

Status ApplyIperf3ServeArgs(const Iperf3ServeArgs& a, engine::ServerConfig& config,
                            int* server_cpu) {
  if (a.sctp) return Fail("--sctp: SCTP is not supported; nicbench tests TCP and UDP");
  if (!a.affinity.empty()) {
    auto cpu = ParseInRange("-A", a.affinity, Range{0, CPU_SETSIZE - 1});
    if (!cpu) return tl::unexpected(cpu.error());
    *server_cpu = static_cast<int>(*cpu);
  }
  if (a.bitrate_limit.empty()) return Ok();
  std::string rate = a.bitrate_limit;
  const size_t slash = rate.find('/');
  if (slash != std::string::npos) {
    auto seconds = ParseInRange("--server-bitrate-limit", rate.substr(slash + 1), Range{1, 3600});
    if (!seconds) return tl::unexpected(seconds.error());
    config.total_rate_window = std::chrono::seconds(*seconds);
    rate.resize(slash);
  }
  auto r = ParseBitRate(rate);
  if (!r || *r == 0) return Fail("--server-bitrate-limit: expected a rate > 0 such as 1G");
  config.total_rate_limit_bits_per_second = *r;
  return Ok();
}

Status PrepareIperf3Run(const CLI::App& app, std::string& rate, Iperf3RunArgs& args) {
  if (!args.logfile.empty()) {
    if (auto s = RedirectToLogfile(args.logfile); !s) return s;
  }
  if (auto s = CheckHostGivenOnce(app); !s) return s;
  return SplitBurst(rate, args);
}

Status StartIperf3Run(int client_cpu, const TextOutput& out, const record::TestSpec& spec) {
  if (client_cpu >= 0) {
    if (auto s = PinProcess(client_cpu); !s) return s;
  }
  if (out.debug()) {
    std::fprintf(stderr, "nicbench: debug: test spec %s\n", nlohmann::json(spec).dump().c_str());
    if (client_cpu >= 0) std::fprintf(stderr, "nicbench: debug: pinned to CPU %d\n", client_cpu);
  }
  return Ok();
}

Status PinProcess(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    return FailErrno(fmt::format("-A: cannot pin to CPU {}", cpu));
  }
  return Ok();
}

Status RedirectToLogfile(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return FailErrno("--logfile: cannot open " + path);
  std::fflush(stdout);
  std::fflush(stderr);
  const bool ok = dup2(fd, STDOUT_FILENO) >= 0 && dup2(fd, STDERR_FILENO) >= 0;
  close(fd);
  if (!ok) return FailErrno("--logfile: dup2");
  return Ok();
}

}  // namespace nicbench::cli
