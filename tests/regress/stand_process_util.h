// Shared by the stand process-control regression tests: a command that writes its pid to a file
// from inside a namespace (the event a test waits for), and whether a pid is gone. Header-only.
#pragma once

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "stand/stand.h"
#include "support/wait.h"

namespace nicbench::regress {

#define SKIP_UNLESS_STAND_PRIVILEGES()                                                     \
  if (!stand::HaveNetnsPrivileges())                                                       \
  GTEST_SKIP() << "stand tests need root (CAP_NET_ADMIN/CAP_SYS_ADMIN) to create network " \
                  "namespaces; run ctest -L regress as root"

// A temporary directory, removed with what is in it.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/nb-regress-XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// `sh -c` that writes its pid to `pid_file` (whole, by a rename) and then becomes `sleep 1000`
// under the same pid: the process a test waits for and later looks for.
inline std::vector<std::string> SleeperWritingPid(const std::string& pid_file) {
  return {"sh", "-c",
          "echo $$ > " + pid_file + ".tmp && mv " + pid_file + ".tmp " + pid_file +
              " && exec sleep 1000"};
}

// The pid in `pid_file` once it is there (0 when it did not appear within the bound).
inline int WaitForPidFile(const std::string& pid_file) {
  int pid = 0;
  testing::WaitUntil([&] {
    std::ifstream in(pid_file);
    return static_cast<bool>(in >> pid);
  });
  return pid;
}

// True when `pid` no longer runs: no /proc entry, or a zombie waiting for its parent to reap it.
inline bool Gone(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  if (!in) return true;
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
}

// Kills `pid` at the end of a test if it still runs, so a failing test leaves no sleeper behind.
class KillAtExit {
 public:
  explicit KillAtExit(int pid) : pid_(pid) {}
  ~KillAtExit() {
    if (pid_ > 0 && !Gone(pid_)) kill(pid_, SIGKILL);
  }
  KillAtExit(const KillAtExit&) = delete;
  KillAtExit& operator=(const KillAtExit&) = delete;

 private:
  int pid_;
};

}  // namespace nicbench::regress
