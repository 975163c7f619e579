#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>

#include <fmt/format.h>

#include "stand/netns_processes.h"

namespace nicbench::stand {
namespace {

constexpr const char kNetnsDir[] = "/run/netns/";

// Through syscall(2): glibc 2.36's <sys/pidfd.h> declares these without extern "C" (fixed in
// 2.37), so C++ cannot link them. pidfds need kernel 5.3 (pidfd_open) and 5.1 (send_signal).
int PidfdOpen(int pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }
void PidfdSignal(int fd, int sig) { syscall(SYS_pidfd_send_signal, fd, sig, nullptr, 0); }

std::optional<uint64_t> NamespaceOfPid(int pid) {
  char link[64];
  ssize_t n = readlink(fmt::format("/proc/{}/ns/net", pid).c_str(), link, sizeof link);
  // A zombie or a process that just ended has no link any more: it holds no namespace.
  if (n <= 0 || static_cast<size_t>(n) >= sizeof link) return std::nullopt;
  return ParseNamespaceLink(std::string_view(link, static_cast<size_t>(n)));
}

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<int> AllPids() {
  std::vector<int> pids;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return pids;
  while (dirent* entry = readdir(dir)) {
    char* end = nullptr;
    long pid = std::strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0' && pid > 0) pids.push_back(static_cast<int>(pid));
  }
  closedir(dir);
  std::sort(pids.begin(), pids.end());
  return pids;
}

// A pidfd of `p` when it is still the process found (it may have ended, and its pid been
// reused): opened first, then the namespace checked, so the fd names the checked process.
int OpenIfStillThere(const NetnsProcess& p) {
  int fd = PidfdOpen(p.pid);
  if (fd < 0) return -1;
  if (NamespaceOfPid(p.pid) != p.netns_inode) {
    close(fd);
    return -1;
  }
  return fd;
}

// Waits until every pidfd in `fds` is readable (its process ended) or `grace` has passed;
// drops the ended ones from `fds` (closing them) and their processes from `processes`.
void WaitForExits(std::vector<int>& fds, std::vector<NetnsProcess>& processes,
                  std::chrono::milliseconds grace) {
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (!fds.empty()) {
    std::vector<pollfd> polled;
    polled.reserve(fds.size());
    for (int fd : fds) polled.push_back({fd, POLLIN, 0});
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    int ready =
        poll(polled.data(), polled.size(), static_cast<int>(std::max<int64_t>(0, left.count())));
    if (ready < 0 && errno == EINTR) continue;
    for (size_t i = polled.size(); i-- > 0;) {
      if (polled[i].revents == 0) continue;
      close(fds[i]);
      fds.erase(fds.begin() + static_cast<long>(i));
      processes.erase(processes.begin() + static_cast<long>(i));
    }
    if (ready <= 0) return;
  }
}

}  // namespace

Result<std::vector<NetnsProcess>> ProcNetnsProcesses::Find(
    const std::vector<std::string>& namespaces) {
  std::map<uint64_t, std::string> named;
  for (const auto& netns : namespaces) {
    struct stat st {};
    if (stat((kNetnsDir + netns).c_str(), &st) == 0) named[st.st_ino] = netns;
  }
  std::vector<NetnsProcess> found;
  if (named.empty()) return found;
  const int self = getpid();
  for (int pid : AllPids()) {
    auto inode = NamespaceOfPid(pid);
    if (pid == self || !inode || named.count(*inode) == 0) continue;
    std::string base = fmt::format("/proc/{}/", pid);
    found.push_back({pid, named[*inode], *inode,
                     CommandLineText(ReadWhole(base + "cmdline"), ReadWhole(base + "comm"))});
  }
  return found;
}

Result<std::vector<NetnsProcess>> ProcNetnsProcesses::Stop(
    const std::vector<NetnsProcess>& processes, std::chrono::milliseconds grace) {
  std::vector<int> fds;
  std::vector<NetnsProcess> running;
  for (const auto& p : processes) {
    int fd = OpenIfStillThere(p);
    if (fd < 0) continue;
    fds.push_back(fd);
    running.push_back(p);
  }
  for (int sig : {SIGTERM, SIGKILL}) {
    for (int fd : fds) PidfdSignal(fd, sig);
    WaitForExits(fds, running, grace);
  }
  for (int fd : fds) close(fd);
  return running;
}

}  // namespace nicbench::stand
