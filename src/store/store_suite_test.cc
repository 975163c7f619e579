// The store suite, written once and run against both backends: SQLite files and a real
// PostgreSQL server the test starts itself (store_test_backends.h).
#include <atomic>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "record/json.h"
#include "record/json_test_records.h"
#include "store/backends.h"
#include "store/sql_store.h"
#include "store/store.h"
#include "store/store_test_backends.h"

namespace nicbench::store {
namespace {

using record::testing::MakeBidirRun;
using record::testing::MakeFinding;
using record::testing::MakeTcpRun;
using record::testing::MakeUdpRun;

const auto* const kPostgresEnvironment =
    ::testing::AddGlobalTestEnvironment(new test::PostgresEnvironment);

enum class Backend { kSqlite, kPostgres };

class StoreSuite : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::kPostgres) {
      const std::string& why = test::TestPostgres::Instance().Ensure();
      if (!why.empty()) GTEST_SKIP() << "PostgreSQL suite skipped: " << why;
      location_ = test::TestPostgres::Instance().FreshDatabase();
    } else {
      location_ = temp_.path() + "/sub/dir/results.db";
    }
    ASSERT_FALSE(location_.empty());
    store_ = Open();
    ASSERT_NE(store_, nullptr);
  }

  // A new empty location of this backend (`name`: the SQLite file's name).
  std::string FreshLocation(const std::string& name) {
    if (GetParam() == Backend::kPostgres) return test::TestPostgres::Instance().FreshDatabase();
    return temp_.path() + "/" + name;
  }

  // A raw connection to the location, below the Store.
  Result<std::unique_ptr<Connection>> OpenConnection() {
    if (GetParam() == Backend::kPostgres) return OpenPostgres(location_, std::chrono::seconds(5));
    return OpenSqlite(location_, OpenMode::kCreate, std::chrono::seconds(5));
  }

  std::unique_ptr<Store> Open() {
    auto store = OpenStore(location_);
    EXPECT_TRUE(store.has_value()) << store.error().message;
    return store ? std::move(*store) : nullptr;
  }

  int64_t MustPut(const record::RunRecord& run, const Labels& labels = {}) {
    auto id = store_->Put(run, labels);
    EXPECT_TRUE(id.has_value()) << id.error().message;
    return id.value_or(-1);
  }

  std::vector<int64_t> Ids(const RunQuery& q) {
    auto found = store_->Find(q);
    EXPECT_TRUE(found.has_value()) << found.error().message;
    std::vector<int64_t> ids;
    if (found) {
      for (const RunSummary& s : *found) ids.push_back(s.id);
    }
    return ids;
  }

  test::TempDir temp_;
  std::string location_;
  std::unique_ptr<Store> store_;
};

TEST_P(StoreSuite, RunReadsBackWholeWithItsSummary) {
  record::RunRecord run = MakeTcpRun();
  run.findings = {MakeFinding(record::Severity::kNotice, "small-window"),
                  MakeFinding(record::Severity::kWarning, "link-rate-limited")};
  const int64_t id = MustPut(run, {{"nic", "re0"}, {"tso", "off"}});
  auto got = store_->Get(id);
  ASSERT_TRUE(got.has_value()) << got.error().message;
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ(nlohmann::json((*got)->record), nlohmann::json(run));
  const RunSummary& s = (*got)->summary;
  EXPECT_EQ(s.id, id);
  EXPECT_EQ(s.timestamp, "2026-11-30T09:02:48Z");
  EXPECT_EQ(s.timestamp_secs, 1796029368);
  EXPECT_EQ(s.client_host, "h1");
  EXPECT_EQ(s.server_host, "h2");
  EXPECT_EQ(s.peer, "198.18.0.2");
  EXPECT_EQ(s.direction, "forward");
  EXPECT_EQ(s.protocol, "tcp");
  EXPECT_EQ(s.streams, 2);
  EXPECT_DOUBLE_EQ(s.duration_seconds, 2.0);
  // Two streams of 25 MB sent and 24.8 MB received in 2 s.
  ASSERT_TRUE(s.figures.Get("sender_bits_per_second").known());
  EXPECT_DOUBLE_EQ(s.figures.Get("sender_bits_per_second").value(), 200e6);
  EXPECT_DOUBLE_EQ(s.figures.Get("receiver_bits_per_second").value_or(0), 198.4e6);
  EXPECT_EQ(s.figures.Get("retransmits").value_or(-1), 8);
  EXPECT_DOUBLE_EQ(s.figures.Get("mean_rtt_us").value_or(0), 520);
  EXPECT_TRUE(s.figures.Get("client_cpu_seconds_per_gigabyte").known());
  EXPECT_DOUBLE_EQ(s.figures.Get("goodput_client_to_server_bits_per_second").value_or(0), 198.4e6);
  EXPECT_FALSE(
      s.figures.Get("goodput_server_to_client_sender_bits_per_second").known());  // a forward run
  EXPECT_EQ(s.top_finding, "link-rate-limited");
  EXPECT_EQ(s.top_severity, "warning");
  EXPECT_EQ(s.labels, (Labels{{"nic", "re0"}, {"tso", "off"}}));
}

TEST_P(StoreSuite, UnknownsStayUnknownAndUdpHasNoRetransmits) {
  const int64_t id = MustPut(MakeUdpRun(/*with_remote=*/false));
  auto got = store_->Get(id);
  ASSERT_TRUE(got.has_value() && got->has_value());
  const RunSummary& s = (*got)->summary;
  EXPECT_EQ(s.protocol, "udp");
  EXPECT_EQ(s.server_host, "");
  EXPECT_FALSE(s.figures.Get("retransmits").known());
  EXPECT_FALSE(s.figures.Get("mean_rtt_us").known());
  EXPECT_FALSE(s.figures.Get("server_cpu_seconds_per_gigabyte").known());
  // Each keeps the reason analysis gave, through the store (schema 6).
  EXPECT_EQ(s.figures.Get("retransmits").why(), record::Missing::kAbsent);
  EXPECT_EQ(s.figures.Get("retransmits").detail(), "not TCP");
  EXPECT_EQ(s.figures.Get("rr_latency_p99_us").detail(), "not a request/response test");
  EXPECT_EQ(s.figures.Get("under_load_loaded_rpm").detail(), "not an --under-load run");
  EXPECT_EQ(s.top_finding, "");
  EXPECT_FALSE((*got)->record.remote.known());
}

TEST_P(StoreSuite, UnknownIdIsNoRunNotAnError) {
  MustPut(MakeTcpRun());
  auto got = store_->Get(999);
  ASSERT_TRUE(got.has_value()) << got.error().message;
  EXPECT_FALSE(got->has_value());
}

TEST_P(StoreSuite, FreeTextLabelIsStoredAsTheLabelLabel) {
  record::RunRecord run = MakeTcpRun();
  run.label = "stand s1 host h1";
  const int64_t id = MustPut(run, {{"nic", "re0"}});
  RunQuery q;
  q.labels = {{"label", "stand s1 host h1"}};
  EXPECT_EQ(Ids(q), std::vector<int64_t>{id});
}

TEST_P(StoreSuite, FindFiltersAndReturnsNewestFirst) {
  record::RunRecord other_peer = MakeBidirRun();
  other_peer.server_host = "10.0.0.9";
  other_peer.timestamp_secs = 1000;
  const int64_t a = MustPut(MakeTcpRun(), {{"tso", "on"}, {"nic", "re0"}});
  const int64_t b = MustPut(MakeTcpRun(), {{"tso", "off"}, {"nic", "re0"}});
  const int64_t c = MustPut(other_peer, {{"tso", "off"}, {"nic", "em0"}});
  const int64_t d = MustPut(MakeUdpRun(), {{"experiment", "7"}});

  EXPECT_EQ(Ids({}), (std::vector<int64_t>{d, c, b, a}));
  RunQuery last2;
  last2.limit = 2;
  EXPECT_EQ(Ids(last2), (std::vector<int64_t>{d, c}));
  RunQuery tso_off;
  tso_off.labels = {{"tso", "off"}};
  EXPECT_EQ(Ids(tso_off), (std::vector<int64_t>{c, b}));
  RunQuery both;  // labels are ANDed
  both.labels = {{"tso", "off"}, {"nic", "re0"}};
  EXPECT_EQ(Ids(both), std::vector<int64_t>{b});
  RunQuery peer;
  peer.peer = "10.0.0.9";
  EXPECT_EQ(Ids(peer), std::vector<int64_t>{c});
  RunQuery by_hostname;  // the server's own name matches too
  by_hostname.peer = "h2";
  EXPECT_EQ(Ids(by_hostname), (std::vector<int64_t>{d, c, b, a}));
  RunQuery since;
  since.since_secs = 2000;
  EXPECT_EQ(Ids(since), (std::vector<int64_t>{d, b, a}));
  RunQuery range;
  range.min_id = b;
  range.max_id = c;
  EXPECT_EQ(Ids(range), (std::vector<int64_t>{c, b}));
  RunQuery experiment;
  experiment.experiment = 7;
  EXPECT_EQ(Ids(experiment), std::vector<int64_t>{d});
  RunQuery none;
  none.labels = {{"tso", "maybe"}};
  EXPECT_TRUE(Ids(none).empty());
}

// An interrupted run is stored marked incomplete; Find leaves it out unless asked, and a limit
// counts only the runs it returns.
TEST_P(StoreSuite, IncompleteRunsAreMarkedAndLeftOutUnlessAsked) {
  record::RunRecord cut = MakeTcpRun();
  cut.incomplete = true;
  cut.error = "interrupted";
  const int64_t a = MustPut(MakeTcpRun(), {{"tso", "on"}});
  const int64_t b = MustPut(MakeTcpRun(), {{"tso", "on"}});
  const int64_t c = MustPut(cut, {{"tso", "on"}});
  RunQuery last2;
  last2.limit = 2;
  EXPECT_EQ(Ids(last2), (std::vector<int64_t>{b, a}));
  RunQuery all = last2;
  all.include_incomplete = true;
  EXPECT_EQ(Ids(all), (std::vector<int64_t>{c, b}));
  RunQuery tso_on;
  tso_on.labels = {{"tso", "on"}};
  EXPECT_EQ(Ids(tso_on), (std::vector<int64_t>{b, a}));
  auto found = store_->Find(all);
  ASSERT_TRUE(found.has_value()) << found.error().message;
  EXPECT_TRUE((*found)[0].incomplete);
  EXPECT_FALSE((*found)[1].incomplete);
  // Get names a run by id, complete or not, and the record keeps its mark.
  auto got = store_->Get(c);
  ASSERT_TRUE(got.has_value() && got->has_value());
  EXPECT_TRUE((*got)->summary.incomplete);
  EXPECT_TRUE((*got)->record.incomplete);
}

TEST_P(StoreSuite, GetManyKeepsTheOrderGivenAndSkipsUnknownIds) {
  const int64_t a = MustPut(MakeTcpRun());
  const int64_t b = MustPut(MakeUdpRun());
  auto runs = store_->GetMany({b, 12345, a});
  ASSERT_TRUE(runs.has_value()) << runs.error().message;
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].summary.id, b);
  EXPECT_EQ((*runs)[0].record.spec.transport, record::Transport::kUdp);
  EXPECT_EQ((*runs)[1].summary.id, a);

  auto facts = store_->GetFacts({a, 12345, b});
  ASSERT_TRUE(facts.has_value()) << facts.error().message;
  ASSERT_EQ(facts->size(), 2u);
  EXPECT_EQ((*facts)[0].id, a);
  EXPECT_EQ((*facts)[0].facts["client"]["host"]["hostname"], "h1");
  EXPECT_EQ((*facts)[0].facts["server"]["congestion_used"], "bbr");
  EXPECT_EQ((*facts)[1].facts["spec"]["transport"], "udp");
}

TEST_P(StoreSuite, ManyIdsAreReadInChunks) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 520; ++i) ids.push_back(MustPut(MakeUdpRun(false)));
  auto facts = store_->GetFacts(ids);
  ASSERT_TRUE(facts.has_value()) << facts.error().message;
  ASSERT_EQ(facts->size(), ids.size());
  EXPECT_EQ(facts->back().id, ids.back());
}

TEST_P(StoreSuite, RunsSurviveReopening) {
  const int64_t id = MustPut(MakeTcpRun());
  store_.reset();
  store_ = Open();
  ASSERT_NE(store_, nullptr);
  auto got = store_->Get(id);
  ASSERT_TRUE(got.has_value() && got->has_value());
  EXPECT_GT(MustPut(MakeTcpRun()), id);
}

TEST_P(StoreSuite, MonitorEventsReadBackInOrderPerMonitor) {
  record::MonitorEvent e;
  e.monitor = "nas:5201-1";
  e.id = 1;
  e.kind = record::EventKind::kCoreSaturated;
  e.subject = "cpu0";
  e.at_unix = e.opened_unix = 1700000009.5;
  e.summary = "cpu0 saturated by hard irq (100%) for 10 s";
  e.evidence = {"cpu0: hard irq 100.0%", "interrupts per second unchanged"};
  ASSERT_TRUE(store_->PutEvent(e).has_value());
  record::MonitorEvent other = e;
  other.monitor = "other";
  ASSERT_TRUE(store_->PutEvent(other).has_value());
  e.resolved = true;
  e.at_unix = 1700000051;
  ASSERT_TRUE(store_->PutEvent(e).has_value());
  auto got = store_->Events("nas:5201-1");
  ASSERT_TRUE(got.has_value()) << got.error().message;
  ASSERT_EQ(got->size(), 2u);
  EXPECT_FALSE((*got)[0].resolved);
  EXPECT_TRUE((*got)[1].resolved);
  EXPECT_EQ((*got)[1].kind, record::EventKind::kCoreSaturated);
  EXPECT_EQ((*got)[1].subject, "cpu0");
  EXPECT_EQ((*got)[1].opened_unix, 1700000009.5);
  EXPECT_EQ((*got)[1].at_unix, 1700000051);
  EXPECT_EQ((*got)[1].evidence, e.evidence);
  EXPECT_EQ((*got)[1].summary, e.summary);
  EXPECT_TRUE(store_->Events("nobody").value().empty());
}

TEST_P(StoreSuite, ExperimentsKeepTheirDefinitionAndState) {
  const nlohmann::json definition = {
      {"vary", {{"tso", {"on", "off"}}}}, {"repeat", 5}, {"seed", 42}};
  auto id = store_->PutExperiment(definition);
  ASSERT_TRUE(id.has_value()) << id.error().message;
  auto got = store_->GetExperiment(*id);
  ASSERT_TRUE(got.has_value() && got->has_value());
  EXPECT_EQ((*got)->definition, definition);
  EXPECT_EQ((*got)->state, "running");
  EXPECT_FALSE((*got)->created.empty());
  ASSERT_TRUE(store_->SetExperimentState(*id, "finished").has_value());
  EXPECT_EQ(store_->GetExperiment(*id).value()->state, "finished");

  auto missing = store_->GetExperiment(*id + 100);
  ASSERT_TRUE(missing.has_value());
  EXPECT_FALSE(missing->has_value());
  auto bad = store_->SetExperimentState(*id + 100, "finished");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("no experiment"), std::string::npos) << bad.error().message;
}

// Two writers, each with its own connection, store at the same time: every run is stored once,
// with its own id, and reads back whole.
TEST_P(StoreSuite, TwoConcurrentWritersLoseNothing) {
  constexpr int kRunsEach = 25;
  std::vector<int64_t> ids[2];
  std::string errors[2];
  std::atomic<bool> go{false};
  auto writer = [&](int w) {
    auto store = OpenStore(location_);
    if (!store) {
      errors[w] = store.error().message;
      return;
    }
    while (!go) std::this_thread::yield();
    for (int i = 0; i < kRunsEach; ++i) {
      record::RunRecord run = MakeTcpRun();
      run.cookie = fmt::format("writer{}-{}", w, i);
      auto id = (*store)->Put(run, {{"writer", std::to_string(w)}});
      if (!id) {
        errors[w] = id.error().message;
        return;
      }
      ids[w].push_back(*id);
    }
  };
  std::thread t0(writer, 0), t1(writer, 1);
  go = true;
  t0.join();
  t1.join();
  ASSERT_EQ(errors[0], "");
  ASSERT_EQ(errors[1], "");
  std::set<int64_t> all(ids[0].begin(), ids[0].end());
  all.insert(ids[1].begin(), ids[1].end());
  EXPECT_EQ(all.size(), 2u * kRunsEach);
  for (int w = 0; w < 2; ++w) {
    RunQuery q;
    q.labels = {{"writer", std::to_string(w)}};
    std::vector<int64_t> found = Ids(q);
    EXPECT_EQ(std::set<int64_t>(found.begin(), found.end()),
              std::set<int64_t>(ids[w].begin(), ids[w].end()));
    auto runs = store_->GetMany(ids[w]);
    ASSERT_TRUE(runs.has_value()) << runs.error().message;
    ASSERT_EQ(runs->size(), static_cast<size_t>(kRunsEach));
    for (int i = 0; i < kRunsEach; ++i) {
      EXPECT_EQ((*runs)[i].record.cookie, fmt::format("writer{}-{}", w, i));
    }
  }
}

// Two processes opening a new store at once both find it created once.
TEST_P(StoreSuite, ConcurrentOpenOfAFreshStoreCreatesItOnce) {
  location_ = FreshLocation("fresh.db");
  std::string errors[4];
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      auto store = OpenStore(location_);
      if (!store) {
        errors[i] = store.error().message;
        return;
      }
      auto id = (*store)->Put(MakeTcpRun(), {});
      if (!id) errors[i] = id.error().message;
    });
  }
  for (auto& t : threads) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  store_ = Open();
  EXPECT_EQ(Ids({}).size(), 4u);
}

TEST_P(StoreSuite, ANewerSchemaIsRefusedWithAClearMessage) {
  store_.reset();
  auto c = OpenConnection();
  ASSERT_TRUE(c.has_value()) << c.error().message;
  ASSERT_TRUE((*c)->Exec("UPDATE nicbench_schema SET version = 99").has_value());
  auto store = OpenStore(location_);
  ASSERT_FALSE(store.has_value());
  EXPECT_NE(store.error().message.find("made by a newer nicbench (store schema 99"),
            std::string::npos)
      << store.error().message;
}

// A store made at schema version 1 (before experiments and the interrupt/RTT/facts columns)
// opens, upgrades, and its run reads back with the new columns computed from the record.
TEST_P(StoreSuite, AVersion1StoreUpgradesAndKeepsItsRuns) {
  store_.reset();
  location_ = FreshLocation("v1.db");
  {
    auto c = OpenConnection();
    ASSERT_TRUE(c.has_value()) << c.error().message;
    ASSERT_TRUE(MigrateTo(**c, 1).has_value());
    const std::string record = nlohmann::json(MakeTcpRun()).dump();
    auto s = (*c)->Exec(
        "INSERT INTO runs (stored_secs, record_schema, nicbench_version, start_time, start_secs, "
        "client_host, server_host, peer, direction, protocol, streams, duration_seconds, "
        "sender_bps, receiver_bps, client_cpu_s_per_gb, server_cpu_s_per_gb, retransmits, "
        "top_finding, top_severity, labels) VALUES (1, 1, '0.1.0', "
        "'2026-11-30T09:02:48Z', 1796029368, 'h1', 'h2', '198.18.0.2', 'forward', 'tcp', 2, 2.0, "
        "200e6, 198.4e6, NULL, NULL, 8, '', '', '{\"tso\":\"on\"}')");
    ASSERT_TRUE(s.has_value()) << s.error().message;
    s = (*c)->Exec("INSERT INTO run_records (run_id, record) VALUES (1, ?)", {record});
    ASSERT_TRUE(s.has_value()) << s.error().message;
    ASSERT_TRUE((*c)->Exec("INSERT INTO run_labels VALUES (1, 'tso', 'on')").has_value());
    auto v = ReadSchemaVersion(**c);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(*v, 1);
  }
  auto store = OpenStore(location_);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  RunQuery q;
  q.labels = {{"tso", "on"}};
  auto found = (*store)->Find(q);
  ASSERT_TRUE(found.has_value()) << found.error().message;
  ASSERT_EQ(found->size(), 1u);
  EXPECT_DOUBLE_EQ((*found)[0].figures.Get("mean_rtt_us").value_or(0),
                   520);  // computed by the migration
  // Version 3 recomputes the derived columns: the transfer's CPU cost, each direction's goodput.
  EXPECT_TRUE((*found)[0].figures.Get("client_cpu_seconds_per_gigabyte").known());
  EXPECT_DOUBLE_EQ(
      (*found)[0].figures.Get("goodput_client_to_server_sender_bits_per_second").value_or(0),
      200e6);
  EXPECT_DOUBLE_EQ((*found)[0].figures.Get("goodput_client_to_server_bits_per_second").value_or(0),
                   198.4e6);
  EXPECT_FALSE((*found)[0].figures.Get("goodput_server_to_client_bits_per_second").known());
  auto facts = (*store)->GetFacts({1});
  ASSERT_TRUE(facts.has_value());
  ASSERT_EQ(facts->size(), 1u);
  EXPECT_EQ((*facts)[0].facts["client"]["host"]["hostname"], "h1");
  EXPECT_TRUE((*store)->PutExperiment({{"repeat", 1}}).has_value());
  auto c = OpenConnection();
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(ReadSchemaVersion(**c).value_or(-1), kSchemaVersion);
}

void ExpectRrFigures(const RunSummary& s, bool udp) {
  EXPECT_EQ(s.rr_mode, "rr");
  EXPECT_DOUBLE_EQ(s.figures.Get("rr_transactions_per_second").value_or(0), 20500);
  EXPECT_DOUBLE_EQ(s.figures.Get("rr_latency_p50_us").value_or(0), 40.5);
  EXPECT_DOUBLE_EQ(s.figures.Get("rr_latency_p90_us").value_or(0), 50.5);
  EXPECT_DOUBLE_EQ(s.figures.Get("rr_latency_p99_us").value_or(0), 70.5);
  EXPECT_DOUBLE_EQ(s.figures.Get("rr_latency_p99_9_us").value_or(0), 100.5);
  EXPECT_DOUBLE_EQ(s.figures.Get("rr_latency_max_us").value_or(0), 940.5);
  EXPECT_DOUBLE_EQ(s.figures.Get("rr_latency_mean_us").value_or(0), 45.5);
  EXPECT_FALSE(s.figures.Get("rr_connect_p50_us").known());  // not a CRR test
  EXPECT_EQ(s.figures.Get("rr_lost").known(), udp);
  if (udp) {
    EXPECT_DOUBLE_EQ(s.figures.Get("rr_lost").value_or(0), 6);
  }
  EXPECT_DOUBLE_EQ(s.figures.Get("rr_client_process_us_per_transaction").value_or(0), 14.25);
  EXPECT_DOUBLE_EQ(s.figures.Get("rr_server_process_us_per_transaction").value_or(0), 13.5);
  EXPECT_DOUBLE_EQ(s.figures.Get("rr_client_host_us_per_transaction").value_or(0), 36.5);
  EXPECT_DOUBLE_EQ(s.figures.Get("rr_server_host_us_per_transaction").value_or(0), 36.25);
}

TEST_P(StoreSuite, RequestResponseRunsKeepTheirFigures) {
  const int64_t tcp = MustPut(record::testing::MakeRrRun());
  const int64_t udp = MustPut(record::testing::MakeRrRun(record::Transport::kUdp));
  const int64_t crr =
      MustPut(record::testing::MakeRrRun(record::Transport::kTcp, record::RrMode::kCrr));
  const int64_t bulk = MustPut(MakeTcpRun());
  auto got = store_->GetMany({tcp, udp, crr, bulk});
  ASSERT_TRUE(got.has_value()) << got.error().message;
  ASSERT_EQ(got->size(), 4u);
  ExpectRrFigures((*got)[0].summary, false);
  ExpectRrFigures((*got)[1].summary, true);
  EXPECT_EQ((*got)[2].summary.rr_mode, "crr");
  EXPECT_DOUBLE_EQ((*got)[2].summary.figures.Get("rr_connect_p50_us").value_or(0), 11);
  EXPECT_DOUBLE_EQ((*got)[2].summary.figures.Get("rr_connect_p99_us").value_or(0), 20);
  EXPECT_EQ((*got)[3].summary.rr_mode, "");  // a bulk run has none of them
  EXPECT_FALSE((*got)[3].summary.figures.Get("rr_transactions_per_second").known());
  EXPECT_FALSE((*got)[3].summary.figures.Get("rr_client_process_us_per_transaction").known());
  // Find reads the same columns.
  auto found = store_->Find({});
  ASSERT_TRUE(found.has_value()) << found.error().message;
  ASSERT_EQ(found->size(), 4u);
  ExpectRrFigures((*found)[3], false);  // newest first: tcp is the oldest
}

// A store of schema version 3 (before the request/response columns) holding a bulk run and a
// request/response run: opened, it upgrades, and the request/response run's figures are
// computed from its record.
TEST_P(StoreSuite, AVersion3StoreUpgradesAndComputesRequestResponseFigures) {
  store_.reset();
  location_ = FreshLocation("v3.db");
  {
    auto c = OpenConnection();
    ASSERT_TRUE(c.has_value()) << c.error().message;
    ASSERT_TRUE(MigrateTo(**c, 3).has_value());
    int64_t id = 0;
    for (const record::RunRecord& run : {MakeTcpRun(), record::testing::MakeRrRun()}) {
      ++id;
      auto s = (*c)->Exec(
          "INSERT INTO runs (stored_secs, record_schema, nicbench_version, start_time, "
          "start_secs, client_host, server_host, peer, direction, protocol, streams, "
          "duration_seconds, top_finding, top_severity, labels) VALUES (1, 1, '0.1.0', "
          "'2026-11-30T09:02:48Z', 1796029368, 'h1', 'h2', '198.18.0.2', 'forward', 'tcp', 1, "
          "2.0, '', '', '{}')");
      ASSERT_TRUE(s.has_value()) << s.error().message;
      s = (*c)->Exec("INSERT INTO run_records (run_id, record) VALUES (?, ?)",
                     {id, nlohmann::json(run).dump()});
      ASSERT_TRUE(s.has_value()) << s.error().message;
    }
    EXPECT_EQ(ReadSchemaVersion(**c).value_or(-1), 3);
  }
  auto store = OpenStore(location_);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  auto found = (*store)->Find({});
  ASSERT_TRUE(found.has_value()) << found.error().message;
  ASSERT_EQ(found->size(), 2u);
  ExpectRrFigures((*found)[0], false);  // newest first: the request/response run
  EXPECT_EQ((*found)[1].rr_mode, "");
  EXPECT_FALSE((*found)[1].figures.Get("rr_latency_p50_us").known());
  // The bulk run's columns were recomputed as before.
  EXPECT_DOUBLE_EQ((*found)[1].figures.Get("mean_rtt_us").value_or(0), 520);
  auto c = OpenConnection();
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(ReadSchemaVersion(**c).value_or(-1), kSchemaVersion);
}

// A store of schema version 4 (before runs could be incomplete) upgrades: its runs read as
// complete, and an incomplete run stored after the upgrade is marked.
TEST_P(StoreSuite, AVersion4StoreUpgradesWithItsRunsComplete) {
  store_.reset();
  location_ = FreshLocation("v4.db");
  {
    auto c = OpenConnection();
    ASSERT_TRUE(c.has_value()) << c.error().message;
    ASSERT_TRUE(MigrateTo(**c, 4).has_value());
    auto s = (*c)->Exec(
        "INSERT INTO runs (stored_secs, record_schema, nicbench_version, start_time, "
        "start_secs, client_host, server_host, peer, direction, protocol, streams, "
        "duration_seconds, top_finding, top_severity, labels) VALUES (1, 1, '0.1.0', "
        "'2026-11-30T09:02:48Z', 1796029368, 'h1', 'h2', '198.18.0.2', 'forward', 'tcp', 1, "
        "2.0, '', '', '{}')");
    ASSERT_TRUE(s.has_value()) << s.error().message;
    s = (*c)->Exec("INSERT INTO run_records (run_id, record) VALUES (1, ?)",
                   {nlohmann::json(MakeTcpRun()).dump()});
    ASSERT_TRUE(s.has_value()) << s.error().message;
  }
  store_ = Open();
  ASSERT_NE(store_, nullptr);
  EXPECT_EQ(Ids({}), std::vector<int64_t>{1});
  record::RunRecord cut = MakeTcpRun();
  cut.incomplete = true;
  const int64_t id = MustPut(cut);
  RunQuery all;
  all.include_incomplete = true;
  EXPECT_EQ(Ids(all), (std::vector<int64_t>{id, 1}));
  EXPECT_EQ(Ids({}), std::vector<int64_t>{1});
  auto c = OpenConnection();
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(ReadSchemaVersion(**c).value_or(-1), kSchemaVersion);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreSuite,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const ::testing::TestParamInfo<Backend>& param_info) {
                           return param_info.param == Backend::kSqlite ? "Sqlite" : "Postgres";
                         });

}  // namespace
}  // namespace nicbench::store
