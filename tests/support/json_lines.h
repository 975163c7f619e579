// Test support: the main job's -J output, one JSON document per line (JSON Lines), read back
// as {"runs": [document, ...]} so a test can index the directions. A line that is not JSON
// fails the test.
#pragma once

#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace nicbench::testing {

inline nlohmann::json ParseJsonLines(const std::string& text) {
  nlohmann::json runs = nlohmann::json::array();
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json doc = nlohmann::json::parse(line, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << "not one JSON document per line: " << line;
    runs.push_back(std::move(doc));
  }
  return nlohmann::json{{"runs", std::move(runs)}};
}

}  // namespace nicbench::testing
