// The table of derived figures (figure_table.h): one row per figure, its computation beside it.
#include "analysis/figure_table.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "analysis/unknown_figure.h"
#include "base/check.h"
#include "record/json.h"

namespace nicbench::analysis {
namespace {

using record::Measured;
using record::Missing;
using E = FigureEnd;
using G = FigureGroup;
using In = FigureInputs;

// Both directions' goodput summed (one direction's when the other carried nothing): unknown
// only when neither is known, with the client->server reason.
Measured<double> SumOfDirections(const Measured<double>& cs, const Measured<double>& sc) {
  if (!cs.known()) return sc.known() ? sc : cs;
  return sc.known() ? cs.value() + sc.value() : cs.value();
}

// Request/response figures of a bulk run, and latency-under-load figures of a run without
// probes, say why rather than merely "absent".
Measured<double> OnlyRr(const In& in, const Measured<double>& v) {
  if (!in.run.spec.rr.enabled())
    return UnknownFigure(Missing::kAbsent, "not a request/response test");
  return v;
}
Measured<double> OnlyUnderLoad(const In& in, const Measured<double>& v) {
  if (!in.run.under_load) return UnknownFigure(Missing::kAbsent, "not an --under-load run");
  return v;
}

Measured<double> ProbeSharePercent(const In& in) {
  const Measured<double>& share = in.under_load.probe_share;
  return OnlyUnderLoad(in, share.known() ? Measured<double>(share.value() * 100.0) : share);
}

Measured<double> LoadedGoodput(const In& in) {
  const RunFigures& f = in.figures;
  return OnlyUnderLoad(in, SumOfDirections(f.client_to_server.receiver_bits_per_second,
                                           f.server_to_client.receiver_bits_per_second));
}

// The caveat of one end's packet-work figures: the other traffic its namespace carried.
std::string ClientPolluted(const In& in) { return in.figures.client.polluted; }
std::string ServerPolluted(const In& in) { return in.figures.server.polluted; }

// Each end's CPU per GB broken down (cost.h), and its host's idle share: the units a change of
// offloads, coalescing or interrupt placement shows in.
std::vector<Figure> CpuRows() {
  auto row = [](const char* key, const char* label, const char* unit, E end, bool per_byte,
                Measured<double> (*compute)(const In&), bool packet_work) {
    Figure f{key, label, unit, end, G::kBulk, true, per_byte, compute};
    if (packet_work) f.caveat = end == E::kClient ? ClientPolluted : ServerPolluted;
    return f;
  };
  const char* s = "CPU-s/GB";
  return {
      row(
          "client_process_user_seconds_per_gigabyte", "nicbench user per GB", s, E::kClient, true,
          [](const In& in) { return in.figures.client.process_user_seconds_per_gigabyte; }, false),
      row(
          "client_process_system_seconds_per_gigabyte", "nicbench system per GB", s, E::kClient,
          true, [](const In& in) { return in.figures.client.process_system_seconds_per_gigabyte; },
          false),
      row(
          "client_softirq_seconds_per_gigabyte", "softirq per GB", s, E::kClient, true,
          [](const In& in) { return in.figures.client.softirq_seconds_per_gigabyte; }, true),
      row(
          "client_irq_seconds_per_gigabyte", "irq per GB", s, E::kClient, true,
          [](const In& in) { return in.figures.client.irq_seconds_per_gigabyte; }, true),
      row(
          "client_host_idle_percent", "host idle", "%", E::kClient, false,
          [](const In& in) { return in.figures.client.host_idle_percent; }, false),
      row(
          "server_process_user_seconds_per_gigabyte", "nicbench user per GB", s, E::kServer, true,
          [](const In& in) { return in.figures.server.process_user_seconds_per_gigabyte; }, false),
      row(
          "server_process_system_seconds_per_gigabyte", "nicbench system per GB", s, E::kServer,
          true, [](const In& in) { return in.figures.server.process_system_seconds_per_gigabyte; },
          false),
      row(
          "server_softirq_seconds_per_gigabyte", "softirq per GB", s, E::kServer, true,
          [](const In& in) { return in.figures.server.softirq_seconds_per_gigabyte; }, true),
      row(
          "server_irq_seconds_per_gigabyte", "irq per GB", s, E::kServer, true,
          [](const In& in) { return in.figures.server.irq_seconds_per_gigabyte; }, true),
      row(
          "server_host_idle_percent", "host idle", "%", E::kServer, false,
          [](const In& in) { return in.figures.server.host_idle_percent; }, false),
  };
}

// The rows. Keys are the names every output already used (compare's keys; history's for its
// totals); units are in the key's last word as record/json_schema.h does.
// Bulk transfer (figures.h, cost.h).
std::vector<Figure> BulkRows() {
  return {
      {"sender_bits_per_second", "goodput, both directions (senders)", "bit/s", E::kRun, G::kBulk,
       false, true,
       [](const In& in) {
         return SumOfDirections(in.figures.client_to_server.sender_bits_per_second,
                                in.figures.server_to_client.sender_bits_per_second);
       }},
      {"receiver_bits_per_second", "goodput, both directions (receivers)", "bit/s", E::kRun,
       G::kBulk, false, true,
       [](const In& in) {
         return SumOfDirections(in.figures.client_to_server.receiver_bits_per_second,
                                in.figures.server_to_client.receiver_bits_per_second);
       }},
      {"goodput_client_to_server_bits_per_second", "goodput client->server (receiver)", "bit/s",
       E::kRun, G::kBulk, true, true,
       [](const In& in) { return in.figures.client_to_server.receiver_bits_per_second; }},
      {"goodput_client_to_server_sender_bits_per_second", "goodput client->server (sender)",
       "bit/s", E::kRun, G::kBulk, true, true,
       [](const In& in) { return in.figures.client_to_server.sender_bits_per_second; }},
      {"goodput_server_to_client_bits_per_second", "goodput server->client (receiver)", "bit/s",
       E::kRun, G::kBulk, true, true,
       [](const In& in) { return in.figures.server_to_client.receiver_bits_per_second; }},
      {"goodput_server_to_client_sender_bits_per_second", "goodput server->client (sender)",
       "bit/s", E::kRun, G::kBulk, true, true,
       [](const In& in) { return in.figures.server_to_client.sender_bits_per_second; }},
      {"client_cpu_seconds_per_gigabyte", "CPU per GB", "CPU-s/GB", E::kClient, G::kBulk, true,
       true, [](const In& in) { return in.figures.client.cpu_seconds_per_gigabyte; },
       ClientPolluted},
      {"server_cpu_seconds_per_gigabyte", "CPU per GB", "CPU-s/GB", E::kServer, G::kBulk, true,
       true, [](const In& in) { return in.figures.server.cpu_seconds_per_gigabyte; },
       ServerPolluted},
      {"client_nic_interrupts_per_gigabyte", "NIC interrupts per GB", "irq/GB", E::kClient,
       G::kBulk, true, true,
       [](const In& in) { return in.figures.client.nic_interrupts_per_gigabyte; }, ClientPolluted},
      {"server_nic_interrupts_per_gigabyte", "NIC interrupts per GB", "irq/GB", E::kServer,
       G::kBulk, true, true,
       [](const In& in) { return in.figures.server.nic_interrupts_per_gigabyte; }, ServerPolluted},
      {"retransmits", "retransmits", "segments", E::kBoth, G::kBulk, true, false,
       [](const In& in) { return in.figures.retransmits; }},
      {"mean_rtt_us", "mean RTT", "us", E::kBoth, G::kBulk, true, false,
       [](const In& in) { return in.figures.mean_rtt_us; }},
  };
}

// Request/response (rr_figures.cc, docs/rr.md).
std::vector<Figure> RrRows() {
  return {
      {"rr_transactions_per_second", "transactions/s", "tx/s", E::kRun, G::kRr, true, false,
       [](const In& in) { return OnlyRr(in, in.figures.rr.transactions_per_second); }},
      {"rr_latency_p50_us", "latency p50", "us", E::kRun, G::kRr, true, false,
       [](const In& in) { return OnlyRr(in, in.figures.rr.latency_p50_us); }},
      {"rr_latency_p90_us", "latency p90", "us", E::kRun, G::kRr, true, false,
       [](const In& in) { return OnlyRr(in, in.figures.rr.latency_p90_us); }},
      {"rr_latency_p99_us", "latency p99", "us", E::kRun, G::kRr, true, false,
       [](const In& in) { return OnlyRr(in, in.figures.rr.latency_p99_us); }},
      {"rr_latency_p99_9_us", "latency p99.9", "us", E::kRun, G::kRr, true, false,
       [](const In& in) { return OnlyRr(in, in.figures.rr.latency_p999_us); }},
      {"rr_latency_max_us", "latency max", "us", E::kRun, G::kRr, true, false,
       [](const In& in) { return OnlyRr(in, in.figures.rr.latency_max_us); }},
      {"rr_latency_mean_us", "latency mean", "us", E::kRun, G::kRr, true, false,
       [](const In& in) { return OnlyRr(in, in.figures.rr.latency_mean_us); }},
      {"rr_connect_p50_us", "connect p50", "us", E::kRun, G::kRr, true, false,
       [](const In& in) { return OnlyRr(in, in.figures.rr.connect_p50_us); }},
      {"rr_connect_p99_us", "connect p99", "us", E::kRun, G::kRr, true, false,
       [](const In& in) { return OnlyRr(in, in.figures.rr.connect_p99_us); }},
      {"rr_lost", "lost transactions", "transactions", E::kRun, G::kRr, true, false,
       [](const In& in) { return OnlyRr(in, in.figures.rr.lost); }},
      {"rr_late", "late responses", "transactions", E::kRun, G::kRr, true, false,
       [](const In& in) { return OnlyRr(in, in.figures.rr.late); }},
      {"rr_client_process_us_per_transaction", "CPU per transaction (process)", "us/tx", E::kClient,
       G::kRr, true, false,
       [](const In& in) { return OnlyRr(in, in.figures.rr.client_process_us_per_transaction); }},
      {"rr_server_process_us_per_transaction", "CPU per transaction (process)", "us/tx", E::kServer,
       G::kRr, true, false,
       [](const In& in) { return OnlyRr(in, in.figures.rr.server_process_us_per_transaction); }},
      {"rr_client_host_us_per_transaction", "CPU per transaction (whole host)", "us/tx", E::kClient,
       G::kRr, true, false,
       [](const In& in) { return OnlyRr(in, in.figures.rr.client_host_us_per_transaction); }},
      {"rr_server_host_us_per_transaction", "CPU per transaction (whole host)", "us/tx", E::kServer,
       G::kRr, true, false,
       [](const In& in) { return OnlyRr(in, in.figures.rr.server_host_us_per_transaction); }},
  };
}

// Latency under load (under_load.h, docs/latency.md): the kept-connection probe's latency, the
// responsiveness, the load's goodput beside the probes and what the probes cost.
std::vector<Figure> UnderLoadRows() {
  return {
      {"under_load_idle_p50_ms", "idle latency p50", "ms", E::kRun, G::kUnderLoad, true, false,
       [](const In& in) { return OnlyUnderLoad(in, in.under_load.idle_kept.p50_ms); }},
      {"under_load_idle_p99_ms", "idle latency p99", "ms", E::kRun, G::kUnderLoad, true, false,
       [](const In& in) { return OnlyUnderLoad(in, in.under_load.idle_kept.p99_ms); }},
      {"under_load_loaded_p50_ms", "loaded latency p50", "ms", E::kRun, G::kUnderLoad, true, false,
       [](const In& in) { return OnlyUnderLoad(in, in.under_load.loaded_kept.p50_ms); }},
      {"under_load_loaded_p90_ms", "loaded latency p90", "ms", E::kRun, G::kUnderLoad, true, false,
       [](const In& in) { return OnlyUnderLoad(in, in.under_load.loaded_kept.p90_ms); }},
      {"under_load_loaded_p99_ms", "loaded latency p99", "ms", E::kRun, G::kUnderLoad, true, false,
       [](const In& in) { return OnlyUnderLoad(in, in.under_load.loaded_kept.p99_ms); }},
      {"under_load_loaded_max_ms", "loaded latency max", "ms", E::kRun, G::kUnderLoad, true, false,
       [](const In& in) { return OnlyUnderLoad(in, in.under_load.loaded_kept.max_ms); }},
      {"under_load_added_ms", "latency added by the load", "ms", E::kRun, G::kUnderLoad, true,
       false, [](const In& in) { return OnlyUnderLoad(in, in.under_load.added_ms); }},
      {"under_load_loaded_rtt_ms", "load's TCP_INFO RTT", "ms", E::kRun, G::kUnderLoad, true, false,
       [](const In& in) { return OnlyUnderLoad(in, in.under_load.loaded_rtt_ms); }},
      {"under_load_idle_rpm", "responsiveness idle", "RPM", E::kRun, G::kUnderLoad, true, false,
       [](const In& in) { return OnlyUnderLoad(in, in.under_load.idle.rpm); }},
      {"under_load_loaded_rpm", "responsiveness loaded", "RPM", E::kRun, G::kUnderLoad, true, false,
       [](const In& in) { return OnlyUnderLoad(in, in.under_load.loaded.rpm); }},
      {"under_load_goodput_bits_per_second", "goodput while probed (receivers)", "bit/s", E::kRun,
       G::kUnderLoad, true, false, LoadedGoodput},
      {"under_load_probe_share_percent", "probes' share of the bytes", "%", E::kRun, G::kUnderLoad,
       true, false, ProbeSharePercent},
      // One-way delay (under_load.h OneWayFigures): up = client to server.
      {"under_load_loaded_up_p50_ms", "loaded one-way delay up p50", "ms", E::kRun, G::kUnderLoad,
       true, false,
       [](const In& in) { return OnlyUnderLoad(in, in.under_load.one_way.loaded_up.p50_ms); }},
      {"under_load_loaded_down_p50_ms", "loaded one-way delay down p50", "ms", E::kRun,
       G::kUnderLoad, true, false,
       [](const In& in) { return OnlyUnderLoad(in, in.under_load.one_way.loaded_down.p50_ms); }},
      {"under_load_added_up_ms", "one-way delay added up", "ms", E::kRun, G::kUnderLoad, true,
       false, [](const In& in) { return OnlyUnderLoad(in, in.under_load.one_way.added_up_ms); }},
      {"under_load_added_down_ms", "one-way delay added down", "ms", E::kRun, G::kUnderLoad, true,
       false, [](const In& in) { return OnlyUnderLoad(in, in.under_load.one_way.added_down_ms); }},
      {"under_load_added_one_way_bound_ms", "one-way added delay's clock bound", "ms", E::kRun,
       G::kUnderLoad, false, false,
       [](const In& in) { return OnlyUnderLoad(in, in.under_load.one_way.added_bound_ms); }},
  };
}

std::vector<Figure> MakeTable() {
  std::vector<Figure> table = BulkRows();
  for (auto rows : {CpuRows, RrRows, UnderLoadRows}) {
    for (const Figure& f : rows()) table.push_back(f);
  }
  return table;
}

size_t IndexOf(const Figure& figure) {
  const std::vector<Figure>& table = Figures();
  NB_CHECK(&figure >= table.data() && &figure < table.data() + table.size());
  return static_cast<size_t>(&figure - table.data());
}

}  // namespace

const char* FigureEndName(FigureEnd end) {
  switch (end) {
    case FigureEnd::kClient: return "client";
    case FigureEnd::kServer: return "server";
    case FigureEnd::kBoth: return "both";
    case FigureEnd::kRun: break;
  }
  return "run";
}

const char* FigureGroupName(FigureGroup group) {
  switch (group) {
    case FigureGroup::kRr: return "rr";
    case FigureGroup::kUnderLoad: return "under_load";
    case FigureGroup::kBulk: break;
  }
  return "";
}

FigureInputs::FigureInputs(const record::RunRecord& r) : run(r), figures(ComputeFigures(r)) {
  if (r.under_load) under_load = ComputeUnderLoad(r);
}

const std::vector<Figure>& Figures() {
  static const std::vector<Figure> kTable = MakeTable();
  return kTable;
}

const Figure* FindFigure(std::string_view key) {
  const std::vector<Figure>& table = Figures();
  const auto it =
      std::find_if(table.begin(), table.end(), [&](const Figure& f) { return f.key == key; });
  return it == table.end() ? nullptr : &*it;
}

FigureValues::FigureValues(std::string_view why)
    : values_(Figures().size(), UnknownFigure(Missing::kAbsent, why)), caveats_(Figures().size()) {}

const std::string& FigureValues::Caveat(const Figure& figure) const {
  return caveats_[IndexOf(figure)];
}
void FigureValues::SetCaveat(const Figure& figure, std::string caveat) {
  caveats_[IndexOf(figure)] = std::move(caveat);
}

const Measured<double>& FigureValues::operator[](const Figure& figure) const {
  return values_[IndexOf(figure)];
}
Measured<double>& FigureValues::operator[](const Figure& figure) {
  return values_[IndexOf(figure)];
}

const Measured<double>& FigureValues::Get(std::string_view key) const {
  const Figure* figure = FindFigure(key);
  NB_CHECK(figure != nullptr);
  return (*this)[*figure];
}

Measured<double>& FigureValues::Get(std::string_view key) {
  const Figure* figure = FindFigure(key);
  NB_CHECK(figure != nullptr);
  return (*this)[*figure];
}

bool FigureValues::AnyKnown(FigureGroup group) const {
  for (const Figure& f : Figures()) {
    if (f.group == group && (*this)[f].known()) return true;
  }
  return false;
}

FigureValues ComputeFigureValues(const record::RunRecord& run) {
  const FigureInputs inputs(run);
  FigureValues out;
  for (const Figure& f : Figures()) {
    out[f] = f.compute(inputs);
    if (f.caveat != nullptr && out[f].known()) out.SetCaveat(f, f.caveat(inputs));
  }
  return out;
}

nlohmann::json FigureValuesToJson(const FigureValues& values) {
  nlohmann::json doc = nlohmann::json::object();
  nlohmann::json unknown = nlohmann::json::object();
  nlohmann::json caveats = nlohmann::json::object();
  for (const Figure& f : Figures()) {
    const Measured<double>& v = values[f];
    if (!values.Caveat(f).empty()) caveats[f.key] = values.Caveat(f);
    // A non-finite value can only come from a bug upstream: written as unknown, never NaN.
    if (v.known() && std::isfinite(v.value())) {
      doc[f.key] = v.value();
      continue;
    }
    doc[f.key] = nullptr;
    unknown[f.key] = v.known() ? std::string("error: not a finite number")
                               : record::UnknownReason(v.why(), v.detail());
  }
  if (!unknown.empty()) doc["unknown"] = std::move(unknown);
  if (!caveats.empty()) doc["caveats"] = std::move(caveats);
  return doc;
}

namespace {

Measured<double> ReadOne(const nlohmann::json& doc, const char* key) {
  const auto it = doc.find(key);
  if (it == doc.end())
    return UnknownFigure(Missing::kAbsent, "not computed when the run was stored");
  if (it->is_number()) return it->get<double>();
  const auto unknown = doc.find("unknown");
  if (unknown != doc.end() && unknown->is_object()) {
    const auto reason = unknown->find(key);
    if (reason != unknown->end() && reason->is_string()) {
      auto [why, detail] = record::ParseUnknownReason(reason->get<std::string>());
      return UnknownFigure(why, detail);
    }
  }
  return UnknownFigure(Missing::kError, "no reason stored");
}

}  // namespace

FigureValues FigureValuesFromJson(const nlohmann::json& doc) {
  FigureValues out("not computed when the run was stored");
  if (!doc.is_object()) return out;
  const auto caveats = doc.find("caveats");
  for (const Figure& f : Figures()) {
    out[f] = ReadOne(doc, f.key);
    if (caveats == doc.end() || !caveats->is_object()) continue;
    const auto caveat = caveats->find(f.key);
    if (caveat != caveats->end() && caveat->is_string() && out[f].known()) {
      out.SetCaveat(f, caveat->get<std::string>());
    }
  }
  return out;
}

}  // namespace nicbench::analysis
