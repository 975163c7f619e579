// The table of figures through the binary: two stored --under-load runs compare by their
// latency-under-load figures with significance as every other figure, and a store written by
// the previous release (schema 5) compares as that release compared it.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"

namespace nicbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string FreshDir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("nicbench-figures-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

json ReadJson(const fs::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

std::map<std::string, json> MetricsByKey(const json& doc) {
  std::map<std::string, json> out;
  for (const json& m : doc["metrics"]) out[m["key"].get<std::string>()] = m;
  return out;
}

TEST(FiguresCli, TwoStoredUnderLoadRunsCompareByRpmAndLoadedLatency) {
  const std::string dir = FreshDir("under-load");
  const std::string store = dir + "/results.db";
  for (const char* set : {"set=a", "set=b"}) {
    // Loopback: one run each way, each an idle phase then the load with the probes.
    auto r = testing::RunNicbench(
        {"run", "-t", "1", "--under-load", "--idle-time", "1", "--store", store, "--label", set});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto history = testing::RunNicbench({"history", "--store", store, "--json"});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  const json runs = json::parse(history.out)["runs"];
  ASSERT_EQ(runs.size(), 4u);
  for (const json& run : runs) {
    ASSERT_TRUE(run.contains("under_load")) << run.dump();
    EXPECT_TRUE(run["under_load"]["loaded_rpm"].is_number()) << run.dump();
  }
  auto csv = testing::RunNicbench({"history", "--store", store, "--csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find(",under_load_loaded_p99_ms,"), std::string::npos) << csv.out;

  auto r =
      testing::RunNicbench({"compare", "label:set=a", "label:set=b", "--store", store, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto metrics = MetricsByKey(json::parse(r.out));
  for (const char* key : {"under_load_loaded_rpm", "under_load_loaded_p99_ms",
                          "under_load_goodput_bits_per_second", "mean_rtt_us"}) {
    ASSERT_TRUE(metrics.count(key)) << key << " in " << r.out;
    const json& m = metrics.at(key);
    EXPECT_EQ(m["a"]["n"], 2) << key;
    EXPECT_EQ(m["b"]["n"], 2) << key;
    EXPECT_TRUE(m["p"].is_number()) << key;  // the U test, as for goodput
    EXPECT_EQ(m["verdict"], "too few runs") << key;
  }
  EXPECT_EQ(metrics.at("under_load_loaded_rpm")["unit"], "RPM");
  auto text = testing::RunNicbench({"compare", "label:set=a", "label:set=b", "--store", store});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("responsiveness loaded"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" RPM ["), std::string::npos) << text.out;
  fs::remove_all(dir);
}

// compare of the stored runs of tests/testdata/stores/schema5.db, by this nicbench after the
// migration, against the output of the release that wrote the file: every metric it showed is
// shown with the same sets, medians and p.
TEST(FiguresCli, ASchema5StoreComparesAsItsReleaseDid) {
  const std::string dir = FreshDir("schema5");
  const std::string store = dir + "/results.db";
  const fs::path data = fs::path(testing::TestdataDir()) / "stores";
  fs::copy_file(data / "schema5.db", store);
  const std::map<std::string, std::vector<std::string>> cases = {
      {"schema5-compare-1_2.json", {"1", "2"}},
      {"schema5-compare-3_4.json", {"3", "4"}},
      {"schema5-compare-5_5.json", {"5", "5"}},
      {"schema5-compare-1-4_6.json", {"id:1..4", "6"}}};
  for (const auto& [golden, sets] : cases) {
    auto r = testing::RunNicbench({"compare", sets[0], sets[1], "--store", store, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto now = MetricsByKey(json::parse(r.out));
    const auto before = MetricsByKey(ReadJson(data / golden));
    for (const auto& [key, old] : before) {
      ASSERT_TRUE(now.count(key)) << golden << ": " << key;
      const json& m = now.at(key);
      for (const char* side : {"a", "b"}) {
        EXPECT_EQ(m[side]["n"], old[side]["n"]) << golden << " " << key;
        if (old[side]["median"].is_number()) {
          const double want = old[side]["median"].get<double>();
          EXPECT_NEAR(m[side]["median"].get<double>(), want, std::abs(want) * 1e-12)
              << golden << " " << key;
        }
      }
      EXPECT_EQ(m["p"], old["p"]) << golden << " " << key;
      EXPECT_EQ(m["name"], old["name"]) << golden << " " << key;
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nicbench
