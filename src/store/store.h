// The result store: every run's whole RunRecord, kept as its versioned JSON (record/json.h) so
// nothing is lost and an old run re-renders, beside indexed columns for what people filter and
// sort by. Two backends behind this one interface: a SQLite file (the default, one per user) and a
// PostgreSQL database (shared by a team). Both keep the same schema (docs/store.md) and pass one
// shared test suite (store_suite_test.h).
//
// Thread safety: a Store object is thread-compatible: use it from one thread at a time (one
// Store per thread). Several Store objects, in one process or many, may read and write the same
// location at once: every write is one transaction (SQLite in WAL mode with a busy timeout,
// PostgreSQL with its own concurrency); a reader sees a run whole or not at all.
//
// Errors: every operation returns a Result; the Error's message names the location and what
// failed ("/x/results.db: database is locked (busy for more than 5000 ms)"), ready for stderr.
// "Not there" is not an error: Get of an unknown id is an empty optional.
//
// Units: times are RFC 3339 UTC text plus Unix seconds; each figure's unit is its row's in the
// table of figures (analysis/figure_table.h). A figure that is unknown (not measured, peer did not
// report, no data moved) stays unknown with its reason, never zero.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/figure_table.h"
#include "base/result.h"
#include "record/monitor.h"
#include "record/run_record.h"

namespace nicbench::store {

// Version of the store's schema (tables and columns, docs/store.md). A database of an older
// version is upgraded when opened; a newer one is refused.
inline constexpr int kSchemaVersion = 8;

// Labels of a run: KEY=VALUE tags, ordered by key. The run's free-text RunRecord::label is stored
// as the label "label"; an experiment's runs carry "experiment"=ID and one label per variant name.
using Labels = std::map<std::string, std::string>;

// "KEY=VALUE" -> {KEY, VALUE}. KEY is 1..64 characters of [A-Za-z0-9_.-]; VALUE is any text up to
// 1024 bytes (may be empty: "tso="). No '=' or a bad key is an error naming the text.
Result<std::pair<std::string, std::string>> ParseLabel(std::string_view text);

// Where runs go when nothing else is said: $NICBENCH_STORE when set and not empty, else
// $XDG_DATA_HOME/nicbench/results.db, else $HOME/.local/share/nicbench/results.db. Fails only when
// none of these variables is set.
Result<std::string> DefaultLocation();

// True for "postgresql://..." and "postgres://..." (a libpq connection URI); anything else is a
// SQLite file path.
bool IsPostgresUrl(std::string_view location);

// True when this binary has the PostgreSQL backend (a static build may not: docs/store.md).
bool HavePostgres();

enum class OpenMode {
  // Writers: create the database when it does not exist (SQLite: the file and its parent
  // directories, mode 0600/0700), upgrade an older schema.
  kCreate,
  // Readers (history, show, compare): the database must exist ("no result store at PATH");
  // an older schema is upgraded when the file is writable.
  kExisting,
};

// Opens a store. location: a SQLite file path or a postgresql:// / postgres:// URL.
// Never overwrites or truncates an existing file: a file that is not a nicbench store (not a
// SQLite database, or a SQLite database without nicbench's tables that already has other
// tables) is refused, and so is a schema newer than kSchemaVersion ("made by a newer nicbench:
// schema 3, this one reads up to 1").
// busy_timeout: how long a write waits for another writer's transaction (SQLite) or for the
// server to answer a connection (PostgreSQL connect_timeout, rounded up to seconds).
inline constexpr std::chrono::milliseconds kDefaultBusyTimeout{5000};
class Store;
Result<std::unique_ptr<Store>> OpenStore(
    std::string_view location, OpenMode mode = OpenMode::kCreate,
    std::chrono::milliseconds busy_timeout = kDefaultBusyTimeout);

// The indexed columns of one run: what `history` prints and `compare` computes on, without
// parsing the record. Computed once at Put from the record (and its findings).
struct RunSummary {
  int64_t id = 0;               // increases with every Put in one store
  std::string timestamp;        // RFC 3339 UTC, the test's start (RunRecord::timestamp)
  int64_t timestamp_secs = 0;   // the same as Unix seconds
  std::string client_host;      // hostname of the client end; "" when unknown
  std::string server_host;      // hostname of the server end; "" when it did not report
  std::string peer;             // the server as the user named it (RunRecord::server_host)
  std::string direction;        // "forward", "reverse", "bidirectional"
  std::string protocol;         // "tcp", "udp"
  int streams = 0;              // streams per direction (TestSpec::parallel)
  double duration_seconds = 0;  // measured duration after omit (RunRecord::test_seconds)
  // "rr" or "crr" for a request/response test (docs/rr.md), "" for a bulk test.
  std::string rr_mode;
  // Every figure of the table of figures (analysis/figure_table.h), computed once at Put from the
  // record; an unknown one keeps its reason ("not reported: no sender TCP_INFO"). A figure added
  // to the table after the run was stored is unknown, "not computed when the run was stored".
  analysis::FigureValues figures;
  std::string top_finding;   // id of the most severe finding; "" when none
  std::string top_severity;  // "info", "notice", "warning", "critical"; "" when none
  Labels labels;
  // The test was interrupted after data had moved (RunRecord::incomplete): the figures are one
  // end's counts up to then and the run was not diagnosed. Find leaves such runs out unless
  // RunQuery::include_incomplete says otherwise.
  bool incomplete = false;
};

// A run read back whole.
struct StoredRun {
  RunSummary summary;
  record::RunRecord record;  // via record::RunRecordFromJson
};

// The configuration facts of one run, small enough to load for thousands of runs (compare's
// "what differs"): {"spec": TestSpec, "client": End, "server": End or null} where End is
// {"software", "host": HostFacts, "nic": NicFacts, "congestion_used"} in record/json.h form.
struct RunFacts {
  int64_t id = 0;
  nlohmann::json facts;
};

// Which runs Find returns. Every filter that is set must match (AND). Results are newest first
// (highest id first).
struct RunQuery {
  std::optional<int64_t> min_id, max_id;  // inclusive
  // Matches the peer address as named (RunRecord::server_host) or the server's hostname.
  std::optional<std::string> peer;
  Labels labels;                      // each KEY=VALUE must be on the run
  std::optional<int64_t> since_secs;  // timestamp_secs >= since_secs
  std::optional<int64_t> experiment;  // the run's label experiment=ID
  size_t limit = 0;                   // at most this many (the newest); 0 = all
  // Incomplete runs (RunSummary::incomplete) are left out unless this is set: what compares or
  // counts runs (compare, matrix, a resume) must not take half a test for a whole one. The
  // limit counts only the runs returned.
  bool include_incomplete = false;
};

// An experiment (`nicbench matrix`): its definition as the matrix command wrote it (variants,
// repeat, seed, run options; the store does not interpret it) and its state.
// NOLINTNEXTLINE(bugprone-exception-escape): the implicit noexcept move of nlohmann::json,
// whose invariant assertion clang-tidy 14 reads as a possible throw; it never throws.
struct Experiment {
  int64_t id = 0;
  nlohmann::json definition;
  std::string state;    // "running" when created, then what SetExperimentState said
  std::string created;  // RFC 3339 UTC
  int64_t created_secs = 0;
};

class Store {
 public:
  virtual ~Store() = default;

  // "sqlite:/path/results.db" or the URL without its password; for messages.
  virtual std::string Describe() const = 0;

  // Stores one run and its labels in one transaction; returns its id. The record is kept as
  // record::to_json(RunRecord) text; the summary columns are computed from it here.
  virtual Result<int64_t> Put(const record::RunRecord& run, const Labels& labels) = 0;

  // The run with this id, or nullopt when there is none. A stored record that no longer reads
  // (a hand-edited row) is an error naming the id and the member.
  virtual Result<std::optional<StoredRun>> Get(int64_t id) = 0;
  // The runs with these ids, in the order given; unknown ids are skipped.
  virtual Result<std::vector<StoredRun>> GetMany(const std::vector<int64_t>& ids) = 0;
  // Only the configuration facts of these runs, in the order given; unknown ids are skipped.
  virtual Result<std::vector<RunFacts>> GetFacts(const std::vector<int64_t>& ids) = 0;

  // Summaries of the runs the query selects, newest first.
  virtual Result<std::vector<RunSummary>> Find(const RunQuery& query) = 0;

  // Experiments. PutExperiment stores a definition with state "running" and returns its id;
  // the runs of the experiment are found with RunQuery::experiment.
  virtual Result<int64_t> PutExperiment(const nlohmann::json& definition) = 0;
  virtual Result<std::optional<Experiment>> GetExperiment(int64_t id) = 0;
  // state: short text such as "running", "interrupted", "finished", "failed". Unknown id is an
  // error.
  virtual Status SetExperimentState(int64_t id, std::string_view state) = 0;

  // A monitor's events (`nicbench monitor`, docs/monitor.md): each opened and each resolved
  // line is a row of its own. PutEvent returns the row's id.
  virtual Result<int64_t> PutEvent(const record::MonitorEvent& event) = 0;
  // The rows of one monitor (by its id), in the order they were stored.
  virtual Result<std::vector<record::MonitorEvent>> Events(std::string_view monitor) = 0;
};

}  // namespace nicbench::store
