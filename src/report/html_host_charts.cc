// The HTML report's per-end charts: CPU per core by kind, interrupt lines, softnet, TCP.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/figures.h"
#include "analysis/host_figures.h"
#include "record/json.h"
#include "report/html_chart.h"
#include "report/html_model.h"

namespace nicbench::report::html {
namespace {

struct Kind {
  const char* label;
  double (*get)(const record::CpuShare&);
};
// The kinds of the picture; nice counts as user (both are the process's own work).
const Kind kKinds[] = {
    {"user", [](const record::CpuShare& c) { return c.user + c.nice; }},
    {"system", [](const record::CpuShare& c) { return c.system; }},
    {"irq", [](const record::CpuShare& c) { return c.irq; }},
    {"softirq", [](const record::CpuShare& c) { return c.softirq; }},
    {"steal", [](const record::CpuShare& c) { return c.steal; }},
};

Json CoreChart(const std::string& end, const std::vector<record::HostInterval>& samples, int cpu) {
  Json c = Chart(fmt::format("cpu-{}-{}", end, cpu), fmt::format("{} CPU {}", end, cpu), "%", true);
  c["max"] = 100;  // the kinds of one interval add up to 100 (rounding may pass it by a hair)
  c["x"] = TimeAxis(samples);
  for (const Kind& kind : kKinds) {
    Json s = Series(kind.label, "kinds", false, true);
    for (const auto& sample : samples) {
      const record::CpuShare* share = nullptr;
      if (const auto* cpus = sample.cpus.get()) {
        for (const auto& one : *cpus) {
          if (one.cpu == cpu) share = &one;
        }
      }
      if (share == nullptr) {
        s["data"].push_back(nullptr);
      } else {
        s["data"].push_back(Round(kind.get(*share), 1));
      }
    }
    c["series"].push_back(std::move(s));
  }
  return c;
}

std::string UnknownNote(const std::string& end, const char* what,
                        const std::vector<record::HostInterval>& samples) {
  if (samples.empty()) return fmt::format("{}: no {} samples (sampling was off)", end, what);
  return "";
}

Json IrqChart(const std::string& end, const std::vector<record::HostInterval>& samples) {
  Json c = Chart("irq-" + end, end + " interrupts per line", "interrupts/s", false);
  c["x"] = TimeAxis(samples);
  for (const analysis::IrqLineTotal& line : analysis::TopIrqLines(samples, kHtmlMaxIrqLines)) {
    std::string label = fmt::format("{} {}", line.irq, line.name);
    if (line.nic)
      label += line.nic_queue.empty() ? " (NIC)" : " (NIC queue " + line.nic_queue + ")";
    Json s = Series(label, label, !line.nic, false);
    for (const auto& sample : samples) {
      double rate = 0;
      if (const auto* irqs = sample.irqs.get()) {
        for (const auto& r : *irqs) {
          if (r.irq == line.irq) rate = r.per_second;
        }
      } else {
        s["data"].push_back(nullptr);
        continue;
      }
      s["data"].push_back(Round(rate, 0));
    }
    c["series"].push_back(std::move(s));
  }
  return c;
}

Json SoftnetChart(const std::string& end, const std::vector<record::HostInterval>& samples) {
  Json c = Chart("softnet-" + end, end + " softnet drops and squeezes", "per interval", false);
  c["x"] = TimeAxis(samples);
  Json dropped = Series("dropped", "dropped", false, false);
  Json squeezed = Series("time squeezes", "squeezes", true, false);
  for (const auto& sample : samples) {
    auto totals = analysis::Softnet(sample);
    dropped["data"].push_back(totals ? Json(totals->dropped) : Json(nullptr));
    squeezed["data"].push_back(totals ? Json(totals->time_squeeze) : Json(nullptr));
  }
  c["series"].push_back(std::move(dropped));
  c["series"].push_back(std::move(squeezed));
  return c;
}

// One TCP figure of every stream this end sends on, per interval.
Json TcpChart(const std::string& id, const std::string& title, const std::string& unit,
              const std::vector<record::IntervalRecord>& intervals,
              double (*get)(const record::StreamInterval&)) {
  Json c = Chart(id, title, unit, false);
  c["x"] = TimeAxis(intervals);
  std::map<int, Json> by_id;
  for (size_t i = 0; i < intervals.size(); ++i) {
    for (const auto& st : intervals[i].streams) {
      if (!st.sender || !st.tcp_info.known()) continue;
      auto [it, fresh] = by_id.try_emplace(st.id);
      if (fresh) {
        it->second = Series(fmt::format("stream {}", st.id), "", false, false);
        for (size_t k = 0; k < intervals.size(); ++k) it->second["data"].push_back(nullptr);
      }
      it->second["data"][i] = Round(get(st), 3);
    }
  }
  for (auto& [id_, s] : by_id) c["series"].push_back(std::move(s));
  return c;
}

}  // namespace

Json CpuSection(const record::RunRecord& run) {
  Json charts = Json::array();
  std::string note;
  for (const auto& [end, rec] : Ends(run)) {
    auto cores = analysis::BusiestCores(analysis::CountedSamples(run, *rec), kHtmlMaxCores);
    std::sort(cores.begin(), cores.end(),
              [](const auto& a, const auto& b) { return a.cpu < b.cpu; });
    for (const auto& core : cores) charts.push_back(CoreChart(end, rec->samples, core.cpu));
    note += UnknownNote(end, "CPU", rec->samples);
    const auto* first = rec->samples.empty() ? nullptr : rec->samples[0].cpus.get();
    if (first != nullptr && first->size() > cores.size()) {
      note += fmt::format("{}: the {} busiest of {} CPUs. ", end, cores.size(), first->size());
    }
  }
  return Json{
      {"id", "cpu"},
      {"title", "CPU per core"},
      {"note", note.empty() ? "Share of each interval by kind of work; one chart per core." : note},
      {"charts", std::move(charts)}};
}

Json IrqSection(const record::RunRecord& run) {
  Json charts = Json::array();
  for (const auto& [end, rec] : Ends(run)) {
    if (rec->samples.empty()) continue;
    charts.push_back(IrqChart(end, rec->samples));
    charts.push_back(SoftnetChart(end, rec->samples));
  }
  return Json{{"id", "interrupts"},
              {"title", "Interrupts and softnet"},
              {"note",
               "The busiest interrupt lines of each end (solid: the NIC's queues), and "
               "packets the softnet backlog dropped or cut short."},
              {"charts", std::move(charts)}};
}

Json TcpSection(const record::RunRecord& run) {
  Json charts = Json::array();
  for (const auto& [end, rec] : Ends(run)) {
    const auto& iv = rec->intervals.empty() && rec == &run.local ? run.intervals : rec->intervals;
    bool sends = false;
    for (const auto& i : iv) {
      for (const auto& st : i.streams) sends = sends || (st.sender && st.tcp_info.known());
    }
    if (!sends) continue;
    charts.push_back(TcpChart(
        "tcp-rtt-" + end, end + " sends: RTT", "ms", iv,
        [](const record::StreamInterval& s) { return s.tcp_info.value().rtt_us / 1000.0; }));
    charts.push_back(TcpChart("tcp-cwnd-" + end, end + " sends: congestion window", "KiB", iv,
                              [](const record::StreamInterval& s) {
                                const auto& t = s.tcp_info.value();
                                return t.snd_cwnd * static_cast<double>(t.snd_mss) / 1024.0;
                              }));
    charts.push_back(TcpChart(
        "tcp-retrans-" + end, end + " sends: retransmits", "segments", iv,
        [](const record::StreamInterval& s) { return static_cast<double>(s.retransmits); }));
  }
  return Json{{"id", "tcp"},
              {"title", "TCP over time"},
              {"note",
               "Each sending stream's smoothed RTT, congestion window and retransmitted "
               "segments per interval, from TCP_INFO of the sending end."},
              {"charts", std::move(charts)}};
}

}  // namespace nicbench::report::html
