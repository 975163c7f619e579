// Store over a Connection: the same SQL for SQLite and PostgreSQL (`?` placeholders, RETURNING,
// no dialect-specific functions), so the shared suite tests one implementation of every query.
#include "store/sql_store.h"

#include <chrono>
#include <ctime>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "record/json.h"
#include "store/event_rows.h"
#include "store/summary.h"

namespace nicbench::store {
namespace {

// The columns a summary reads; the figures are one column (docs/store.md).
constexpr const char* kSummaryColumns =
    "id, start_time, start_secs, client_host, server_host, peer, direction, protocol, streams, "
    "duration_seconds, top_finding, top_severity, labels, incomplete, rr_mode, figures";
constexpr size_t kSummaryColumnCount = 16;
// Ids per `IN (...)` list: well under SQLite's and libpq's parameter limits.
constexpr size_t kIdsPerQuery = 500;

std::pair<int64_t, std::string> NowUtc() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return {static_cast<int64_t>(secs), text};
}

Labels ParseLabels(const std::string& text) {
  Labels labels;
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_object()) return labels;
  for (const auto& [key, value] : doc.items()) {
    if (value.is_string()) labels[key] = value.get<std::string>();
  }
  return labels;
}

RunSummary SummaryFromRow(const SqlRow& r) {
  RunSummary s;
  s.id = AsInt(r[0]);
  s.timestamp = AsText(r[1]);
  s.timestamp_secs = AsInt(r[2]);
  s.client_host = AsText(r[3]);
  s.server_host = AsText(r[4]);
  s.peer = AsText(r[5]);
  s.direction = AsText(r[6]);
  s.protocol = AsText(r[7]);
  s.streams = static_cast<int>(AsInt(r[8]));
  s.duration_seconds = AsDouble(r[9]);
  s.top_finding = AsText(r[10]);
  s.top_severity = AsText(r[11]);
  s.labels = ParseLabels(AsText(r[12]));
  s.incomplete = AsInt(r[13]) != 0;
  s.rr_mode = AsText(r[14]);
  // NULL: a run whose record did not read when the figures were computed (a hand-edited row).
  s.figures = analysis::FigureValuesFromJson(
      IsNull(r[15]) ? nlohmann::json() : nlohmann::json::parse(AsText(r[15]), nullptr, false));
  return s;
}

std::string Placeholders(size_t n) {
  std::string text;
  for (size_t i = 0; i < n; ++i) text += i ? ",?" : "?";
  return text;
}

class SqlStore final : public Store {
 public:
  explicit SqlStore(std::unique_ptr<Connection> c) : c_(std::move(c)) {}

  std::string Describe() const override { return c_->Describe(); }

  Result<int64_t> Put(const record::RunRecord& run, const Labels& labels) override {
    Transaction t(*c_);
    if (auto st = t.BeginWrite(); !st) return tl::unexpected(st.error());
    auto id = InsertRun(*c_, run, labels);
    if (!id) return id;
    if (auto st = t.Commit(); !st) return tl::unexpected(st.error());
    return id;
  }

  Result<std::optional<StoredRun>> Get(int64_t id) override {
    auto runs = GetMany({id});
    if (!runs) return tl::unexpected(runs.error());
    if (runs->empty()) return std::optional<StoredRun>();
    return std::optional<StoredRun>(std::move(runs->front()));
  }

  Result<std::vector<StoredRun>> GetMany(const std::vector<int64_t>& ids) override {
    std::unordered_map<int64_t, StoredRun> found;
    const std::string columns = std::string(kSummaryColumns) + ", record";
    auto st = ForChunks(ids, columns, [&](const SqlRow& row) -> Status {
      StoredRun run;
      run.summary = SummaryFromRow(row);
      auto doc = nlohmann::json::parse(AsText(row[kSummaryColumnCount]), nullptr, false);
      auto decoded = record::RunRecordFromJson(doc);
      if (!decoded) {
        return Fail(fmt::format("{}: run {}: the stored record does not read: {}", Describe(),
                                run.summary.id, decoded.error().message));
      }
      run.record = std::move(*decoded);
      found.emplace(run.summary.id, std::move(run));
      return Ok();
    });
    if (!st) return tl::unexpected(st.error());
    std::vector<StoredRun> out;
    for (int64_t id : ids) {
      auto it = found.find(id);
      if (it != found.end()) out.push_back(it->second);
    }
    return out;
  }

  Result<std::vector<RunFacts>> GetFacts(const std::vector<int64_t>& ids) override {
    std::unordered_map<int64_t, nlohmann::json> found;
    auto st = ForChunks(ids, "id, facts", [&](const SqlRow& row) -> Status {
      nlohmann::json facts;
      if (!IsNull(row[1])) facts = nlohmann::json::parse(AsText(row[1]), nullptr, false);
      if (facts.is_discarded()) facts = nullptr;
      found.emplace(AsInt(row[0]), std::move(facts));
      return Ok();
    });
    if (!st) return tl::unexpected(st.error());
    std::vector<RunFacts> out;
    for (int64_t id : ids) {
      auto it = found.find(id);
      if (it != found.end()) out.push_back({id, it->second});
    }
    return out;
  }

  Result<std::vector<RunSummary>> Find(const RunQuery& q) override {
    std::string sql = fmt::format("SELECT {} FROM runs WHERE 1 = 1", kSummaryColumns);
    std::vector<SqlValue> params;
    if (q.min_id) {
      sql += " AND id >= ?";
      params.emplace_back(*q.min_id);
    }
    if (q.max_id) {
      sql += " AND id <= ?";
      params.emplace_back(*q.max_id);
    }
    // The newest runs first: a backward scan of the ids that stops at the limit is the plan
    // that scales (history --last 50 over 100,000 runs). The time and peer filters are written
    // so the planner does not use an index for them: every run usually matches them, and
    // walking such an index then sorting costs a pass over the whole table.
    if (q.peer) {
      sql += " AND (peer || '' = ? OR server_host || '' = ?)";
      params.emplace_back(*q.peer);
      params.emplace_back(*q.peer);
    }
    if (q.since_secs) {
      sql += " AND start_secs + 0 >= ?";
      params.emplace_back(*q.since_secs);
    }
    if (!q.include_incomplete) sql += " AND incomplete = 0";
    Labels labels = q.labels;
    if (q.experiment) labels["experiment"] = std::to_string(*q.experiment);
    for (const auto& [key, value] : labels) {
      sql += " AND id IN (SELECT run_id FROM run_labels WHERE key = ? AND value = ?)";
      params.emplace_back(key);
      params.emplace_back(value);
    }
    sql += " ORDER BY id DESC";
    if (q.limit > 0) {
      sql += " LIMIT ?";
      params.emplace_back(static_cast<int64_t>(q.limit));
    }
    auto rows = c_->Query(sql, params);
    if (!rows) return tl::unexpected(rows.error());
    std::vector<RunSummary> out;
    out.reserve(rows->size());
    for (const SqlRow& row : *rows) out.push_back(SummaryFromRow(row));
    return out;
  }

  Result<int64_t> PutExperiment(const nlohmann::json& definition) override {
    auto [secs, text] = NowUtc();
    auto rows = c_->Query(
        "INSERT INTO experiments (created_time, created_secs, state, definition) "
        "VALUES (?, ?, 'running', ?) RETURNING id",
        {text, secs, definition.dump()});
    if (!rows) return tl::unexpected(rows.error());
    return AsInt(rows->at(0).at(0));
  }

  Result<std::optional<Experiment>> GetExperiment(int64_t id) override {
    auto rows = c_->Query(
        "SELECT id, created_time, created_secs, state, definition FROM experiments WHERE id = ?",
        {id});
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) return std::optional<Experiment>();
    const SqlRow& r = rows->front();
    Experiment e;
    e.id = AsInt(r[0]);
    e.created = AsText(r[1]);
    e.created_secs = AsInt(r[2]);
    e.state = AsText(r[3]);
    e.definition = nlohmann::json::parse(AsText(r[4]), nullptr, false);
    if (e.definition.is_discarded()) {
      return Fail(
          fmt::format("{}: experiment {}: the stored definition is not JSON", Describe(), id));
    }
    return std::optional<Experiment>(std::move(e));
  }

  Status SetExperimentState(int64_t id, std::string_view state) override {
    auto rows = c_->Query("UPDATE experiments SET state = ? WHERE id = ? RETURNING id",
                          {std::string(state), id});
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) return Fail(fmt::format("{}: no experiment {}", Describe(), id));
    return Ok();
  }

  Result<int64_t> PutEvent(const record::MonitorEvent& event) override {
    return InsertEvent(*c_, event);
  }

  Result<std::vector<record::MonitorEvent>> Events(std::string_view monitor) override {
    return SelectEvents(*c_, monitor);
  }

 private:
  // Runs `SELECT columns FROM runs JOIN run_records ... WHERE id IN (...)` over the ids in chunks.
  template <typename OnRow>
  Status ForChunks(const std::vector<int64_t>& ids, const std::string& columns, OnRow on_row) {
    for (size_t begin = 0; begin < ids.size(); begin += kIdsPerQuery) {
      const size_t n = std::min(kIdsPerQuery, ids.size() - begin);
      std::vector<SqlValue> params(ids.begin() + begin, ids.begin() + begin + n);
      auto rows = c_->Query(fmt::format("SELECT {} FROM runs JOIN run_records ON run_id = id "
                                        "WHERE id IN ({})",
                                        columns, Placeholders(n)),
                            params);
      if (!rows) return tl::unexpected(rows.error());
      for (const SqlRow& row : *rows) {
        if (auto st = on_row(row); !st) return st;
      }
    }
    return Ok();
  }

  std::unique_ptr<Connection> c_;
};

}  // namespace

Result<int64_t> InsertRun(Connection& c, const record::RunRecord& run, const Labels& given) {
  Labels labels = given;
  if (!run.label.empty()) labels.emplace("label", run.label);
  const RunSummary s = Summarize(run);
  const std::string record_text = nlohmann::json(run).dump();
  const std::string labels_text = nlohmann::json(labels).dump();
  const std::vector<SqlValue> values = {
      NowUtc().first,     int64_t{run.schema_version},
      run.version,        s.timestamp,
      s.timestamp_secs,   s.client_host,
      s.server_host,      s.peer,
      s.direction,        s.protocol,
      int64_t{s.streams}, s.duration_seconds,
      s.top_finding,      s.top_severity,
      labels_text,        int64_t{s.incomplete ? 1 : 0},
      s.rr_mode,          analysis::FigureValuesToJson(s.figures).dump()};
  auto rows = c.Query(
      fmt::format("INSERT INTO runs (stored_secs, record_schema, nicbench_version, start_time, "
                  "start_secs, client_host, server_host, peer, direction, protocol, streams, "
                  "duration_seconds, top_finding, top_severity, labels, incomplete, rr_mode, "
                  "figures) VALUES ({}) RETURNING id",
                  Placeholders(values.size())),
      values);
  if (!rows) return tl::unexpected(rows.error());
  const int64_t id = AsInt(rows->at(0).at(0));
  auto kept = c.Exec("INSERT INTO run_records (run_id, record, facts) VALUES (?, ?, ?)",
                     {id, record_text, FactsOf(run).dump()});
  if (!kept) return tl::unexpected(kept.error());
  for (const auto& [key, value] : labels) {
    auto st =
        c.Exec("INSERT INTO run_labels (run_id, key, value) VALUES (?, ?, ?)", {id, key, value});
    if (!st) return tl::unexpected(st.error());
  }
  return id;
}

std::unique_ptr<Store> MakeSqlStore(std::unique_ptr<Connection> c) {
  return std::make_unique<SqlStore>(std::move(c));
}

}  // namespace nicbench::store
