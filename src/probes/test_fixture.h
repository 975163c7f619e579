// Test helper of the probes unit tests: the text of a fixture under tests/testdata.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace nicbench::probes::testing {

inline std::string ReadFixture(const std::string& relative) {
  std::ifstream in(std::string(NICBENCH_TESTDATA) + "/" + relative);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace nicbench::probes::testing
