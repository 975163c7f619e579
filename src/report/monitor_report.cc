#include "report/monitor_report.h"

#include <fmt/format.h>

#include <cmath>
#include <ctime>

#include <nlohmann/json.hpp>

#include "report/terminal_text.h"

namespace nicbench::report {
namespace {

std::string UtcTime(double unix_seconds, const char* between) {
  const std::time_t t = static_cast<std::time_t>(std::floor(unix_seconds));
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}{}{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, between, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

// A label value as the text format wants it: backslash, double quote and newline escaped.
std::string Label(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// A sample value: integers as integers, others with enough digits to round-trip.
std::string Value(double v) {
  if (!std::isfinite(v)) return "0";  // never happens from the monitor's own figures
  return fmt::format("{}", v);
}

void Family(std::string& out, const char* name, const char* type, const char* help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

void Host(std::string& out, const record::MonitorMetrics& m) {
  Family(out, "nicbench_monitor_cpu_seconds_total", "counter",
         "CPU time of this host by CPU and mode (from /proc/stat).");
  for (const auto& [cpu, modes] : m.cpu_seconds) {
    for (const auto& [mode, seconds] : modes) {
      out += fmt::format("nicbench_monitor_cpu_seconds_total{{cpu=\"{}\",mode=\"{}\"}} {}\n",
                         Label(cpu), Label(mode), Value(seconds));
    }
  }
  Family(out, "nicbench_monitor_interrupts_total", "counter",
         "Interrupts of this host by line (from /proc/interrupts).");
  for (const auto& [line, count] : m.interrupts) {
    const size_t colon = line.find(':');
    out += fmt::format("nicbench_monitor_interrupts_total{{irq=\"{}\",name=\"{}\"}} {}\n",
                       Label(line.substr(0, colon)),
                       Label(colon == std::string::npos ? "" : line.substr(colon + 1)), count);
  }
  Family(out, "nicbench_monitor_softnet_packets_total", "counter",
         "Packets the network softirq handled, dropped at the backlog, and time squeezes "
         "(from /proc/net/softnet_stat).");
  out += fmt::format(
      "nicbench_monitor_softnet_packets_total{{outcome=\"processed\"}} {}\n"
      "nicbench_monitor_softnet_packets_total{{outcome=\"dropped\"}} {}\n",
      m.softnet_processed, m.softnet_dropped);
  Family(out, "nicbench_monitor_softnet_time_squeezes_total", "counter",
         "Times the network softirq ran out of budget with work left.");
  out += fmt::format("nicbench_monitor_softnet_time_squeezes_total {}\n", m.softnet_time_squeezed);
  Family(out, "nicbench_monitor_nic_statistics_total", "counter",
         "The watched NIC's /sys/class/net/IF/statistics counters since the monitor started.");
  for (const auto& [name, total] : m.nic_counters) {
    out +=
        fmt::format("nicbench_monitor_nic_statistics_total{{device=\"{}\",statistic=\"{}\"}} {}\n",
                    Label(m.nic), Label(name), total);
  }
}

void Tests(std::string& out, const record::MonitorMetrics& m) {
  const std::string peer = Label(m.peer);
  Family(out, "nicbench_monitor_goodput_bytes_per_second", "gauge",
         "Goodput of the latest periodic test by direction.");
  for (const auto& [direction, bits] : m.goodput_bits_per_second) {
    out += fmt::format(
        "nicbench_monitor_goodput_bytes_per_second{{peer=\"{}\",direction=\"{}\"}} {}\n", peer,
        Label(direction), Value(bits / 8));
  }
  Family(out, "nicbench_monitor_tests_total", "counter", "Periodic tests run, by outcome.");
  out += fmt::format(
      "nicbench_monitor_tests_total{{peer=\"{}\",outcome=\"ok\"}} {}\n"
      "nicbench_monitor_tests_total{{peer=\"{}\",outcome=\"failed\"}} {}\n",
      peer, m.tests - m.tests_failed, peer, m.tests_failed);
  Family(out, "nicbench_monitor_probe_latency_seconds", "histogram",
         "Latency probes between the tests: request/response time, or TCP connect time.");
  for (size_t i = 0; i < m.latency_bounds_seconds.size(); ++i) {
    out +=
        fmt::format("nicbench_monitor_probe_latency_seconds_bucket{{peer=\"{}\",le=\"{}\"}} {}\n",
                    peer, Value(m.latency_bounds_seconds[i]), m.latency_buckets[i]);
  }
  out += fmt::format(
      "nicbench_monitor_probe_latency_seconds_bucket{{peer=\"{}\",le=\"+Inf\"}} {}\n"
      "nicbench_monitor_probe_latency_seconds_sum{{peer=\"{}\"}} {}\n"
      "nicbench_monitor_probe_latency_seconds_count{{peer=\"{}\"}} {}\n",
      peer, m.latency_count, peer, Value(m.latency_sum_seconds), peer, m.latency_count);
}

void Events(std::string& out, const record::MonitorMetrics& m) {
  Family(out, "nicbench_monitor_open_events", "gauge", "Events open now, by kind.");
  for (const auto& [kind, n] : m.open_events) {
    out += fmt::format("nicbench_monitor_open_events{{kind=\"{}\"}} {}\n", Label(kind), n);
  }
  Family(out, "nicbench_monitor_events_opened_total", "counter", "Events opened.");
  out += fmt::format("nicbench_monitor_events_opened_total {}\n", m.events_opened);
  Family(out, "nicbench_monitor_samples_total", "counter", "Host samples taken.");
  out += fmt::format("nicbench_monitor_samples_total {}\n", Value(m.samples));
  Family(out, "nicbench_monitor_peer_samples_total", "counter",
         "Host samples of a nicbench peer received with the latency probes.");
  out += fmt::format("nicbench_monitor_peer_samples_total{{peer=\"{}\"}} {}\n", Label(m.peer),
                     m.peer_samples);
}

}  // namespace

std::string RenderEventJson(const record::MonitorEvent& e) {
  nlohmann::ordered_json j;
  j["type"] = "event";
  j["monitor"] = e.monitor;
  j["id"] = e.id;
  j["kind"] = std::string(record::EventKindName(e.kind));
  j["state"] = e.resolved ? "resolved" : "opened";
  j["subject"] = e.subject;
  j["time"] = UtcTime(e.at_unix, "T");
  j["time_unix"] = e.at_unix;
  j["opened_unix"] = e.opened_unix;
  j["summary"] = e.summary;
  j["evidence"] = e.evidence;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string RenderEventText(const record::MonitorEvent& e) {
  std::string out = fmt::format("{} {} #{} {} {}: {}", UtcTime(e.at_unix, " "),
                                e.resolved ? "resolved" : "opened", e.id,
                                record::EventKindName(e.kind), e.subject, e.summary);
  if (e.resolved) out += fmt::format(" (after {:.0f} s)", e.at_unix - e.opened_unix);
  out = TerminalSafe(out) + "\n";
  if (e.resolved) return out;
  for (const std::string& line : e.evidence) out += "    " + TerminalSafe(line) + "\n";
  return out;
}

std::string RenderPrometheus(const record::MonitorMetrics& metrics) {
  std::string out;
  Tests(out, metrics);
  Host(out, metrics);
  Events(out, metrics);
  return out;
}

}  // namespace nicbench::report
