// The processes that run inside a stand's network namespaces, found and stopped before the
// stand is taken down. Deleting a namespace (`ip netns del`) only removes its name: a process
// still inside keeps the namespace alive, unnamed and unreachable by `stand exec`, so `down`
// looks first and either refuses (naming them) or stops them.
//
// A process is in namespace NS when /proc/PID/ns/net links to the inode that /run/netns/NS (the
// bind mount `ip netns add` makes) has. NetnsProcesses is the seam: ProcNetnsProcesses reads
// /proc and signals through pidfds; unit tests give StandManager a fake. Thread safety: the
// real one holds no state; use each object from one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace nicbench::stand {

struct NetnsProcess {
  int pid = 0;
  std::string netns;         // "nb-h2"
  uint64_t netns_inode = 0;  // the namespace's inode, to recognise the same process later
  std::string command;       // "iperf3 -s" (see CommandLineText)
  bool operator==(const NetnsProcess&) const = default;
};

// "iperf3 -s" from /proc/PID/cmdline's NUL-separated words; "[comm]" when the command line is
// empty (a kernel thread, or a process that cleared it).
std::string CommandLineText(std::string_view cmdline, std::string_view comm);

// The inode in a namespace link's target: "net:[4026532290]" -> 4026532290.
std::optional<uint64_t> ParseNamespaceLink(std::string_view link);

// "pid 4242 in nb-h2 (iperf3 -s), pid 4250 in nb-h1 (sleep 100)": for messages.
std::string FormatProcesses(const std::vector<NetnsProcess>& processes);

class NetnsProcesses {
 public:
  virtual ~NetnsProcesses() = default;
  // The processes whose network namespace is one of the named ones (names under /run/netns),
  // sorted by pid; this process itself is left out. A name that is not there has none.
  virtual Result<std::vector<NetnsProcess>> Find(const std::vector<std::string>& namespaces) = 0;
  // Sends SIGTERM to each process that is still the one found (same pid, same namespace), waits
  // up to `grace` for them to end, sends SIGKILL to the rest and waits up to `grace` again.
  // Returns the ones still running after that (a process in uninterruptible sleep).
  virtual Result<std::vector<NetnsProcess>> Stop(const std::vector<NetnsProcess>& processes,
                                                 std::chrono::milliseconds grace) = 0;
};

class ProcNetnsProcesses final : public NetnsProcesses {
 public:
  Result<std::vector<NetnsProcess>> Find(const std::vector<std::string>& namespaces) override;
  Result<std::vector<NetnsProcess>> Stop(const std::vector<NetnsProcess>& processes,
                                         std::chrono::milliseconds grace) override;
};

}  // namespace nicbench::stand
