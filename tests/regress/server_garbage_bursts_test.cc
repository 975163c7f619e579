// Bursts of garbage bytes on fresh connections (and on what looks like a data stream of a
// running test) are refused without disturbing the server or a running test.
#include "regress/server_test_util.h"

#include <random>
#include <thread>

namespace nicbench::regress {
namespace {

void GarbageBurst(int port, std::mt19937& rng, size_t bytes) {
  int fd = ConnectRaw(port);
  ASSERT_GE(fd, 0);
  std::string junk(bytes, '\0');
  for (char& c : junk) c = static_cast<char>(rng());
  (void)send(fd, junk.data(), junk.size(), MSG_NOSIGNAL);
  EXPECT_TRUE(ServerCloses(fd));
  close(fd);
}

TEST(ServerGarbageBursts, GarbageIsRefusedAndTestsComplete) {
  ServeChild server = StartServe();
  std::mt19937 rng(12345);
  for (int i = 0; i < 50; ++i) GarbageBurst(server.port, rng, 1 + rng() % 4096);
  // Garbage while a test runs.
  std::thread test([&] {
    auto doc = NormalTest(server.port, {"-t", "2"});
    EXPECT_GT(SumBytes(doc, "sum_received"), 0u);
  });
  for (int i = 0; i < 50; ++i) GarbageBurst(server.port, rng, 1 + rng() % 100);
  test.join();
  auto doc = NormalTest(server.port);
  EXPECT_EQ(SumBytes(doc, "sum_sent"), 1048576u);
}

}  // namespace
}  // namespace nicbench::regress
