// The kind of a client run's failure, which the cli turns into the exit code: a refused
// connection, a stop by the user. Real sockets on 127.0.0.1.
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>

#include <gtest/gtest.h>

#include "engine/client.h"
#include "support/run_binary.h"

namespace nicbench {
namespace {

engine::ClientConfig ConfigFor(int port) {
  engine::ClientConfig config;
  config.host = "127.0.0.1";
  config.port = static_cast<uint16_t>(port);
  config.spec.duration = std::chrono::milliseconds(2000);
  config.spec.interval = std::chrono::milliseconds(100);
  config.connect_timeout = std::chrono::milliseconds(2000);
  return config;
}

TEST(ClientErrorKind, RefusedConnectionIsAConnectFailure) {
  // A bound socket that does not listen: a connect to its port is refused, and no other test
  // can take the port meanwhile.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  engine::ClientOutcome outcome = engine::RunClient(ConfigFor(ntohs(addr.sin_port)));
  close(fd);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status.error().kind, ErrorKind::kConnect);
  EXPECT_EQ(outcome.record.error.value_or(""), outcome.status.error().ToString());
}

TEST(ClientErrorKind, StopDuringTheTestIsAnInterruption) {
  auto server = testing::StartServe();
  const int stop = eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK);  // already readable
  ASSERT_GE(stop, 0);
  engine::ClientConfig config = ConfigFor(server.port);
  config.stop_fd = stop;
  engine::ClientOutcome outcome = engine::RunClient(config);
  close(stop);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status.error().kind, ErrorKind::kInterrupted);
  EXPECT_EQ(outcome.status.error().message, "interrupted");
  EXPECT_TRUE(outcome.record.incomplete);  // what was measured up to the stop is kept
}

}  // namespace
}  // namespace nicbench
