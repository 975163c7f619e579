// Bug: scripts/demo ended on the run's last lines, leaving a new user with no idea what to do
// next. It now ends with the next steps: a server on the far end, a run against it, the stand,
// and compare. Run here on the built binary (NICBENCH_BIN skips the install and the build).
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "support/run_binary.h"

namespace nicbench::regress {
namespace {

TEST(DemoEndsWithNextSteps, TheLastLinesSayWhatToTryNext) {
  // A demo without the NICBENCH_BIN knob would install and build: fail instead of running it.
  std::ifstream script(nicbench::testing::SourceDir() + "/scripts/demo");
  const std::string text((std::istreambuf_iterator<char>(script)), {});
  ASSERT_NE(text.find("NICBENCH_BIN"), std::string::npos)
      << "scripts/demo cannot run a built binary";
  const std::string command = std::string("NICBENCH_BIN=") + testing::NicbenchPath() + " " +
                              nicbench::testing::SourceDir() +
                              "/scripts/demo -t 1 --no-store 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  pclose(pipe);
  const size_t next = out.rfind("Next steps");
  ASSERT_NE(next, std::string::npos) << out;
  const std::string tail = out.substr(next);
  for (const char* step : {"nicbench serve", "nicbench run HOST", "stand up", "compare"}) {
    EXPECT_NE(tail.find(step), std::string::npos) << step << "\n" << tail;
  }
}

}  // namespace
}  // namespace nicbench::regress
