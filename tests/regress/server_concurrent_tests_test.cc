// Several clients test at once against one server (iperf3 cannot): each test's streams are
// routed by cookie, so every client's byte counts are exactly its own.
#include "regress/server_test_util.h"

#include <thread>

namespace nicbench::regress {
namespace {

TEST(ServerConcurrentTests, ByteCountsCorrectForEachClient) {
  // All four come from 127.0.0.1, so that one address may have every slot.
  ServeChild server = StartServe({"--max-tests", "4", "--max-tests-per-address", "4"});
  std::vector<nlohmann::json> docs(4);
  std::vector<std::thread> threads;
  const std::vector<std::vector<std::string>> options = {{"-n", "10M"},
                                                         {"-n", "20M", "-P", "2"},
                                                         {"-n", "5M", "-R"},
                                                         {"-n", "8M", "-u", "-b", "200M"}};
  for (size_t i = 0; i < options.size(); ++i) {
    threads.emplace_back([&, i] { docs[i] = NormalTest(server.port, options[i]); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(SumBytes(docs[0], "sum_sent"), 10u << 20);
  EXPECT_EQ(SumBytes(docs[0], "sum_received"), 10u << 20);
  EXPECT_EQ(SumBytes(docs[1], "sum_sent"), 20u << 20);
  EXPECT_EQ(SumBytes(docs[1], "sum_received"), 20u << 20);
  EXPECT_EQ(SumBytes(docs[2], "sum_sent"), 5u << 20);
  EXPECT_EQ(SumBytes(docs[2], "sum_received"), 5u << 20);
  ASSERT_TRUE(docs[3]["end"].contains("sum"));
  EXPECT_GE(docs[3]["end"]["sum"]["bytes"].get<uint64_t>(), 8u << 20);
}

}  // namespace
}  // namespace nicbench::regress
