// -V's lines after the summary, in iperf3's words.
#include <fmt/format.h>

#include "report/text_report.h"

namespace nicbench::report {

std::string RenderVerboseSummary(const record::RunRecord& run) {
  const record::Measured<record::CpuUtilization>& remote =
      run.remote.known() ? run.remote.value().cpu : run.peer.cpu;
  auto cpu = [](const record::Measured<record::CpuUtilization>& m) {
    if (!m.known()) return std::string("unknown");
    const record::CpuUtilization& c = m.value();
    return fmt::format("{:.1f}% ({:.1f}%u/{:.1f}%s)", c.total_percent, c.user_percent,
                       c.system_percent);
  };
  // iperf3's words: the client is the sender unless -R, the server the other way round; with
  // --bidir both ends send, and iperf3 names them as in a forward test.
  const bool local_sends = (run.spec.direction == record::Direction::kReverse) ==
                           (run.local.role == record::Role::kServer);
  std::string out = fmt::format("CPU Utilization: local/{} {}, remote/{} {}\n",
                                local_sends ? "sender" : "receiver", cpu(run.local.cpu),
                                local_sends ? "receiver" : "sender", cpu(remote));
  if (run.spec.transport == record::Transport::kTcp) {
    const std::string peer =
        run.remote.known() ? run.remote.value().congestion_used : run.peer.congestion_used;
    out += fmt::format("snd_tcp_congestion {}\nrcv_tcp_congestion {}\n",
                       local_sends ? run.local.congestion_used : peer,
                       local_sends ? peer : run.local.congestion_used);
  }
  return out;
}

}  // namespace nicbench::report
