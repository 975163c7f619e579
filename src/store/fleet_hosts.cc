// The fleet's hosts and meshes (fleet_hosts, fleet_meshes; docs/fleet.md).
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "store/fleet_rows.h"

namespace nicbench::store::fleet {
namespace {

std::string Json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json Parse(const std::string& text) {
  auto doc = nlohmann::json::parse(text, nullptr, false);
  return doc.is_discarded() ? nlohmann::json() : doc;
}

nlohmann::json PairsJson(const MeshSpec& spec) {
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& [from, to] : spec.pairs) pairs.push_back({from, to});
  return pairs;
}

// The stored definition: what was given plus what the queue reads (hosts, pairs, test).
nlohmann::json StoredDefinition(const MeshSpec& spec) {
  nlohmann::json doc = spec.definition.is_object() ? spec.definition : nlohmann::json::object();
  doc["hosts"] = spec.hosts;
  doc["pairs"] = PairsJson(spec);
  doc["test"] = spec.test;
  doc["every_seconds"] = spec.every_secs;
  return doc;
}

MeshSpec SpecFromDefinition(const std::string& name, const std::string& text) {
  MeshSpec spec;
  spec.name = name;
  spec.definition = Parse(text);
  const nlohmann::json& d = spec.definition;
  if (!d.is_object()) return spec;
  for (const auto& h : d.value("hosts", nlohmann::json::array())) {
    if (h.is_string()) spec.hosts.push_back(h.get<std::string>());
  }
  for (const auto& p : d.value("pairs", nlohmann::json::array())) {
    if (p.is_array() && p.size() == 2 && p[0].is_string() && p[1].is_string()) {
      spec.pairs.emplace_back(p[0].get<std::string>(), p[1].get<std::string>());
    }
  }
  for (const auto& w : d.value("test", nlohmann::json::array())) {
    if (w.is_string()) spec.test.push_back(w.get<std::string>());
  }
  return spec;
}

}  // namespace

std::vector<std::string> WordsFromJson(const std::string& text) {
  std::vector<std::string> words;
  for (const auto& w : Parse(text)) {
    if (w.is_string()) words.push_back(w.get<std::string>());
  }
  return words;
}

Status Heartbeat(Connection& c, const FleetHost& h, double now) {
  return c.Exec(
      "INSERT INTO fleet_hosts (name, addresses, nicbench_version, facts, registered_secs, "
      "heartbeat_secs) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET addresses = "
      "excluded.addresses, nicbench_version = excluded.nicbench_version, facts = excluded.facts, "
      "heartbeat_secs = excluded.heartbeat_secs",
      {h.name, Json(h.addresses), h.version,
       Json(h.facts.is_null() ? nlohmann::json::object() : h.facts), now, now});
}

Result<std::vector<FleetHost>> Hosts(Connection& c) {
  auto rows = c.Query(
      "SELECT name, addresses, nicbench_version, facts, registered_secs, heartbeat_secs, "
      "busy_job, busy_until FROM fleet_hosts ORDER BY name");
  if (!rows) return tl::unexpected(rows.error());
  std::vector<FleetHost> hosts;
  for (const SqlRow& r : *rows) {
    FleetHost h;
    h.name = AsText(r[0]);
    h.addresses = WordsFromJson(AsText(r[1]));
    h.version = AsText(r[2]);
    h.facts = Parse(AsText(r[3]));
    h.registered_secs = AsDouble(r[4]);
    h.heartbeat_secs = AsDouble(r[5]);
    if (!IsNull(r[6])) h.busy_job = AsInt(r[6]);
    h.busy_until = AsDouble(r[7]);
    hosts.push_back(std::move(h));
  }
  return hosts;
}

Result<int64_t> CreateMesh(Connection& c, const MeshSpec& spec, double now) {
  auto hosts = Hosts(c);
  if (!hosts) return tl::unexpected(hosts.error());
  std::vector<std::string> known;
  for (const FleetHost& h : *hosts) known.push_back(h.name);
  for (const std::string& name : spec.hosts) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      return Fail(fmt::format(
          "unknown host '{}': no agent has registered under that name (known: {})", name,
          known.empty() ? std::string("none") : fmt::format("{}", fmt::join(known, ", "))));
    }
  }
  auto taken = Meshes(c, spec.name);
  if (!taken) return tl::unexpected(taken.error());
  if (!taken->empty()) return Fail(fmt::format("a mesh named '{}' exists already", spec.name));
  auto rows = c.Query(
      "INSERT INTO fleet_meshes (name, definition, every_secs, state, created_secs, next_secs) "
      "VALUES (?, ?, ?, 'active', ?, ?) RETURNING id",
      {spec.name, Json(StoredDefinition(spec)), spec.every_secs, now, now});
  if (!rows) return tl::unexpected(rows.error());
  return AsInt(rows->at(0).at(0));
}

Result<std::vector<Mesh>> Meshes(Connection& c, std::string_view name) {
  std::string sql =
      "SELECT id, name, definition, every_secs, state, created_secs, next_secs, period FROM "
      "fleet_meshes";
  std::vector<SqlValue> params;
  if (!name.empty()) {
    sql += " WHERE name = ?";
    params.emplace_back(std::string(name));
  }
  auto rows = c.Query(sql + " ORDER BY name", params);
  if (!rows) return tl::unexpected(rows.error());
  std::vector<Mesh> meshes;
  for (const SqlRow& r : *rows) {
    Mesh m;
    m.id = AsInt(r[0]);
    m.spec = SpecFromDefinition(AsText(r[1]), AsText(r[2]));
    m.spec.every_secs = AsDouble(r[3]);
    m.state = AsText(r[4]);
    m.created_secs = AsDouble(r[5]);
    m.next_secs = AsDouble(r[6]);
    m.period = AsInt(r[7]);
    meshes.push_back(std::move(m));
  }
  return meshes;
}

Status SetMeshState(Connection& c, std::string_view name, std::string_view state, double now) {
  // Resuming starts a period at once; pausing leaves queued jobs to run (or be skipped when the
  // mesh resumes).
  auto rows = state == "active"
                  ? c.Query(
                        "UPDATE fleet_meshes SET state = ?, next_secs = ? WHERE name = ? "
                        "RETURNING id",
                        {std::string(state), now, std::string(name)})
                  : c.Query("UPDATE fleet_meshes SET state = ? WHERE name = ? RETURNING id",
                            {std::string(state), std::string(name)});
  if (!rows) return tl::unexpected(rows.error());
  if (rows->empty()) return Fail(fmt::format("no mesh named '{}'", name));
  return Ok();
}

Status DeleteMesh(Connection& c, std::string_view name) {
  Transaction t(c);
  if (auto s = t.BeginWrite(); !s) return s;
  auto mesh = c.Query("SELECT id FROM fleet_meshes WHERE name = ? FOR UPDATE", {std::string(name)});
  if (!mesh) return tl::unexpected(mesh.error());
  if (mesh->empty()) return Fail(fmt::format("no mesh named '{}'", name));
  const int64_t id = AsInt(mesh->at(0).at(0));
  // A host busy with one of its jobs is freed: the job's agent finds its lease gone.
  auto s = c.Exec(
      "UPDATE fleet_hosts SET busy_job = NULL, busy_until = 0 WHERE busy_job IN (SELECT id "
      "FROM fleet_jobs WHERE mesh_id = ?)",
      {id});
  if (s)
    s = c.Exec(
        "DELETE FROM fleet_attempts WHERE job_id IN (SELECT id FROM fleet_jobs "
        "WHERE mesh_id = ?)",
        {id});
  if (s) s = c.Exec("DELETE FROM fleet_jobs WHERE mesh_id = ?", {id});
  if (s) s = c.Exec("DELETE FROM fleet_meshes WHERE id = ?", {id});
  if (!s) return s;
  return t.Commit();
}

}  // namespace nicbench::store::fleet
