// compare's what-differs table names each end's busiest-core CPU frequency, kept with the run in
// the store (the store does not keep the samples the busiest core is judged from). Two stored
// runs whose client read the powersave cpufreq capture (tests/testdata/roots/
// pfs-cpufreq-powersave, intel_pstate at 1.2 GHz of 3.3), one of them set to performance; their
// server ran on a VM without cpufreq.
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "diagnosis/test_records.h"
#include "probes/collect_facts.h"
#include "store/store.h"
#include "support/run_binary.h"

namespace nicbench {
namespace {

using nlohmann::json;

record::RunRecord RunWithGovernor(const std::string& governor) {
  record::RunRecord run = diagnosis::testing::MakeRun(700e6);
  probes::DirFileSource files(testing::TestdataDir() + "/roots/pfs-cpufreq-powersave");
  run.local.host.cpu_frequencies = probes::ReadCpuFrequencies(files, {0, 1, 2, 3});
  run.local.host.cpu_frequencies.value()[0].governor = governor;
  diagnosis::testing::SetCpu(run.local, 1, 50, 20, 0, 10);
  probes::DirFileSource vm(testing::TestdataDir() + "/roots/vm-6.18-place");
  run.remote.value().host.cpu_frequencies = probes::ReadCpuFrequencies(vm, {0, 1});
  return run;
}

TEST(CompareFrequency, WhatDiffersShowsTheBusiestCoresGovernorAndFrequency) {
  const std::string dir = std::filesystem::temp_directory_path() /
                          ("nicbench-compare-freq-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string db = dir + "/results.db";
  {
    auto store = store::OpenStore(db);
    ASSERT_TRUE(store) << store.error().message;
    ASSERT_TRUE((*store)->Put(RunWithGovernor("powersave"), {{"gov", "powersave"}}));
    ASSERT_TRUE((*store)->Put(RunWithGovernor("performance"), {{"gov", "performance"}}));
  }
  auto r = testing::RunNicbench(
      {"compare", "label:gov=powersave", "label:gov=performance", "--store", db, "--json"});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  bool client = false;
  const json doc = json::parse(r.out);
  for (const auto& d : doc["differs"]) {
    if (d["fact"] == "client.cpu-frequency") {
      client = true;
      EXPECT_EQ(d["a"][0]["value"], "cpu1 powersave 1.20 GHz of 3.30 GHz (intel_pstate)");
      EXPECT_EQ(d["b"][0]["value"], "cpu1 performance 1.20 GHz of 3.30 GHz (intel_pstate)");
      EXPECT_TRUE(d["between"].get<bool>());
    }
    // The server's value is the same unknown in both sets, so it is not a difference.
    EXPECT_NE(d["fact"], "server.cpu-frequency") << r.out;
  }
  EXPECT_TRUE(client) << r.out;
}

}  // namespace
}  // namespace nicbench
