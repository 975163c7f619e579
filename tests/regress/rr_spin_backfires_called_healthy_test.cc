// Bug: `--rr-spin 50` on a 2-vCPU host cut transactions from 38,147/s to 5,987/s (p50 120 us
// against 17.8) and the run was called healthy (issue 27, item 5): with a client and a server on
// one host, each flow's worker thread at each end polls, and one flow's two pollers took both
// cores. Now `rr-spin-backfires` says so when the polling threads are at least as many as the
// cores they share. Loopback, against `nicbench serve` on 127.0.0.1: -P is half the CPUs this
// test may use (rounded up), so the pollers of the two ends take every one of them (-P 1 on
// the 2-CPU build VM, the case).
#include <sched.h>

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"

namespace nicbench::regress {
namespace {

int UsableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return CPU_COUNT(&set);
}

TEST(RrSpinBackfiresCalledHealthy, PollersOnEveryCoreAreAWarningNotHealthy) {
  testing::ServeChild serve = testing::StartServe();
  ASSERT_NE(serve.port, 0);
  const int flows = (UsableCpus() + 1) / 2;
  testing::ProcessResult r = testing::RunNicbench(
      {"run", "127.0.0.1", "-p", std::to_string(serve.port), "--rr", "--rr-spin", "50", "-P",
       std::to_string(flows), "-t", "2", "-J", "--no-store"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  std::string ids;
  const nlohmann::json* backfires = nullptr;
  for (const auto& f : doc.at("findings")) {
    ids += f.at("id").get<std::string>() + " ";
    if (f.at("id") == "rr-spin-backfires") backfires = &f;
  }
  ASSERT_NE(backfires, nullptr) << ids;
  EXPECT_EQ(backfires->at("severity"), "warning");
  EXPECT_EQ(ids.find("no-problem-found"), std::string::npos) << ids;
  EXPECT_NE(backfires->at("title").get<std::string>().find(std::to_string(2 * flows) +
                                                           " polling threads"),
            std::string::npos)
      << backfires->dump(1);
}

}  // namespace
}  // namespace nicbench::regress
