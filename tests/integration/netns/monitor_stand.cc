#include "integration/netns/monitor_stand.h"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "store/store.h"

namespace nicbench::accuracy {

std::string FileText(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<nlohmann::json> AllEvents(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    auto e = nlohmann::json::parse(line, nullptr, false);
    if (e.is_object() && e.value("type", "") == "event") out.push_back(std::move(e));
  }
  return out;
}

std::vector<nlohmann::json> Events(const std::string& path, const std::string& kind,
                                   const std::string& state) {
  std::vector<nlohmann::json> out;
  for (nlohmann::json& e : AllEvents(path)) {
    if (e["kind"] == kind && e["state"] == state) out.push_back(std::move(e));
  }
  return out;
}

size_t StoredRuns(const std::string& db, const std::string& id) {
  auto store = store::OpenStore(db, store::OpenMode::kExisting);
  if (!store) return 0;
  store::RunQuery q;
  q.labels["monitor"] = id;
  auto runs = (*store)->Find(q);
  return runs ? runs->size() : 0;
}

StandMonitor::StandMonitor(const stand::ScopedStand& st, const std::string& id,
                           const std::vector<std::string>& args, bool prioritized)
    : dir(std::filesystem::temp_directory_path() / ("nicbench-" + id)) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const stand::HostInfo& peer = st.host(2);
  server = std::make_unique<testing::BackgroundProcess>(
      Prioritized(NicbenchIn(peer, {"serve", "-p", "5201", "-B", peer.address})));
  EXPECT_TRUE(WaitForListener(peer, 5201)) << server->StderrSoFar();
  std::vector<std::string> argv = {"monitor", peer.address, "--store", runs(), "--events",
                                   events(),  "--lock-dir", dir,       "--id", id};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> command = NicbenchIn(st.host(1), argv);
  monitor =
      std::make_unique<testing::BackgroundProcess>(prioritized ? Prioritized(command) : command);
}

StandMonitor::~StandMonitor() {
  monitor->Stop();
  server->Stop();
  std::filesystem::remove_all(dir);
}

testing::ProcessResult Tbf(const stand::HostInfo& host, const std::string& rate,
                           const std::string& burst, const std::string& limit) {
  return Run(InHost(host, {"tc", "qdisc", "replace", "dev", host.interface, "root", "handle",
                           "1:", "tbf", "rate", rate, "burst", burst, "limit", limit}));
}

}  // namespace nicbench::accuracy
