// --json-stream read the way an iperf3 --json-stream consumer reads it: line by line, each line
// one JSON object with "event" and "data", dispatched on the event name; and --timestamps.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"

namespace nicbench {
namespace {

using nlohmann::json;

// A minimal consumer: what it saw, by event.
struct Consumer {
  int starts = 0, ends = 0, errors = 0, unknown = 0;
  std::vector<json> intervals;
  json start, end;
  std::vector<std::string> order;
  void Feed(const std::string& line) {
    const json event = json::parse(line);  // one whole object per line
    const std::string name = event.at("event").get<std::string>();
    order.push_back(name);
    if (name == "start") {
      ++starts;
      start = event.at("data");
    } else if (name == "interval") {
      intervals.push_back(event.at("data"));
    } else if (name == "end") {
      ++ends;
      end = event.at("data");
    } else if (name == "error") {
      ++errors;
    } else {
      ++unknown;  // an iperf3 consumer skips events it does not know
    }
  }
};

TEST(JsonStream, EventsAsIperf3WritesThemWithBothEndsSamples) {
  auto server = testing::StartServe();
  auto run = testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(server.port), "-t", "1",
                                   "-i", "0.25", "--json-stream", "--no-store"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Consumer c;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    ASSERT_NO_THROW(c.Feed(line)) << line;
  }
  ASSERT_EQ(c.starts, 1);
  ASSERT_EQ(c.ends, 1);
  EXPECT_EQ(c.errors, 0);
  EXPECT_EQ(c.order.front(), "start");
  EXPECT_EQ(c.order.back(), "end");
  EXPECT_TRUE(c.start.contains("connected"));
  EXPECT_TRUE(c.start.contains("test_start"));
  ASSERT_GE(c.intervals.size(), 3u);
  double sum_bytes = 0;
  for (const json& i : c.intervals) {
    ASSERT_TRUE(i["streams"].is_array());
    ASSERT_TRUE(i["sum"]["bits_per_second"].is_number());
    sum_bytes += i["sum"]["bytes"].get<double>();
    EXPECT_TRUE(i["nicbench"]["local"].is_object()) << "this end's sample of the interval";
    EXPECT_TRUE(i["nicbench"].contains("remote"));
  }
  EXPECT_GT(sum_bytes, 0);
  ASSERT_TRUE(c.end["streams"].is_array());
  EXPECT_TRUE(c.end["sum_received"]["bytes"].is_number());
  EXPECT_TRUE(c.end["nicbench"]["remote"].is_object()) << "the server's record at the end";
  EXPECT_TRUE(c.end["nicbench"]["findings"].is_array());
}

TEST(JsonStream, NoTextLinesAndNoFinalDocument) {
  auto server = testing::StartServe();
  auto run = testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(server.port), "-t",
                                   "0.5", "-J", "--json-stream", "--no-store"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    ASSERT_FALSE(line.empty());
    EXPECT_EQ(line.front(), '{') << line;
    EXPECT_TRUE(json::parse(line).contains("event")) << line;
  }
}

TEST(Timestamps, EveryOutputLineGetsTheFormattedTime) {
  auto server = testing::StartServe();
  auto run =
      testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(server.port), "-t", "0.5",
                            "-i", "0.25", "--no-store", "--timestamps=TS%Y ", "--forceflush"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::istringstream lines(run.out);
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    EXPECT_EQ(line.rfind("TS20", 0), 0u) << line;
  }
  EXPECT_GT(n, 3);
}

}  // namespace
}  // namespace nicbench
