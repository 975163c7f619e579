// Request/response runs against a real `nicbench serve` on loopback, read back through every
// output beyond text and -J: stored and shown by history and show (JSON, CSV), compared by
// compare and matrix (JSON, CSV), streamed by --json-stream. Each figure is checked against the
// run's own -J document.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"

namespace nicbench {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

class RrOutputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("nicbench-rr-outputs-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    server_ = testing::StartServe();
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Db() const { return (dir_ / "results.db").string(); }

  // A short stored run; its -J document.
  json Run(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"run", "127.0.0.1", "-p", std::to_string(server_.port),
                                     "-t",  "0.6",       "-i", "0.2",
                                     "-J",  "--store",   Db()};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = testing::RunNicbench(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }
  testing::ProcessResult Nicbench(std::vector<std::string> args) {
    args.insert(args.end(), {"--store", Db()});
    return testing::RunNicbench(args);
  }

  fs::path dir_;
  testing::ServeChild server_;
};

std::vector<std::vector<std::string>> CsvRows(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    std::istringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    rows.push_back(cells);
  }
  return rows;
}

size_t Column(const std::vector<std::string>& header, const std::string& name) {
  return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
}

TEST_F(RrOutputs, HistoryAndShowHoldTheRunsFigures) {
  const json rr = Run({"--rr"});
  const json udp = Run({"--rr", "-u"});
  const json crr = Run({"--crr"});
  const json bulk = Run({});
  for (const json* doc : {&rr, &udp, &crr, &bulk}) ASSERT_FALSE(doc->is_discarded());

  auto history = Nicbench({"history", "--json"});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  const json runs = json::parse(history.out)["runs"];  // newest first
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_FALSE(runs[0].contains("rr")) << "the bulk run";
  const std::pair<const json*, const json*> pairs[] = {
      {&runs[3], &rr}, {&runs[2], &udp}, {&runs[1], &crr}};
  for (const auto& [stored, doc] : pairs) {
    const json& s = (*stored)["rr"];
    const json& end = (*doc)["end"]["rr"];
    EXPECT_DOUBLE_EQ(s["transactions_per_second"].get<double>(),
                     end["local"]["transactions_per_second"].get<double>());
    for (const char* p : {"p50", "p90", "p99", "p99_9", "max", "mean"}) {
      EXPECT_DOUBLE_EQ(s[std::string("latency_") + p + "_us"].get<double>(),
                       end["local"]["latency"][std::string(p) + "_us"].get<double>())
          << p;
    }
    EXPECT_DOUBLE_EQ(s["client_process_us_per_transaction"].get<double>(),
                     end["local_process_us_per_transaction"].get<double>());
    EXPECT_DOUBLE_EQ(s["server_process_us_per_transaction"].get<double>(),
                     end["remote_process_us_per_transaction"].get<double>());
  }
  EXPECT_EQ(runs[1]["rr"]["mode"], "crr");
  EXPECT_DOUBLE_EQ(runs[1]["rr"]["connect_p50_us"].get<double>(),
                   crr["end"]["rr"]["local"]["connect"]["p50_us"].get<double>());
  EXPECT_TRUE(runs[3]["rr"]["lost"].is_null()) << "TCP has no loss";
  EXPECT_EQ(runs[2]["rr"]["lost"].get<double>(), udp["end"]["rr"]["local"]["lost"].get<double>());

  auto csv = Nicbench({"history", "--csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const auto rows = CsvRows(csv.out);
  ASSERT_EQ(rows.size(), 5u);
  const size_t tps = Column(rows[0], "rr_transactions_per_second");
  ASSERT_LT(tps, rows[0].size()) << csv.out;
  EXPECT_DOUBLE_EQ(std::stod(rows[4][tps]),
                   rr["end"]["rr"]["local"]["transactions_per_second"].get<double>());
  EXPECT_EQ(rows[1][tps], "") << "the bulk run";
  auto text = Nicbench({"history"});
  EXPECT_NE(text.out.find("tcp crr"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" tx/s"), std::string::npos) << text.out;

  // show --csv: one row per interval per end, the client's transactions as -J has them.
  auto show = Nicbench({"show", "1", "--csv"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const auto interval_rows = CsvRows(show.out);
  const size_t n = Column(interval_rows[0], "transactions");
  const size_t p99 = Column(interval_rows[0], "latency_p99_us");
  ASSERT_LT(p99, interval_rows[0].size()) << show.out;
  const json& intervals = rr["intervals"];
  size_t local = 0;
  for (size_t i = 1; i < interval_rows.size(); ++i) {
    if (interval_rows[i][1] != "local") continue;
    ASSERT_LT(local, intervals.size());
    EXPECT_EQ(std::stoull(interval_rows[i][n]),
              intervals[local]["rr"]["transactions"].get<uint64_t>());
    EXPECT_DOUBLE_EQ(std::stod(interval_rows[i][p99]),
                     intervals[local]["rr"]["latency"]["p99_us"].get<double>());
    ++local;
  }
  EXPECT_EQ(local, intervals.size());
  EXPECT_GT(interval_rows.size(), local + 1) << "the server's intervals too";
}

TEST_F(RrOutputs, CompareAndMatrixCompareTransactionsAndPercentiles) {
  std::vector<double> a_tps;
  for (int i = 0; i < 2; ++i) {
    a_tps.push_back(
        Run({"--rr", "--label", "set=a"})["end"]["rr"]["local"]["transactions_per_second"]);
    Run({"--rr", "--rr-burst", "4", "--label", "set=b"});
  }
  auto c = Nicbench({"compare", "label:set=a", "label:set=b", "--json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json j = json::parse(c.out);
  const json* tps = nullptr;
  bool p99 = false, cpu = false;
  for (const auto& m : j["metrics"]) {
    if (m["key"] == "rr_transactions_per_second") tps = &m;
    p99 = p99 || m["key"] == "rr_latency_p99_us";
    cpu = cpu || m["key"] == "rr_server_process_us_per_transaction";
  }
  ASSERT_NE(tps, nullptr) << c.out;
  EXPECT_TRUE(p99 && cpu) << c.out;
  EXPECT_DOUBLE_EQ((*tps)["a"]["median"].get<double>(), (a_tps[0] + a_tps[1]) / 2);
  EXPECT_EQ((*tps)["b"]["n"], 2);
  auto csv = Nicbench({"compare", "label:set=a", "label:set=b", "--csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("\ntransactions/s,tx/s,2,"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find("\nlatency p50,us,2,"), std::string::npos) << csv.out;
  auto text = Nicbench({"compare", "label:set=a", "label:set=b"});
  EXPECT_NE(text.out.find(" tx/s ["), std::string::npos) << text.out;
  // The comparison page draws a bar chart per metric compare gives (html_report_test.cc opens
  // such pages in a browser).
  const std::string page = (dir_ / "sets.html").string();
  auto report = Nicbench({"report", "label:set=a", "label:set=b", "-o", page});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  std::ifstream in(page);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("\"id\":\"metric-rr_transactions_per_second\""), std::string::npos);
  EXPECT_NE(html.find("\"id\":\"metric-rr_latency_p99_us\""), std::string::npos);

  auto matrix = testing::RunNicbench(
      {"matrix", "127.0.0.1", "--vary=-l=1,64", "--repeat", "1", "--csv", "--store", Db(), "--",
       "-p", std::to_string(server_.port), "-t", "0.3", "-i", "0.1", "--rr"});
  ASSERT_EQ(matrix.exit_code, 0) << matrix.err;
  EXPECT_NE(matrix.out.find("l=64,transactions/s,tx/s,1,"), std::string::npos) << matrix.out;
  EXPECT_NE(matrix.out.find("l=1,latency p99,us,1,"), std::string::npos) << matrix.out;
}

// What an iperf3 --json-stream consumer reads, plus each interval's request/response figures.
TEST_F(RrOutputs, JsonStreamIntervalsCarryTheTransactions) {
  for (const std::vector<std::string>& mode :
       {std::vector<std::string>{"--rr"}, {"--rr", "-u"}, {"--crr"}}) {
    std::vector<std::string> args = {
        "run", "127.0.0.1",     "-p",        std::to_string(server_.port), "-t", "0.6", "-i",
        "0.2", "--json-stream", "--no-store"};
    args.insert(args.end(), mode.begin(), mode.end());
    auto run = testing::RunNicbench(args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::istringstream lines(run.out);
    int intervals = 0;
    json end;
    for (std::string line; std::getline(lines, line);) {
      const json event = json::parse(line);
      if (event["event"] == "end") end = event["data"];
      if (event["event"] != "interval") continue;
      ++intervals;
      const json& rr = event["data"]["rr"];
      ASSERT_TRUE(rr.is_object()) << line;
      EXPECT_TRUE(rr["transactions"].is_number_unsigned()) << line;
      EXPECT_TRUE(rr["transactions_per_second"].is_number()) << line;
      if (rr["transactions"].get<uint64_t>() == 0) continue;
      for (const char* p : {"p50_us", "p90_us", "p99_us", "p99_9_us", "max_us"}) {
        EXPECT_TRUE(rr["latency"][p].is_number()) << p << " " << line;
      }
      EXPECT_EQ(rr["connect"].is_object(), mode[0] == "--crr") << line;
      EXPECT_TRUE(rr["lost"].is_number()) << line;
    }
    EXPECT_GE(intervals, 2) << run.out;
    EXPECT_TRUE(end["rr"]["local"]["latency"].is_object()) << run.out;
  }
}

}  // namespace
}  // namespace nicbench
