// 20 clients killed mid-test: each frees its slot (control EOF ends the session), so with
// --max-tests 4 a normal test still completes afterwards.
#include "regress/server_test_util.h"

#include <signal.h>

#include <thread>

#include "support/wait.h"

namespace nicbench::regress {
namespace {

TEST(ServerKilledClients, KilledClientsFreeTheirSlots) {
  // The four come from one address, which may take every slot here.
  ServeChild server = StartServe({"--max-tests", "4", "--max-tests-per-address", "4"});
  for (int round = 0; round < 5; ++round) {
    std::vector<std::unique_ptr<testing::BackgroundProcess>> clients;
    for (int i = 0; i < 4; ++i) {
      clients.push_back(std::make_unique<testing::BackgroundProcess>(
          std::vector<std::string>{testing::NicbenchPath(), "run", "127.0.0.1", "-p",
                                   std::to_string(server.port), "-t", "30", "-i", "0.1"}));
    }
    // Mid-test: each client has printed an interval line (its test is running) before it dies.
    for (auto& c : clients) {
      ASSERT_TRUE(c->WaitForOutput("sec")) << c->StdoutSoFar() << c->StderrSoFar();
    }
    for (auto& c : clients) c->Stop(SIGKILL);
    // Every slot comes back once the server has seen the control EOF: a normal test gets in.
    const bool done = testing::WaitUntil(
        [&] {
          return testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(server.port), "-J",
                                       "-n", "1M", "-P", "1"})
                     .exit_code == 0;
        },
        std::chrono::seconds(60), std::chrono::milliseconds(250));
    EXPECT_TRUE(done) << "round " << round;
  }
  testing::ProcessResult stopped = server.process->Stop(SIGTERM);
  EXPECT_EQ(stopped.exit_code, 130) << stopped.err;
}

}  // namespace
}  // namespace nicbench::regress
