// Test support: a busy loop on every CPU of the machine, as a host busy with other work would
// have, for the tests that check a finding stays true beside it; stopped (SIGTERM, then SIGKILL)
// when the value goes.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/run_binary.h"

namespace nicbench::testing {

struct CpuHogs {
  CpuHogs() {
    const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < cpus; ++i) {
      hogs.push_back(std::make_unique<BackgroundProcess>(
          std::vector<std::string>{"sh", "-c", "while :; do :; done"}));
    }
  }
  std::vector<std::unique_ptr<BackgroundProcess>> hogs;
};

}  // namespace nicbench::testing
