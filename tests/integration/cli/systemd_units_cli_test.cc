// The systemd units of deploy/systemd pass `systemd-analyze verify` (run against the binary
// under test: the installed path is not there in a build tree, nor the man pages their
// Documentation= names), the monitor's as an instance for a peer; skipped where systemd-analyze
// is not installed. scripts/package-test verifies the installed units again.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "support/run_binary.h"

namespace nicbench {
namespace {

// `unit` from deploy/systemd written to DIR/NAME with ExecStart's binary the one under test.
std::string Staged(const std::string& unit, const std::string& dir, const std::string& name) {
  std::ifstream in(testing::SourceDir() + "/deploy/systemd/" + unit);
  std::ostringstream out;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("Documentation=")) continue;
    const size_t at = line.find("/usr/bin/nicbench");
    if (at != std::string::npos) line.replace(at, 17, testing::NicbenchPath());
    out << line << "\n";
  }
  const std::string path = dir + "/" + name;
  std::ofstream(path) << out.str();
  return path;
}

// The lines of verify's output about nicbench's units. verify also loads the units ours are
// ordered against and reports their warnings (another package's unit that runs as `nobody`):
// those are the host's, not ours.
std::string OurLines(const std::string& text) {
  std::istringstream in(text);
  std::string ours;
  for (std::string line; std::getline(in, line);) {
    if (line.find("nicbench") != std::string::npos) ours += line + "\n";
  }
  return ours;
}

TEST(SystemdUnits, OnlyNicbenchsOwnLinesCount) {
  EXPECT_EQ(OurLines("/lib/systemd/system/irtt.service:9: Special user nobody configured, this "
                     "is not safe!\n"),
            "");
  EXPECT_EQ(OurLines("/tmp/u/nicbench-serve.service:12: Unknown key name 'Foo'\n"),
            "/tmp/u/nicbench-serve.service:12: Unknown key name 'Foo'\n");
}

TEST(SystemdUnits, VerifyClean) {
  if (!testing::HaveProgram("systemd-analyze")) {
    GTEST_SKIP() << "systemd-analyze is not installed: the units are not verified";
  }
  const std::string dir =
      std::filesystem::temp_directory_path() / ("nicbench-units-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const auto& [unit, name] :
       {std::pair<std::string, std::string>{"nicbench-serve.service", "nicbench-serve.service"},
        {"nicbench-monitor@.service", "nicbench-monitor@nas.example.service"},
        {"nicbench-agent.service", "nicbench-agent.service"}}) {
    const std::string path = Staged(unit, dir, name);
    testing::ProcessResult r = testing::RunProcess({"systemd-analyze", "verify", path});
    EXPECT_EQ(r.exit_code, 0) << unit << ": " << r.out << r.err;
    EXPECT_EQ(OurLines(r.out + r.err), "") << unit;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nicbench
