// Bug (issue 27, item 13): an interrupted run was printed but not stored: Ctrl-C at 50 s of a
// 60 s run lost all 50 s from history. It is now stored marked incomplete; `history` leaves it
// out unless given --incomplete and then marks it, and the exit code stays 130.
#include <signal.h>

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server_test_util.h"
#include "store/store_test_backends.h"

namespace nicbench::regress {
namespace {

nlohmann::json HistoryJson(const std::string& store, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"history", "--store", store, "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  testing::ProcessResult r = testing::RunNicbench(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_TRUE(doc.is_object()) << r.out;
  return doc.is_object() ? doc["runs"] : nlohmann::json::array();
}

TEST(InterruptedRunNotStored, SigintStoresTheRunMarkedIncomplete) {
  store::test::TempDir dir;
  const std::string store = dir.path() + "/r.db";
  ServeChild serve = StartServe();
  testing::BackgroundProcess client({testing::NicbenchPath(), "run", "127.0.0.1", "-p",
                                     std::to_string(serve.port), "-t", "60", "-i", "0.2", "-b",
                                     "100M", "--store", store});
  // The first interval line is printed: data has moved.
  ASSERT_TRUE(client.WaitForOutput("0.00-0.20", std::chrono::seconds(60)))
      << client.StdoutSoFar() << client.StderrSoFar();
  ASSERT_EQ(kill(client.pid(), SIGINT), 0);
  testing::ProcessResult r = client.Wait();
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("nicbench: stored run 1 in sqlite:" + store + ", marked incomplete"),
            std::string::npos)
      << r.err;

  EXPECT_TRUE(HistoryJson(store, {}).empty()) << "left out by default";
  const nlohmann::json runs = HistoryJson(store, {"--incomplete"});
  ASSERT_EQ(runs.size(), 1u) << runs.dump();
  EXPECT_EQ(runs[0]["incomplete"], true) << runs[0].dump();
  EXPECT_GT(runs[0]["duration_seconds"].get<double>(), 0.1) << runs[0].dump();
  EXPECT_LT(runs[0]["duration_seconds"].get<double>(), 60) << runs[0].dump();
  EXPECT_GT(runs[0]["sender_bits_per_second"].get<double>(), 0) << runs[0].dump();

  // `show` prints it again as it printed: marked incomplete.
  testing::ProcessResult show = testing::RunNicbench({"show", "1", "--store", store});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("incomplete"), std::string::npos) << show.out;
}

}  // namespace
}  // namespace nicbench::regress
