#include "store/event_rows.h"

#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace nicbench::store {
namespace {

record::EventKind KindNamed(const std::string& name) {
  for (record::EventKind kind : record::kEventKinds) {
    if (record::EventKindName(kind) == name) return kind;
  }
  return record::EventKind::kDegraded;  // a kind of a newer nicbench: read as the first
}

}  // namespace

Result<int64_t> InsertEvent(Connection& c, const record::MonitorEvent& e) {
  auto rows = c.Query(
      "INSERT INTO monitor_events (monitor, event_id, kind, state, subject, time_secs, "
      "opened_secs, summary, evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
      {e.monitor, static_cast<int64_t>(e.id), std::string(record::EventKindName(e.kind)),
       std::string(e.resolved ? "resolved" : "opened"), e.subject, e.at_unix, e.opened_unix,
       e.summary,
       nlohmann::json(e.evidence).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)});
  if (!rows) return tl::unexpected(rows.error());
  return AsInt(rows->at(0).at(0));
}

Result<std::vector<record::MonitorEvent>> SelectEvents(Connection& c, std::string_view monitor) {
  auto rows = c.Query(
      "SELECT monitor, event_id, kind, state, subject, time_secs, opened_secs, summary, evidence "
      "FROM monitor_events WHERE monitor = ? ORDER BY id",
      {std::string(monitor)});
  if (!rows) return tl::unexpected(rows.error());
  std::vector<record::MonitorEvent> events;
  for (const SqlRow& r : *rows) {
    record::MonitorEvent e;
    e.monitor = AsText(r[0]);
    e.id = static_cast<uint64_t>(AsInt(r[1]));
    e.kind = KindNamed(AsText(r[2]));
    e.resolved = AsText(r[3]) == "resolved";
    e.subject = AsText(r[4]);
    e.at_unix = AsDouble(r[5]);
    e.opened_unix = AsDouble(r[6]);
    e.summary = AsText(r[7]);
    auto evidence = nlohmann::json::parse(AsText(r[8]), nullptr, false);
    if (evidence.is_array()) {
      for (const auto& line : evidence) {
        if (line.is_string()) e.evidence.push_back(line.get<std::string>());
      }
    }
    events.push_back(std::move(e));
  }
  return events;
}

}  // namespace nicbench::store
