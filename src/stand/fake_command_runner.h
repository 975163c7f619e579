// FakeCommandRunner: the test double of CommandRunner. It records every argv it is asked to
// run and answers from a table of canned outputs keyed by the argv's leading words; anything
// not in the table succeeds with empty output. Header-only; for unit tests.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "stand/command_runner.h"

namespace nicbench::stand {

class FakeCommandRunner final : public CommandRunner {
 public:
  // Every later argv that begins with `prefix` gets `output` (the latest matching rule wins).
  void Answer(Argv prefix, CommandOutput output) {
    rules_.emplace_back(std::move(prefix), std::move(output));
  }

  Result<CommandOutput> Run(const Argv& argv) override {
    ran_.push_back(argv);
    for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
      const Argv& prefix = it->first;
      if (prefix.size() <= argv.size() && std::equal(prefix.begin(), prefix.end(), argv.begin())) {
        return it->second;
      }
    }
    return CommandOutput{};
  }

  const std::vector<Argv>& ran() const { return ran_; }
  // True when some recorded argv equals `argv` exactly.
  bool Ran(const Argv& argv) const {
    return std::find(ran_.begin(), ran_.end(), argv) != ran_.end();
  }
  // How many recorded argvs begin with `prefix`.
  size_t CountWithPrefix(const Argv& prefix) const {
    size_t count = 0;
    for (const auto& argv : ran_) {
      if (prefix.size() <= argv.size() && std::equal(prefix.begin(), prefix.end(), argv.begin())) {
        ++count;
      }
    }
    return count;
  }
  void ClearLog() { ran_.clear(); }

 private:
  std::vector<std::pair<Argv, CommandOutput>> rules_;
  std::vector<Argv> ran_;
};

}  // namespace nicbench::stand
