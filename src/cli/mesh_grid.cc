#include "cli/mesh_grid.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>

#include "base/exit_code.h"
#include "base/log.h"
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
                const report::GridThresholds& thresholds, const std::string& url) {
  auto pairs = fleet.Grid(mesh.id);
  if (!pairs) return Error(ExitCode::kStore, pairs.error().message);
  const report::Grid grid = report::BuildGrid(mesh, *pairs, thresholds, job::WallSeconds());
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
