// Interval lines in iperf3's layout (src/iperf_locale.c of iperf3 3.12 for the columns), with
// one compact line per end after them.
#include <fmt/format.h>

#include "analysis/host_figures.h"
#include "report/format.h"
#include "report/sums.h"
#include "report/terminal_text.h"
#include "report/text_lines.h"
#include "report/text_report.h"

namespace nicbench::report {

namespace text {

std::string Tag(const record::RunRecord& run, int id, bool local_sends) {
  std::string tag = id < 0 ? "[SUM]" : fmt::format("[{:>3}]", id);
  if (IsBidirectional(run)) {
    const char end = run.local.role == record::Role::kServer ? 'S' : 'C';
    tag += fmt::format("[{}-{}]", local_sends ? "TX" : "RX", end);
  }
  return tag;
}

std::string Transfer(const record::RunRecord& run, double start, double end, uint64_t bytes) {
  return fmt::format(
      " {:6.2f}-{:<6.2f} sec  {}  {}", start, end, IperfBytes(static_cast<double>(bytes)),
      IperfRateOr(BitsPerSecond(static_cast<double>(bytes), end - start), run.spec.format));
}

std::string UdpLoss(double jitter_seconds, uint64_t lost, uint64_t packets) {
  const std::string percent =
      packets > 0 ? fmt::format("{:.2g}%", 100.0 * lost / packets) : std::string("-");
  return fmt::format("  {:5.3f} ms  {}/{} ({})", jitter_seconds * 1000.0, lost, packets, percent);
}

}  // namespace text

namespace {

bool IsTcp(const record::RunRecord& run) { return run.spec.transport == record::Transport::kTcp; }

std::string Cwnd(const record::StreamInterval& s) {
  if (!s.tcp_info.known()) return "   -";
  const record::TcpInfoSample& t = s.tcp_info.value();
  return IperfBytes(static_cast<double>(t.snd_cwnd) * t.snd_mss);
}

std::string StreamLine(const record::RunRecord& run, const record::StreamInterval& s) {
  std::string line = text::Tag(run, s.id, s.sender) + text::Transfer(run, s.start, s.end, s.bytes);
  if (IsTcp(run) && s.sender) {
    line += fmt::format("  {:>3}   {}", s.retransmits, Cwnd(s));
  } else if (!IsTcp(run) && s.sender) {
    line += fmt::format("  {}", s.packets);
  } else if (!IsTcp(run)) {
    line += text::UdpLoss(s.jitter_seconds, s.lost, s.packets);
  }
  if (s.omitted) line += "  (omitted)";
  return line + "\n";
}

std::string SumLine(const record::RunRecord& run, const IntervalSum& sum) {
  std::string line =
      text::Tag(run, -1, sum.sender) + text::Transfer(run, sum.start, sum.end, sum.bytes);
  if (IsTcp(run) && sum.sender) {
    line += fmt::format("  {:>3}", sum.retransmits);
  } else if (!IsTcp(run) && sum.sender) {
    line += fmt::format("  {}", sum.packets);
  } else if (!IsTcp(run)) {
    line += text::UdpLoss(sum.jitter_seconds, sum.lost, sum.packets);
  }
  if (sum.omitted) line += "  (omitted)";
  return line + "\n";
}

// "       local  cpu1 97% si | nic irq 16.0k/s | retr 4 | drops 2". Only the NIC's own lines
// count as its interrupt rate: the host's total is mostly the local timer, which a reader
// would take for the NIC's.
std::string HostLine(const char* who, const record::HostInterval& h) {
  std::string line = fmt::format("{:>12}  ", who);
  if (const auto core = analysis::BusiestCore(h)) {
    line += fmt::format("cpu{} {:.0f}%", core->cpu, core->busy_percent);
    if (!core->kinds.empty() && core->kinds[0].percent > 0)
      line += " " + std::string(core->kinds[0].name);
  } else {
    line += "cpu " + UnknownText(h.cpus);
  }
  if (const auto nic = analysis::NicIrqPerSecond(h)) {
    line += " | nic irq " + CompactCount(*nic) + "/s";
  } else if (h.irqs.known()) {
    line += " | no NIC interrupt lines";
  } else {
    line += " | irq " + UnknownText(h.irqs);
  }
  if (const auto retr = analysis::NetCounter(h, "Tcp.RetransSegs")) {
    line += fmt::format(" | retr {}", *retr);
  }
  if (const auto softnet = analysis::Softnet(h); softnet && softnet->dropped > 0) {
    line += fmt::format(" | drops {}", softnet->dropped);
  }
  return line + "\n";
}

std::string ColumnsFor(bool tcp, bool sender) {
  if (tcp) return sender ? "Retr  Cwnd" : "";
  return sender ? "Total Datagrams" : "Jitter    Lost/Total Datagrams";
}

}  // namespace

std::string RenderIntervalHeader(const record::RunRecord& run) {
  if (run.spec.rr.enabled()) return text::RrIntervalHeader(run);
  const bool tcp = IsTcp(run);
  std::string columns;
  if (IsBidirectional(run)) {
    columns = tcp ? "Retr  Cwnd" : "Jitter    Lost/Total Datagrams";
  } else {
    const bool local_sends = (run.spec.direction == record::Direction::kForward) ==
                             (run.local.role != record::Role::kServer);
    columns = ColumnsFor(tcp, local_sends);
  }
  const std::string role = IsBidirectional(run) ? "[Role]" : "";
  std::string line =
      fmt::format("[ ID]{} Interval           Transfer     Bitrate         {}", role, columns);
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

std::string RenderIntervalLine(const record::RunRecord& run, const record::IntervalRecord& interval,
                               const record::HostInterval* local,
                               const record::HostInterval* remote) {
  std::string out;
  if (run.spec.rr.enabled()) {
    out = text::RrIntervalLine(run, interval);
    if (local != nullptr) out += HostLine("local", *local);
    if (remote != nullptr) out += HostLine("remote", *remote);
    return out;
  }
  const bool bidir = IsBidirectional(run);
  const bool several = interval.streams.size() > 1;
  if (several && interval.start > 0) out += text::kSeparator;
  for (const record::StreamInterval& s : interval.streams) out += StreamLine(run, s);
  if (bidir) {
    const IntervalSum sent = SumInterval(interval, StreamSet::kLocalSends);
    const IntervalSum received = SumInterval(interval, StreamSet::kLocalReceives);
    if (sent.streams > 1) out += SumLine(run, sent);
    if (received.streams > 1) out += SumLine(run, received);
  } else if (several) {
    out += SumLine(run, SumInterval(interval, StreamSet::kAll));
  }
  if (local != nullptr) out += HostLine("local", *local);
  if (remote != nullptr) out += HostLine("remote", *remote);
  return out;
}

std::string RenderHostLine(const char* who, const record::HostInterval& sample) {
  return HostLine(who, sample);
}

std::string RenderConnectedLines(const record::RunRecord& run, bool verbose) {
  std::string out = fmt::format("Connecting to host {}, port {}\n", TerminalSafe(run.server_host),
                                run.server_port);
  for (size_t i = 1; i < run.connections.size(); ++i) {
    const record::ConnectionInfo& c = run.connections[i];
    const int id = i == 1 ? 1 : static_cast<int>(i) + 1;  // iperf3's 1, 3, 4, ...
    out += fmt::format("[{:>3}] local {} port {} connected to {} port {}\n", id, c.local_host,
                       c.local_port, c.remote_host, c.remote_port);
  }
  if (verbose) {
    const record::TestSpec& s = run.spec;
    const std::string end = s.bytes != 0 ? fmt::format("{} bytes to send", s.bytes)
                            : s.blocks != 0
                                ? fmt::format("{} blocks to send", s.blocks)
                                : fmt::format("{} second test", s.duration.count() / 1000.0);
    out += fmt::format(
        "Starting Test: protocol: {}, {} streams, {} byte blocks, omitting {} "
        "seconds, {}, tos {}\n",
        record::TransportName(s.transport), s.parallel, record::EffectiveBlockBytes(s),
        s.omit.count() / 1000.0, end, s.tos);
  }
  return out;
}

}  // namespace nicbench::report
