// The end-of-test summary: iperf3's sender/receiver lines, then each end, then the findings.
#include <algorithm>

#include <fmt/format.h>

#include "report/format.h"
#include "report/sums.h"
#include "report/terminal_text.h"
#include "report/text_lines.h"
#include "report/text_report.h"

namespace nicbench::report {
namespace {

bool IsTcp(const record::RunRecord& run) { return run.spec.transport == record::Transport::kTcp; }

std::string Retransmits(const record::Measured<uint64_t>& retransmits) {
  return retransmits.known() ? fmt::format("  {:>3}", retransmits.value()) : "    -";
}

// iperf3 pads the receiver line so "receiver" lines up under "sender".
constexpr const char kTcpReceiverPad[] = "                  receiver\n";

std::string TcpStreamLines(const record::RunRecord& run, const record::StreamTotals& s) {
  const std::string tag = text::Tag(run, s.id, s.sender);
  if (!s.peer_reported) {  // an incomplete run: this end's own side only
    if (s.sender) {
      return tag + text::Transfer(run, 0, s.seconds_sent, s.bytes_sent) +
             Retransmits(s.retransmits) + "             sender\n";
    }
    return tag + text::Transfer(run, 0, s.seconds_received, s.bytes_received) + kTcpReceiverPad;
  }
  return tag + text::Transfer(run, 0, s.seconds_sent, s.bytes_sent) + Retransmits(s.retransmits) +
         "             sender\n" + tag +
         text::Transfer(run, 0, s.seconds_received, s.bytes_received) + kTcpReceiverPad;
}

std::string UdpStreamLines(const record::RunRecord& run, const record::StreamTotals& s) {
  const std::string tag = text::Tag(run, s.id, s.sender);
  if (!s.peer_reported && s.sender) {
    return tag + text::Transfer(run, 0, s.seconds_sent, s.bytes_sent) +
           fmt::format("  {} datagrams sent", s.packets) + "  sender\n";
  }
  // The sender cannot measure jitter; iperf3 prints 0 there.
  return tag + text::Transfer(run, 0, s.seconds_sent, s.bytes_sent) +
         text::UdpLoss(0, s.lost, s.packets) + "  sender\n" + tag +
         text::Transfer(run, 0, s.seconds_received, s.bytes_received) +
         text::UdpLoss(s.jitter_seconds, s.lost, s.packets) + "  receiver\n";
}

std::string SumLines(const record::RunRecord& run, StreamSet set) {
  const EndSum sent = SumSent(run.streams, set);
  const EndSum received = SumReceived(run.streams, set);
  if (sent.streams < 2 && received.streams < 2) return {};
  if (sent.streams == 0 || received.streams == 0) {  // an incomplete run: one side only
    const bool local_sent = sent.streams > 0;
    const EndSum& side = local_sent ? sent : received;
    const std::string tag = text::Tag(run, -1, side.sender);
    return tag + text::Transfer(run, 0, side.seconds, side.bytes) +
           (local_sent ? (IsTcp(run) ? Retransmits(sent.retransmits) : std::string()) +
                             "             sender\n"
                       : std::string(kTcpReceiverPad));
  }
  const std::string tag = text::Tag(run, -1, sent.sender);
  if (IsTcp(run)) {
    return tag + text::Transfer(run, 0, sent.seconds, sent.bytes) + Retransmits(sent.retransmits) +
           "             sender\n" + tag +
           text::Transfer(run, 0, received.seconds, received.bytes) + kTcpReceiverPad;
  }
  return tag + text::Transfer(run, 0, sent.seconds, sent.bytes) +
         text::UdpLoss(0, sent.lost, sent.packets) + "  sender\n" + tag +
         text::Transfer(run, 0, received.seconds, received.bytes) +
         text::UdpLoss(received.jitter_seconds, received.lost, received.packets) + "  receiver\n";
}

// Among several streams, the one that moved least against an even share, as its receiver
// counted (the sender's count when the receiver's is unknown): with 1,000 flows on two
// threads, a starved flow shows here and not in the sum.
std::string SlowestLine(const record::RunRecord& run, StreamSet set) {
  EndSum side = SumReceived(run.streams, set);
  if (side.streams == 0) side = SumSent(run.streams, set);
  if (side.streams < 2 || !side.slowest_share) return {};
  return fmt::format("Slowest of {} streams: {} moved {} bytes, {:.2f} of an even share\n",
                     side.streams, side.slowest_id, side.slowest_bytes, *side.slowest_share);
}

std::string StreamSummary(const record::RunRecord& run) {
  const bool bidir = IsBidirectional(run);
  std::string out = text::kSeparator;
  out += fmt::format("[ ID]{} Interval           Transfer     Bitrate         {}\n",
                     bidir ? "[Role]" : "", IsTcp(run) ? "Retr" : "Jitter    Lost/Total Datagrams");
  for (const record::StreamTotals& s : run.streams) {
    out += IsTcp(run) ? TcpStreamLines(run, s) : UdpStreamLines(run, s);
  }
  if (bidir) {
    out += SumLines(run, StreamSet::kLocalSends);
    out += SumLines(run, StreamSet::kLocalReceives);
    out += SlowestLine(run, StreamSet::kLocalSends);
    out += SlowestLine(run, StreamSet::kLocalReceives);
  } else {
    out += SumLines(run, StreamSet::kAll);
    out += SlowestLine(run, StreamSet::kAll);
  }
  return out;
}

}  // namespace

namespace text {
namespace {

const char* SeverityLabel(record::Severity s) {
  switch (s) {
    case record::Severity::kCritical: return "CRITICAL";
    case record::Severity::kWarning: return "WARNING";
    case record::Severity::kNotice: return "NOTICE";
    case record::Severity::kInfo: return "INFO";
  }
  return "INFO";
}

}  // namespace

std::string FindingLines(const std::vector<record::Finding>& findings) {
  if (findings.empty()) return "No problems found.\n";
  std::vector<const record::Finding*> sorted;
  sorted.reserve(findings.size());
  for (const record::Finding& f : findings) sorted.push_back(&f);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    return static_cast<int>(a->severity) > static_cast<int>(b->severity);
  });
  std::string out = "Findings, most severe first:\n";
  for (const record::Finding* f : sorted) {
    out += fmt::format("  [{}] {} ({})\n", SeverityLabel(f->severity), f->title, f->id);
    for (const std::string& e : f->evidence) out += "      evidence: " + e + "\n";
    if (!f->meaning.empty()) out += "      meaning: " + f->meaning + "\n";
    if (!f->next_step.empty()) out += "      next step: " + f->next_step + "\n";
  }
  return out;
}

}  // namespace text

std::string RenderSummary(const record::RunRecord& run) {
  std::string out;
  if (run.error) out += "error: " + *run.error + "\n";
  if (run.rr) {
    out += text::RrSummary(run);
  } else if (!run.streams.empty()) {
    out += StreamSummary(run);
  }
  if (run.incomplete) {
    out +=
        "(incomplete: the test ended early; these are this end's counts up to then, the other "
        "end's were not exchanged)\n";
  }
  out += "\n" + text::EndpointSection(run, run.local, "Local end");
  if (run.remote.known()) {
    out += text::EndpointSection(run, run.remote.value(), "Remote end");
  } else {
    out += "Remote end: " + UnknownText(run.remote) + "\n";
  }
  out += text::FileLines(run);
  if (!run.rr) {
    out += "\n" + text::DropLadderTable(run);
    const std::string limits = text::StreamLimitLines(run);
    if (!limits.empty()) out += "\n" + limits;
  }
  if (run.under_load) out += "\n" + text::LatencyUnderLoad(run);
  if (run.error) {
    out += "\nNot diagnosed: the test did not complete.\n";
  } else {
    out += "\n" + text::FindingLines(run.findings);
  }
  // --get-server-output, as iperf3 prints it after its own summary.
  if (run.peer.server_output_text) out += "\nServer output:\n" + *run.peer.server_output_text;
  // Besides the fields escaped where they are placed, every other string of the peer's (NIC and
  // driver names, notes, the server's output) is made safe here, newlines kept.
  return TerminalSafeLines(out);
}

}  // namespace nicbench::report
