// A clean loopback run must produce no warning: loopback has no NIC, and its CPU-bound state
// is the nature of the path (docs/diagnosis.md, "Software path").
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"

namespace nicbench {
namespace {

TEST(DiagnosisLoopback, CleanRunHasNoWarning) {
  // Serving once it says so, on the port the kernel picked.
  testing::ServeChild server = testing::StartServe();
  ASSERT_NE(server.port, 0);
  const std::string port_text = std::to_string(server.port);
  auto result = testing::RunNicbench({"run", "127.0.0.1", "-p", port_text, "-t", "3", "--json"});
  if (result.err.find("not built yet") != std::string::npos) {
    GTEST_SKIP() << "nicbench run is not built yet";
  }
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto doc = nlohmann::json::parse(result.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << result.out;
  ASSERT_TRUE(doc.contains("findings")) << "no findings: is Diagnose() called in run_command.cc?";
  ASSERT_FALSE(doc["findings"].empty());
  for (const auto& f : doc["findings"]) {
    std::string severity = f.value("severity", "");
    EXPECT_TRUE(severity == "info" || severity == "notice")
        << f.value("id", "") << ": " << f.value("title", "");
  }
}

}  // namespace
}  // namespace nicbench
