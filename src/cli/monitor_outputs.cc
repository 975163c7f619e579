#include "cli/monitor_outputs.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "base/log.h"
#include "report/monitor_report.h"
#include "report/progress_line.h"

namespace nicbench::cli {

EventWriter::~EventWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

Status EventWriter::Open() {
  if (path_.empty()) return Ok();
  file_ = std::fopen(path_.c_str(), "ae");
  if (file_ == nullptr) return Fail(fmt::format("--events {}: cannot open", path_), errno);
  return Ok();
}

void EventWriter::Reopen() {
  if (path_.empty()) return;
  if (file_ != nullptr) std::fclose(file_);
  file_ = std::fopen(path_.c_str(), "ae");
  if (file_ == nullptr) {
    LogWarning(
        fmt::format("--events {}: cannot reopen ({}); events go to stdout until the next "
                    "SIGHUP",
                    path_, std::strerror(errno)));
  }
}

void EventWriter::Write(const record::MonitorEvent& event) {
  const std::string json = report::RenderEventJson(event);
  if (file_ != nullptr) {
    std::fputs(json.c_str(), file_);
    std::fflush(file_);
  }
  const bool to_file = !path_.empty() && file_ != nullptr;
  if (json_stdout_ || (!to_file && !report::StdoutIsTerminal())) {
    std::fputs(json.c_str(), stdout);
  } else if (report::StdoutIsTerminal()) {
    std::fputs(report::RenderEventText(event).c_str(), stdout);
  }
  std::fflush(stdout);
}

Status LogFile::Open() {
  if (path_.empty()) return Ok();
  const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return Fail(fmt::format("--log {}: cannot open", path_), errno);
  // The copy on descriptor 2 has no close-on-exec: stderr stays stderr.
  const int moved = ::dup2(fd, STDERR_FILENO);
  const int error = errno;
  ::close(fd);
  if (moved < 0)
    return Fail(fmt::format("--log {}: cannot put it in place of stderr", path_), error);
  return Ok();
}

void LogFile::Reopen() {
  if (path_.empty()) return;
  if (auto s = Open(); !s) {
    LogWarning(s.error().ToString() + "; the lines go on here until the next SIGHUP");
    return;
  }
  LogInfo(fmt::format("monitor: --log {} reopened (SIGHUP)", path_));
}

std::string DefaultLockDir() {
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  if (runtime != nullptr && *runtime != '\0') return std::string(runtime) + "/nicbench";
  return fmt::format("/tmp/nicbench-{}", ::getuid());
}

Result<PeerLock> PeerLock::Take(const std::string& dir, const std::string& peer, int port) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string name = peer;
  for (char& c : name) {
    if (c == '/' || c == '\0') c = '_';
  }
  const std::string path = fmt::format("{}/monitor-{}-{}.lock", dir, name, port);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Fail(fmt::format("the lock {}: cannot open", path), errno);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {};
    const ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
    ::close(fd);
    return Fail(fmt::format(
        "another monitor (pid {}) watches {} port {} (lock {}): two would "
        "measure each other",
        n > 0 ? std::string(pid, static_cast<size_t>(n)) : "unknown", peer, port, path));
  }
  const std::string mine = std::to_string(::getpid());
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, mine.data(), mine.size(), 0) < 0) {
    // The pid is only for the message of a second monitor; the lock itself holds.
  }
  return PeerLock(fd);
}

PeerLock::~PeerLock() {
  if (fd_ >= 0) ::close(fd_);
}

Status StoreMonitorRun(const StorePlan& plan, const std::string& monitor_id,
                       const record::RunRecord& run) {
  if (!plan.location) return Ok();
  auto store = store::OpenStore(*plan.location, store::OpenMode::kCreate, StoreBusyTimeout());
  if (!store) return tl::unexpected(store.error());
  store::Labels labels = plan.labels;
  labels["monitor"] = monitor_id;
  auto id = (*store)->Put(run, labels);
  if (!id) return tl::unexpected(id.error());
  return Ok();
}

Status StoreMonitorEvent(const StorePlan& plan, const record::MonitorEvent& event) {
  if (!plan.location) return Ok();
  auto store = store::OpenStore(*plan.location, store::OpenMode::kCreate, StoreBusyTimeout());
  if (!store) return tl::unexpected(store.error());
  auto id = (*store)->PutEvent(event);
  if (!id) return tl::unexpected(id.error());
  return Ok();
}

}  // namespace nicbench::cli
