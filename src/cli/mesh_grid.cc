#include "cli/mesh_grid.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>

#include "base/exit_code.h"
#include "base/log.h"
#include "base/units.h"
#include "job/agent.h"
#include "report/fleet_report.h"
#include "report/html_report.h"
#include "store/store.h"

namespace nicbench::cli {
namespace {

int Error(ExitCode code, const std::string& message) {
  LogError("nicbench mesh grid: " + message);
  return ToInt(code);
}

Result<report::GridThresholds> Thresholds(const GridArgs& a) {
  report::GridThresholds t;
  for (auto [text, out, name] : {std::tuple{&a.warn, &t.warn_bits_per_second, "--warn"},
                                 std::tuple{&a.crit, &t.crit_bits_per_second, "--crit"}}) {
    if (text->empty()) continue;
    auto rate = ParseBitRate(*text);
    if (!rate) return Fail(fmt::format("{} {}: {}", name, *text, rate.error().message));
    *out = static_cast<double>(*rate);
  }
  auto relative = ParseSeconds(a.relative);  // a non-negative decimal number
  if (!relative || *relative >= 100) {
    return Fail("--relative " + a.relative + ": expected a percentage 0..99");
  }
  t.relative_percent = *relative;
  auto ratio = ParseSeconds(a.asymmetry);
  if (!ratio || *ratio <= 1) return Fail("--asymmetry " + a.asymmetry + ": expected a ratio > 1");
  t.asymmetry_ratio = *ratio;
  if (!a.stale_after.empty()) {
    auto d = ParseDuration(a.stale_after);
    if (!d || d->count() <= 0) return Fail("--stale-after " + a.stale_after + ": a duration");
    t.stale_after_secs = std::chrono::duration<double>(*d).count();
  }
  return t;
}

// The grid page, and beside it each run's report the cells link to ("run-ID.html").
Status WriteHtml(const report::Grid& grid, const std::string& path, const std::string& url) {
  std::ofstream(path) << report::RenderGridHtml(grid, "run-");
  if (!std::filesystem::exists(path)) return Fail(path + ": cannot be written");
  std::vector<int64_t> ids;
  for (const report::GridCell& c : grid.cells) {
    if (c.run_id) ids.push_back(*c.run_id);
  }
  if (ids.empty()) return Ok();
  auto store = store::OpenStore(url, store::OpenMode::kExisting);
  if (!store) return tl::unexpected(store.error());
  auto runs = (*store)->GetMany(ids);
  if (!runs) return tl::unexpected(runs.error());
  const auto dir = std::filesystem::path(path).parent_path();
  for (const store::StoredRun& run : *runs) {
    std::ofstream(dir / fmt::format("run-{}.html", run.summary.id))
        << report::RenderHtml(run.record);
  }
  return Ok();
}

}  // namespace

int RunMeshGrid(store::Fleet& fleet, const store::Mesh& mesh, const GridArgs& a,
                const std::string& url) {
  auto thresholds = Thresholds(a);
  if (!thresholds) return Error(ExitCode::kUsage, thresholds.error().message);
  auto pairs = fleet.Grid(mesh.id);
  if (!pairs) return Error(ExitCode::kStore, pairs.error().message);
  const report::Grid grid = report::BuildGrid(mesh, *pairs, *thresholds, job::WallSeconds());
  if (a.json) {
    std::printf("%s\n", report::GridJson(grid).dump().c_str());
  } else {
    std::fputs(report::RenderGridText(grid).c_str(), stdout);
  }
  if (!a.html.empty()) {
    if (auto s = WriteHtml(grid, a.html, url); !s)
      return Error(ExitCode::kEnvironment, s.error().message);
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace nicbench::cli
