// The store migration on a store written by an earlier release (tests/testdata/stores/README.md):
// every run stored before reads back with the same figures as that release's `history --json`
// printed, now with the reasons of the unknown ones and the figures added since.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "store/store.h"
#include "support/run_binary.h"

namespace nicbench::store {
namespace {

namespace fs = std::filesystem;

// A copy of the stored file: opening migrates in place, and the fixture stays as written. The
// copy's directory is this process's own, since ctest runs the tests of this file side by side.
std::string CopyOf(const std::string& name) {
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("nicbench-migration-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path copy = dir / name;
  fs::remove(copy);
  fs::copy_file(fs::path(testing::TestdataDir()) / "stores" / name, copy);
  return copy.string();
}

nlohmann::json ReadJson(const std::string& name) {
  std::ifstream in(fs::path(testing::TestdataDir()) / "stores" / name);
  return nlohmann::json::parse(in);
}

// History's JSON names of schema 5 and the figure keys they became (docs/store.md).
const std::map<std::string, std::string>& RenamedInSchema6() {
  static const std::map<std::string, std::string> kRenamed = {
      {"client_cpu_seconds_per_gb", "client_cpu_seconds_per_gigabyte"},
      {"server_cpu_seconds_per_gb", "server_cpu_seconds_per_gigabyte"},
      {"client_interrupts_per_gb", "client_nic_interrupts_per_gigabyte"},
      {"server_interrupts_per_gb", "server_nic_interrupts_per_gigabyte"},
      {"sender_bits_per_second", "sender_bits_per_second"},
      {"receiver_bits_per_second", "receiver_bits_per_second"},
      {"retransmits", "retransmits"},
      {"mean_rtt_us", "mean_rtt_us"},
  };
  return kRenamed;
}

void ExpectSame(const analysis::FigureValues& now, const std::string& key,
                const nlohmann::json& before, int64_t id) {
  const record::Measured<double>& v = now.Get(key);
  if (before.is_null()) {
    EXPECT_FALSE(v.known()) << "run " << id << " " << key;
    EXPECT_NE(v.detail(), "") << "run " << id << " " << key << ": unknown without a reason";
    return;
  }
  ASSERT_TRUE(v.known()) << "run " << id << " " << key << ": " << v.detail();
  const double old = before.get<double>();
  EXPECT_NEAR(v.value(), old, std::abs(old) * 1e-12) << "run " << id << " " << key;
}

TEST(StoreMigration, ASchema5StoreReadsBackWithTheSameFigures) {
  auto store = OpenStore(CopyOf("schema5.db"), OpenMode::kExisting);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  RunQuery all;
  all.include_incomplete = true;
  auto runs = (*store)->Find(all);
  ASSERT_TRUE(runs.has_value()) << runs.error().message;
  const nlohmann::json before = ReadJson("schema5-history.json")["runs"];
  ASSERT_EQ(runs->size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    const RunSummary& s = (*runs)[i];
    const nlohmann::json& old = before[i];
    ASSERT_EQ(s.id, old["id"].get<int64_t>());
    EXPECT_EQ(s.timestamp, old["time"]);
    EXPECT_EQ(s.direction, old["direction"]);
    EXPECT_EQ(s.top_finding, old["top_finding"].is_null() ? "" : old["top_finding"]["id"]);
    for (const auto& [was, key] : RenamedInSchema6()) ExpectSame(s.figures, key, old[was], s.id);
    if (!old.contains("rr")) continue;
    EXPECT_EQ(s.rr_mode, old["rr"]["mode"]);
    for (const auto& [name, value] : old["rr"].items()) {
      if (name != "mode") ExpectSame(s.figures, "rr_" + name, value, s.id);
    }
  }
}

TEST(StoreMigration, TheUnderLoadRunsGainTheirFiguresFromTheirRecords) {
  auto store = OpenStore(CopyOf("schema5.db"), OpenMode::kExisting);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  RunQuery q;
  q.labels = {{"case", "under-load"}};
  auto runs = (*store)->Find(q);
  ASSERT_TRUE(runs.has_value()) << runs.error().message;
  ASSERT_EQ(runs->size(), 2u);
  for (const RunSummary& s : *runs) {
    EXPECT_TRUE(s.figures.Get("under_load_loaded_p99_ms").known()) << s.id;
    EXPECT_TRUE(s.figures.Get("under_load_loaded_rpm").known()) << s.id;
    EXPECT_TRUE(s.figures.Get("under_load_goodput_bits_per_second").known()) << s.id;
  }
  // A bulk run stored then says why it has none.
  q.labels = {{"case", "tcp"}};
  runs = (*store)->Find(q);
  ASSERT_TRUE(runs.has_value() && !runs->empty());
  EXPECT_EQ(runs->front().figures.Get("under_load_loaded_rpm").detail(), "not an --under-load run");
}

}  // namespace
}  // namespace nicbench::store
