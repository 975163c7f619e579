// FakeNetnsProcesses: the test double of NetnsProcesses. It answers Find() from a list the test
// sets (filtered by namespace name, as the real one does), records what Stop() was asked to
// stop, and lets the test say which processes survive it. Header-only; for unit tests.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "stand/netns_processes.h"

namespace nicbench::stand {

class FakeNetnsProcesses final : public NetnsProcesses {
 public:
  void SetRunning(std::vector<NetnsProcess> running) { running_ = std::move(running); }
  // Stop() leaves these running (as a process in uninterruptible sleep would).
  void SetUnkillable(std::vector<int> pids) { unkillable_ = std::move(pids); }

  Result<std::vector<NetnsProcess>> Find(const std::vector<std::string>& namespaces) override {
    std::vector<NetnsProcess> found;
    for (const auto& p : running_) {
      if (std::count(namespaces.begin(), namespaces.end(), p.netns) != 0) found.push_back(p);
    }
    return found;
  }

  Result<std::vector<NetnsProcess>> Stop(const std::vector<NetnsProcess>& processes,
                                         std::chrono::milliseconds) override {
    stopped_.insert(stopped_.end(), processes.begin(), processes.end());
    std::vector<NetnsProcess> left;
    for (const auto& p : processes) {
      if (std::count(unkillable_.begin(), unkillable_.end(), p.pid) != 0) left.push_back(p);
    }
    std::erase_if(running_, [&](const NetnsProcess& p) {
      return std::count(unkillable_.begin(), unkillable_.end(), p.pid) == 0;
    });
    return left;
  }

  const std::vector<NetnsProcess>& stopped() const { return stopped_; }

 private:
  std::vector<NetnsProcess> running_;
  std::vector<int> unkillable_;
  std::vector<NetnsProcess> stopped_;
};

}  // namespace nicbench::stand
