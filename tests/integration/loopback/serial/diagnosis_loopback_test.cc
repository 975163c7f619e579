// A clean loopback run must produce no warning: loopback has no NIC, and its CPU-bound state
// is the nature of the path (docs/diagnosis.md, "Software path").
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"

namespace nicbench {
namespace {

bool Listening(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

TEST(DiagnosisLoopback, CleanRunHasNoWarning) {
  int port = testing::FreeTcpPort();
  std::string port_text = std::to_string(port);
  testing::BackgroundProcess server(
      {testing::NicbenchPath(), "serve", "-B", "127.0.0.1", "-p", port_text});
  // Startup wait for the listener (a safety limit, not a timing assertion).
  for (int i = 0; i < 100 && !Listening(port); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto result = testing::RunNicbench({"run", "127.0.0.1", "-p", port_text, "-t", "3", "--json"});
  if (result.err.find("not built yet") != std::string::npos) {
    GTEST_SKIP() << "nicbench run is not built yet";
  }
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto doc = nlohmann::json::parse(result.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << result.out;
  ASSERT_TRUE(doc.contains("findings")) << "no findings: is Diagnose() called in run_command.cc?";
  ASSERT_FALSE(doc["findings"].empty());
  // On a busy host (CI's neighbours, the hog of scripts/check --stress) the run is held back by
  // other processes and says so ("other processes take ~N% of it"), and its intervals may vary
  // with them: those warnings are true of a loaded host, not false alarms about loopback.
  bool busy_host = false;
  for (const auto& f : doc["findings"]) {
    busy_host = busy_host ||
                f.value("title", "").find("other processes take") != std::string::npos;
  }
  for (const auto& f : doc["findings"]) {
    const std::string severity = f.value("severity", ""), id = f.value("id", "");
    const bool competition = id == "sender-cpu-bound" || id == "receiver-cpu-bound" ||
                             id == "cpu-bound" || id == "measurement-unsteady";
    EXPECT_TRUE(severity == "info" || severity == "notice" || (busy_host && competition))
        << id << ": " << f.value("title", "");
  }
}

}  // namespace
}  // namespace nicbench
