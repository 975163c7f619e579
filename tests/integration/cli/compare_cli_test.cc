// `nicbench compare` on real stored runs: loopback tests run by this test against a `nicbench
// serve` child, stored with labels through the store API, then compared by the binary. Every
// bad input gets its message and exit code.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "diagnosis/diagnose.h"
#include "engine/client.h"
#include "store/store.h"
#include "support/run_binary.h"

namespace nicbench {
namespace {

using nlohmann::json;

// A store in a fresh temporary directory with three 1-stream and three 2-stream loopback runs.
class CompareCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(std::filesystem::temp_directory_path() /
                           ("nicbench-compare-" + std::to_string(getpid())));
    std::filesystem::create_directories(*dir_);
    auto server = testing::StartServe();
    auto store = store::OpenStore(Db());
    ASSERT_TRUE(store) << store.error().message;
    for (int i = 0; i < 6; ++i) {
      engine::ClientConfig config;
      config.host = "127.0.0.1";
      config.port = static_cast<uint16_t>(server.port);
      config.spec.duration = std::chrono::milliseconds(400);
      config.spec.interval = std::chrono::milliseconds(100);
      config.spec.parallel = i < 3 ? 1 : 2;
      engine::ClientOutcome outcome = engine::RunClient(config);
      ASSERT_TRUE(outcome.ok()) << outcome.record.error.value_or("");
      outcome.record.findings = diagnosis::Diagnose(outcome.record);
      auto id = (*store)->Put(outcome.record, {{"streams", std::to_string(config.spec.parallel)},
                                               {"set", i < 3 ? "a" : "b"}});
      ASSERT_TRUE(id) << id.error().message;
    }
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  static std::string Db() { return *dir_ + "/results.db"; }
  static testing::ProcessResult Compare(std::vector<std::string> args) {
    args.insert(args.begin(), "compare");
    args.insert(args.end(), {"--store", Db()});
    return testing::RunNicbench(args);
  }
  static std::string* dir_;
};
std::string* CompareCli::dir_ = nullptr;

TEST_F(CompareCli, TextShowsMetricsTildeAndWhatDiffers) {
  auto r = Compare({"label:streams=1", "label:streams=2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("A: label:streams=1  (3 runs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("goodput client->server (receiver)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("server (receiver) CPU per GB"), std::string::npos) << r.out;
  // Three runs a side can never be significant: every change is ~ and no change in percent
  // shows (a figure's own unit may be "%": host idle).
  EXPECT_NE(r.out.find("~ (too few runs)"), std::string::npos) << r.out;
  EXPECT_FALSE(std::regex_search(r.out, std::regex("change [+-][0-9.]+%"))) << r.out;
  // Each end's CPU broken down, and a row no run knows said so with why (no NIC lines here).
  EXPECT_NE(r.out.find("server (receiver) softirq per GB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("server (receiver) host idle"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unknown in 3 runs: not present: no NIC interrupt lines"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("options.streams"), std::string::npos) << r.out;
}

TEST_F(CompareCli, JsonForScripts) {
  auto r = Compare({"label:set=a", "id:4..6", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["a"]["runs"], 3);
  EXPECT_EQ(j["b"]["ids"], json({6, 5, 4}));
  EXPECT_EQ(j["direction"], "forward");
  bool goodput = false;
  for (const auto& m : j["metrics"]) {
    if (m["key"] != "goodput_client_to_server_bits_per_second") continue;
    goodput = true;
    EXPECT_EQ(m["unit"], "bit/s");
    EXPECT_EQ(m["a"]["n"], 3);
    EXPECT_GT(m["a"]["median"].get<double>(), 0);
    EXPECT_EQ(m["verdict"], "too few runs");
    EXPECT_TRUE(m["change_percent"].is_null());
  }
  EXPECT_TRUE(goodput) << r.out;
  bool streams = false;
  for (const auto& d : j["differs"]) {
    if (d["fact"] != "options.streams") continue;
    streams = true;
    EXPECT_EQ(d["a"][0]["value"], "1");
    EXPECT_EQ(d["b"][0]["value"], "2");
    EXPECT_TRUE(d["between"].get<bool>());
  }
  EXPECT_TRUE(streams) << r.out;
}

TEST_F(CompareCli, CsvAndTheOtherSelectors) {
  auto r = Compare({"1", "last:2", "--csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("metric,unit,a_n,", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\ngoodput client->server (receiver),bit/s,1,"), std::string::npos) << r.out;
}

TEST_F(CompareCli, MixedSetIsFlagged) {
  auto r = Compare({"id:1..6", "label:set=a", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  bool flagged = false;
  const json j = json::parse(r.out);
  for (const auto& d : j["differs"]) {
    flagged = flagged || (d["fact"] == "options.streams" && d["a_mixed"].get<bool>());
  }
  EXPECT_TRUE(flagged) << r.out;
}

struct BadCompare {
  std::vector<std::string> args;
  int exit_code;
  std::string message;
};

TEST_F(CompareCli, BadInputSaysWhatAndExits) {
  const std::vector<BadCompare> cases = {
      {{"when:today", "1"}, 2, "unknown kind 'when'"},
      {{"label:tso", "1"}, 2, "tso"},
      {{"1", "abc"}, 2, "not a run id"},
      {{"id:9..3", "1"}, 2, "ends before it starts"},
      {{"999", "1"}, 5, "no run with id 999"},
      {{"1", "label:tso=on"}, 5, "'label:tso=on' matches no run"},
      {{"1"}, 2, "B"},
      {{"1", "2", "--json", "--csv"}, 2, "--csv"},
  };
  for (const BadCompare& c : cases) {
    auto r = Compare(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args[0] << " " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args[0] << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST_F(CompareCli, MissingStoreIsAStoreError) {
  auto r = testing::RunNicbench({"compare", "1", "2", "--store", *dir_ + "/absent.db"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_FALSE(std::filesystem::exists(*dir_ + "/absent.db"));
}

}  // namespace
}  // namespace nicbench
