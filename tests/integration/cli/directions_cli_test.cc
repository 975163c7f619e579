// The two directions side by side (issue 27 item 8): the loopback main job and `run HOST
// --both-directions` against a `nicbench serve` print one table after the two summaries, with the
// pair's findings under it, and -J's second document carries the same rows as "directions",
// whose values are the two runs' own figures as the store computed them at Put (history --json)
// and as each document's drop ladder holds them.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/json_lines.h"
#include "support/run_binary.h"

namespace nicbench {
namespace {

using nlohmann::json;

// Every row's figure, in the table's order (analysis/directions.h).
const std::vector<std::string> kFigures = {"goodput (receiver's count)",
                                           "client: transfer CPU",
                                           "client: nicbench user",
                                           "client: nicbench system",
                                           "client: softirq (flow cores)",
                                           "client: irq (flow cores)",
                                           "client: host busy",
                                           "client: NIC interrupts",
                                           "server: transfer CPU",
                                           "server: nicbench user",
                                           "server: nicbench system",
                                           "server: softirq (flow cores)",
                                           "server: irq (flow cores)",
                                           "server: host busy",
                                           "server: NIC interrupts",
                                           "TCP retransmits",
                                           "mean RTT (senders' smoothed)",
                                           "client: drops at the NIC",
                                           "client: drops in softnet backlog",
                                           "client: drops at the socket",
                                           "server: drops at the NIC",
                                           "server: drops in softnet backlog",
                                           "server: drops at the socket"};

std::string StorePath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("nicbench-directions-" + std::to_string(getpid()) + "-" + name + ".db"))
      .string();
}

// The table comes after the reverse run's summary, every row in order, then the pair's findings.
void ExpectTable(const std::string& out) {
  const size_t reverse = out.find("reverse: server sends");
  ASSERT_NE(reverse, std::string::npos) << out;
  const size_t table = out.find("Both directions side by side", reverse);
  ASSERT_NE(table, std::string::npos) << out;
  EXPECT_NE(out.find("forward", table), std::string::npos);
  size_t at = table;
  for (const std::string& figure : kFigures) {
    const size_t row = out.find("  " + figure + " ", at);
    ASSERT_NE(row, std::string::npos) << figure << " missing or out of order:\n"
                                      << out.substr(table);
    at = row;
  }
  EXPECT_NE(out.find("The two directions compared:", at), std::string::npos) << out.substr(table);
  // A value that was not measured says so, never 0: loopback has no NIC interrupt lines.
  const size_t irq = out.find("client: NIC interrupts", table);
  EXPECT_NE(out.substr(irq, out.find('\n', irq) - irq).find("unknown ["), std::string::npos);
}

const json& Row(const json& directions, const std::string& id) {
  for (const json& row : directions["rows"]) {
    if (row["id"] == id) return row;
  }
  static const json kNone;
  ADD_FAILURE() << "no row " << id;
  return kNone;
}

// A stored figure (null when unknown) against the row's value of one direction: both unknown,
// or equal (the store writes the same double through SQLite).
void ExpectSame(const json& row, const char* direction, const json& stored) {
  SCOPED_TRACE(row.dump() + " " + direction + " stored " + stored.dump());
  if (stored.is_null()) {
    EXPECT_TRUE(row[direction].is_null());
    EXPECT_TRUE(row["unknown"][direction].is_string());
    return;
  }
  ASSERT_TRUE(row[direction].is_number());
  EXPECT_NEAR(row[direction].get<double>(), stored.get<double>(),
              1e-9 * std::max(1.0, std::fabs(stored.get<double>())));
}

// A layer's drops in a document's drop ladder (the client's is the document's local end).
json LadderDrops(const json& doc, const char* end, const std::string& layer) {
  for (const json& rung : doc["nicbench"]["drop_ladder"][end]) {
    if (rung["layer"] == layer) return rung["dropped"];
  }
  return json();
}

// The run's -J output and the store's view of its two runs, checked against each other.
void ExpectFiguresOfTheRuns(const testing::ProcessResult& run, const std::string& store) {
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json docs = testing::ParseJsonLines(run.out)["runs"];
  ASSERT_EQ(docs.size(), 2u) << run.out;
  EXPECT_FALSE(docs[0].contains("directions"));
  ASSERT_TRUE(docs[1].contains("directions")) << docs[1].dump().substr(0, 400);
  const json& d = docs[1]["directions"];
  ASSERT_EQ(d["rows"].size(), kFigures.size());
  EXPECT_TRUE(d["findings"].is_array());
  auto history = testing::RunNicbench({"history", "--store", store, "--json"});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  const json runs = json::parse(history.out)["runs"];  // newest first
  ASSERT_EQ(runs.size(), 2u) << history.out;
  const json& fwd = runs[1];
  const json& rev = runs[0];
  ASSERT_EQ(fwd["direction"], "forward");
  ASSERT_EQ(rev["direction"], "reverse");
  const std::pair<const char*, const char*> same[] = {
      {"goodput", "receiver_bits_per_second"},
      {"client.cpu_seconds_per_gigabyte", "client_cpu_seconds_per_gigabyte"},
      {"server.cpu_seconds_per_gigabyte", "server_cpu_seconds_per_gigabyte"},
      {"client.nic_interrupts_per_gigabyte", "client_nic_interrupts_per_gigabyte"},
      {"server.nic_interrupts_per_gigabyte", "server_nic_interrupts_per_gigabyte"},
      {"retransmits", "retransmits"},
      {"mean_rtt_us", "mean_rtt_us"}};
  for (const auto& [id, column] : same) {
    ExpectSame(Row(d, id), "forward", fwd[column]);
    ExpectSame(Row(d, id), "reverse", rev[column]);
  }
  for (const char* layer : {"softnet backlog", "socket"}) {
    const std::string part = std::string(layer) == "socket" ? "socket" : "softnet";
    for (const auto& [end, who] : {std::pair{"local", "client"}, std::pair{"remote", "server"}}) {
      const json& row = Row(d, std::string(who) + ".drops." + part);
      ExpectSame(row, "forward", LadderDrops(docs[0], end, layer));
      ExpectSame(row, "reverse", LadderDrops(docs[1], end, layer));
    }
  }
}

TEST(Directions, LoopbackPrintsTheTableAfterBothSummaries) {
  auto r = testing::RunNicbench({"run", "-t", "1", "--no-store"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectTable(r.out);
}

TEST(Directions, LoopbackJsonRowsAreTheRunsOwnFigures) {
  const std::string store = StorePath("loopback");
  auto r = testing::RunNicbench({"run", "-t", "1", "-J", "--store", store});
  ExpectFiguresOfTheRuns(r, store);
  std::filesystem::remove(store);
}

TEST(Directions, BothDirectionsAgainstAServer) {
  testing::ServeChild serve = testing::StartServe();
  const std::string port = std::to_string(serve.port);
  auto text = testing::RunNicbench(
      {"run", "127.0.0.1", "-p", port, "--both-directions", "-t", "1", "--no-store"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  ExpectTable(text.out);
  const std::string store = StorePath("both");
  auto r = testing::RunNicbench(
      {"run", "127.0.0.1", "-p", port, "--both-directions", "-t", "1", "-J", "--store", store});
  ExpectFiguresOfTheRuns(r, store);
  std::filesystem::remove(store);
}

}  // namespace
}  // namespace nicbench
