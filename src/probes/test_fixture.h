// Test helper of the probes unit tests: the text of a fixture under tests/testdata.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "support/run_binary.h"

namespace nicbench::probes::testing {

inline std::string ReadFixture(const std::string& relative) {
  std::ifstream in(nicbench::testing::TestdataDir() + "/" + relative);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace nicbench::probes::testing
