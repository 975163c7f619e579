// Regression: RequestStop wrote the wake-up before setting its flag, so the acceptor could wake,
// see no stop request, and sleep forever: the loopback main job then hung at exit now and then
// (often under ASan, where timing shifts). Many start/stop cycles make the window likely to be hit
// if it ever comes back.
#include <thread>

#include <gtest/gtest.h>

#include "engine/server.h"

namespace nicbench::engine {
namespace {

TEST(ServerRequestStop, StopsEveryTime) {
  for (int i = 0; i < 200; ++i) {
    ServerConfig config;
    config.bind_address = "127.0.0.1";
    config.port = 0;
    config.log_tests = false;
    auto server = Server::Create(config);
    ASSERT_TRUE(server.has_value()) << server.error().ToString();
    std::thread serving([&] { (void)(*server)->Run(); });
    (*server)->RequestStop();
    serving.join();  // hangs (and the ctest timeout fails the test) if the wake-up is lost
  }
}

}  // namespace
}  // namespace nicbench::engine
