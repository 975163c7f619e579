// Bug (issue 27, item 1): the loopback main job (`nicbench run` with no host) runs the client
// and the server in one process, and each end reported the whole process's CPU (getrusage
// RUSAGE_SELF): in the demo both ends showed `nicbench 0.020 user + 0.214 system`, the
// transfer's cost came out above the host's busy time, and the doubled figures were stored.
// Each end now counts its own threads (controller and workers), so the two ends add up to the
// process, not to twice it.
#include <sys/resource.h>

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/json_lines.h"
#include "support/run_binary.h"

namespace nicbench::regress {
namespace {

double Seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

// CPU seconds of every child this test process has waited for so far.
double ChildrenCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return Seconds(usage.ru_utime) + Seconds(usage.ru_stime);
}

// One end's process use summed over its samples.
double EndCpuSeconds(const nlohmann::json& end) {
  double sum = 0;
  if (!end.is_object() || !end.contains("samples")) return sum;
  for (const auto& sample : end["samples"]) {
    const auto& p = sample["process"];
    if (!p.is_object()) continue;
    sum += p["user_seconds"].get<double>() + p["system_seconds"].get<double>();
  }
  return sum;
}

TEST(LoopbackCpuCountedOnce, BothEndsAddUpToTheProcess) {
  const double before = ChildrenCpuSeconds();
  testing::ProcessResult r = testing::RunNicbench({"run", "-t", "2", "-J", "--no-store"});
  const double process = ChildrenCpuSeconds() - before;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json docs = testing::ParseJsonLines(r.out)["runs"];
  ASSERT_EQ(docs.size(), 2u) << r.out.substr(0, 400);  // forward, then reverse
  double ends = 0;
  for (const nlohmann::json& doc : docs) {
    const double local = EndCpuSeconds(doc["local"]);
    const double remote = EndCpuSeconds(doc["remote"]);
    EXPECT_GT(local, 0) << "the client's samples carry its threads' CPU";
    EXPECT_GT(remote, 0) << "the server's samples carry its threads' CPU";
    ends += local + remote;
  }
  ASSERT_GT(process, 0);
  // The samples cover the tests' windows, most of the process's life: the ends' sum is most of
  // the process and never more (each end reporting the process made it about twice). The
  // margin is the per-thread clock tick (10 ms) of each thread's reading.
  EXPECT_LE(ends, process * 1.05 + 0.1) << "ends " << ends << " s, process " << process << " s";
  EXPECT_GE(ends, process * 0.5) << "ends " << ends << " s, process " << process << " s";
}

}  // namespace
}  // namespace nicbench::regress
