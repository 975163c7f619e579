// The agent's metrics in the Prometheus text format (version 0.0.4), written here as the
// monitor's are (monitor_report.h says why).
#include <cmath>

#include <fmt/format.h>

#include "report/fleet_report.h"

namespace nicbench::report {
namespace {

std::string Escaped(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out;
}

void Counter(std::string& out, const char* name, const char* help, const std::string& agent,
             uint64_t value) {
  out += fmt::format("# HELP {0} {1}\n# TYPE {0} counter\n{0}{{agent=\"{2}\"}} {3}\n", name, help,
                     agent, value);
}

}  // namespace

std::string RenderAgentPrometheus(const record::AgentMetrics& m) {
  const std::string agent = Escaped(m.agent);
  std::string out;
  Counter(out, "nicbench_agent_claims_total", "Jobs this agent claimed.", agent, m.claims);
  Counter(out, "nicbench_agent_jobs_done_total", "Jobs run and stored.", agent, m.jobs_done);
  Counter(out, "nicbench_agent_jobs_failed_total",
          "Jobs failed: the test failed or its options were refused.", agent, m.jobs_failed);
  Counter(out, "nicbench_agent_jobs_refused_total",
          "Jobs whose test options failed the run's checks (never run).", agent, m.jobs_refused);
  Counter(out, "nicbench_agent_jobs_released_total",
          "Jobs handed back to the queue unfinished because the agent was stopping.", agent,
          m.jobs_released);
  Counter(out, "nicbench_agent_lease_expiries_total",
          "Jobs this agent found with an expired lease and requeued or failed.", agent,
          m.lease_expiries);
  Counter(out, "nicbench_agent_leases_lost_total",
          "Runs of this agent discarded because their lease had expired.", agent, m.leases_lost);
  Counter(out, "nicbench_agent_reconnects_total", "Connections to the database reopened.", agent,
          m.reconnects);
  out += fmt::format(
      "# HELP nicbench_agent_database_up Whether the fleet database answers.\n# TYPE "
      "nicbench_agent_database_up gauge\nnicbench_agent_database_up{{agent=\"{}\"}} {}\n",
      agent, m.database_up ? 1 : 0);
  out +=
      "# HELP nicbench_agent_last_goodput_bits_per_second The last test of each pair this agent "
      "ran: the goodput the receiver counted.\n# TYPE nicbench_agent_last_goodput_bits_per_second "
      "gauge\n";
  for (const record::PairGoodput& p : m.last) {
    if (!p.bits_per_second || !std::isfinite(*p.bits_per_second)) continue;
    out += fmt::format(
        "nicbench_agent_last_goodput_bits_per_second{{sender=\"{}\",receiver=\"{}\"}} {}\n",
        Escaped(p.sender), Escaped(p.receiver), *p.bits_per_second);
  }
  out +=
      "# HELP nicbench_agent_last_test_failed Whether the last test of each pair failed.\n"
      "# TYPE nicbench_agent_last_test_failed gauge\n";
  for (const record::PairGoodput& p : m.last) {
    out += fmt::format("nicbench_agent_last_test_failed{{sender=\"{}\",receiver=\"{}\"}} {}\n",
                       Escaped(p.sender), Escaped(p.receiver), p.failed ? 1 : 0);
  }
  return out;
}

}  // namespace nicbench::report
