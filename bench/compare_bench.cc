// compare_bench: `nicbench compare` of two sets of 1,000 stored runs (issue target: < 500 ms).
// Fills a fresh SQLite store in a temporary directory with 2 x N synthetic runs (both ends
// reporting, 10 host samples each, set a with TSO on, set b with TSO off), then times the
// command's whole path in process: resolve both selectors, load the summaries and facts,
// compute the statistics and what differs, render the text. Prints the median of 5 repeats.
//   cmake --build build --target compare_bench && build/bench/compare_bench [N]
// The binary itself can be timed on the store this leaves when KEEP=1 is set:
//   time build/nicbench compare label:set=a label:set=b --store /tmp/.../results.db
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/compare_sets.h"
#include "analysis/test_runs.h"
#include "cli/selector.h"
#include "report/compare_report.h"
#include "store/store.h"

using namespace nicbench;

namespace {

std::vector<const analysis::RunInput*> Pointers(const std::vector<analysis::RunInput>& v) {
  std::vector<const analysis::RunInput*> out;
  out.reserve(v.size());
  for (const auto& i : v) out.push_back(&i);
  return out;
}

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// The whole path, and its phases: store queries (Find), facts and figures (LoadInputs), the
// statistics and what differs (CompareInputs), rendering.
double CompareOnce(store::Store& s) {
  const auto start = std::chrono::steady_clock::now();
  auto a = cli::ParseSelector("label:set=a");
  auto b = cli::ParseSelector("label:set=b");
  auto runs_a = cli::Resolve(s, *a);
  auto runs_b = cli::Resolve(s, *b);
  const double find_ms = Since(start);
  if (std::getenv("FACTS_ONLY")) {
    const auto t = std::chrono::steady_clock::now();
    auto fa = s.GetFacts(cli::IdsOf(*runs_a));
    auto fb = s.GetFacts(cli::IdsOf(*runs_b));
    std::printf("  store GetFacts alone: %.1f ms\n", Since(t));
  }
  auto in_a = cli::LoadInputs(s, *runs_a);
  auto in_b = cli::LoadInputs(s, *runs_b);
  if (!in_a || !in_b) {
    std::fprintf(stderr, "load failed\n");
    std::exit(1);
  }
  const double load_ms = Since(start) - find_ms;
  const analysis::SetComparison c = analysis::CompareInputs(Pointers(*in_a), Pointers(*in_b));
  const double compare_ms = Since(start) - find_ms - load_ms;
  const std::string text =
      report::RenderCompareText(c, {"a", cli::IdsOf(*runs_a)}, {"b", cli::IdsOf(*runs_b)});
  const double ms = Since(start);
  std::printf("  %.1f ms: find %.1f, load facts %.1f, statistics+differs %.1f, render %.1f\n", ms,
              find_ms, load_ms, compare_ms, ms - find_ms - load_ms - compare_ms);
  if (text.find("offload.tcp-segmentation-offload") == std::string::npos) std::exit(1);
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  const std::string dir = std::filesystem::temp_directory_path() /
                          ("nicbench-compare-bench-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto s = store::OpenStore(dir + "/results.db");
  if (!s) {
    std::fprintf(stderr, "%s\n", s.error().message.c_str());
    return 1;
  }
  const auto fill_start = std::chrono::steady_clock::now();
  for (int i = 0; i < 2 * n; ++i) {
    analysis::testing::RunShape shape;
    shape.tso = i % 2 == 0;
    shape.busy_percent = 20 + (i % 7) + (shape.tso ? 0 : 10);
    shape.bits_per_second = 8e9 + (i % 13) * 1e7;
    auto id = (*s)->Put(analysis::testing::MakeRun(shape, 10), {{"set", shape.tso ? "a" : "b"}});
    if (!id) {
      std::fprintf(stderr, "%s\n", id.error().message.c_str());
      return 1;
    }
  }
  std::printf("stored 2 x %d runs in %.1f s\n", n,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - fill_start).count());
  std::vector<double> ms;
  ms.reserve(5);
  for (int r = 0; r < 5; ++r) ms.push_back(CompareOnce(**s));
  std::sort(ms.begin(), ms.end());
  std::printf("compare of two sets of %d runs: median %.1f ms (min %.1f, max %.1f, 5 repeats)\n", n,
              ms[2], ms[0], ms[4]);
  if (std::getenv("KEEP")) {
    std::printf("store kept: %s/results.db\n", dir.c_str());
  } else {
    std::filesystem::remove_all(dir);
  }
  return 0;
}
