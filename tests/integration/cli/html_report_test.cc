// The HTML report in a real browser: Debian's chromium, headless, opens the page from file://
// and dumps the DOM after the page's script has drawn every chart and written what it drew into
// #nb-check. The tests check that nothing was requested or blocked, that no script error or
// console message appeared, that every canvas has pixels, and that the charts and their tables
// hold the record's numbers. They skip only where chromium is not installed.
#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/matrix_plan.h"
#include "record/json_test_records.h"
#include "store/store.h"
#include "support/run_binary.h"
#include "support/text.h"

namespace nicbench {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kChromium = "/usr/bin/chromium";

bool HaveChromium() { return access(kChromium, X_OK) == 0; }
#define NB_NEED_CHROMIUM()                                                            \
  if (!HaveChromium())                                                                \
  GTEST_SKIP() << "chromium is not installed (Debian package chromium, installed by " \
                  "scripts/install-deps): the HTML report's browser tests need it"

class HtmlReport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("nicbench-html-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // The page's DOM after its script ran, and chromium's log (console messages land there).
  testing::ProcessResult Open(const std::string& page) {
    const std::string profile = Path("profile-" + std::to_string(++opened_));
    return testing::RunProcess({kChromium, "--headless", "--no-sandbox", "--disable-gpu",
                                "--disable-background-networking", "--disable-component-update",
                                "--disable-sync", "--no-first-run", "--user-data-dir=" + profile,
                                "--window-size=1280,900", "--enable-logging=stderr", "--v=0",
                                "--dump-dom", "file://" + page});
  }
  fs::path dir_;
  int opened_ = 0;
};

std::string Unescape(std::string s) {
  const std::pair<const char*, const char*> entities[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + 1)) {
      s.replace(at, std::strlen(from), to);
    }
  }
  return s;
}

// What the page's script wrote into #nb-check.
json CheckOf(const std::string& dom) {
  const std::string open = "<pre id=\"nb-check\" hidden=\"\">";
  const size_t from = dom.find(open);
  if (from == std::string::npos) return json();
  const size_t to = dom.find("</pre>", from);
  return json::parse(Unescape(dom.substr(from + open.size(), to - from - open.size())), nullptr,
                     false);
}

const json* ChartOf(const json& check, const std::string& id) {
  for (const auto& c : check["charts"]) {
    if (c["id"] == id) return &c;
  }
  return nullptr;
}

const json* DatasetOf(const json& chart, const std::string& label) {
  for (const auto& d : chart["datasets"]) {
    if (d["label"] == label) return &d;
  }
  return nullptr;
}

// The cells of the table under a chart: one vector per row, the row's header first.
std::vector<std::vector<std::string>> TableOf(const std::string& dom, const std::string& id) {
  std::vector<std::vector<std::string>> rows;
  const size_t from = dom.find("<table data-chart=\"" + id + "\">");
  if (from == std::string::npos) return rows;
  const std::string table = dom.substr(from, dom.find("</table>", from) - from);
  const std::regex row("<tr><th scope=\"row\">([^<]*)</th>((?:<td>[^<]*</td>)*)</tr>");
  const std::regex cell("<td>([^<]*)</td>");
  for (std::sregex_iterator r(table.begin(), table.end(), row), end; r != end; ++r) {
    std::vector<std::string> cells{(*r)[1]};
    const std::string tds = (*r)[2];
    for (std::sregex_iterator c(tds.begin(), tds.end(), cell); c != end; ++c)
      cells.push_back((*c)[1]);
    rows.push_back(cells);
  }
  return rows;
}

// Loaded from file:// with nothing requested, blocked or logged, every chart drawn.
void ExpectCleanPage(const testing::ProcessResult& browser, const json& check) {
  ASSERT_EQ(browser.exit_code, 0) << browser.err;
  ASSERT_TRUE(check.is_object()) << "the page's script wrote no #nb-check";
  EXPECT_TRUE(check["errors"].empty()) << check["errors"];
  EXPECT_EQ(check["violations"], 0);
  EXPECT_EQ(check["resources"], 0) << "the page requested something";
  EXPECT_EQ(browser.err.find("CONSOLE"), std::string::npos) << browser.err;
  ASSERT_FALSE(check["charts"].empty());
  for (const auto& c : check["charts"])
    EXPECT_GT(c["nonblank"].get<int>(), 0) << c["id"] << " is blank";
}

TEST_F(HtmlReport, OneRunDrawsTheRecordsNumbers) {
  NB_NEED_CHROMIUM();
  auto server = testing::StartServe();
  const std::string page = Path("run.html");
  auto run = testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(server.port), "-t", "2",
                                   "-i", "0.25", "-P", "2", "-J", "--no-store", "--html", page});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json record = json::parse(run.out);
  const json& intervals = record["intervals"];
  ASSERT_GE(intervals.size(), 4u);
  EXPECT_LT(fs::file_size(page), 1000000u);
  EXPECT_NE(testing::FileText(page).find("Content-Security-Policy\" content=\"default-src 'none'"),
            std::string::npos);

  auto browser = Open(page);
  const json check = CheckOf(browser.out);
  ExpectCleanPage(browser, check);
  const json* up = ChartOf(check, "throughput-up");
  ASSERT_NE(up, nullptr) << check.dump();
  EXPECT_EQ((*up)["points"], intervals.size());
  const json* sum = DatasetOf(*up, "sum, client's view");
  ASSERT_NE(sum, nullptr);
  ASSERT_EQ((*sum)["data"].size(), intervals.size());
  for (size_t i = 0; i < intervals.size(); ++i) {
    const double mbps = intervals[i]["sum"]["bits_per_second"].get<double>() / 1e6;
    EXPECT_NEAR((*sum)["data"][i].get<double>(), mbps, 0.001) << "interval " << i;
  }
  // Two streams: each is stacked under the sum, and the server's own view is overlaid.
  EXPECT_NE(DatasetOf(*up, "sum, server's view"), nullptr);
  EXPECT_EQ((*up)["datasets"].size(), 4u);
  // The table under the chart says the same.
  auto table = TableOf(browser.out, "throughput-up");
  ASSERT_EQ(table.size(), intervals.size());
  for (size_t i = 0; i < table.size(); ++i) {
    ASSERT_EQ(table[i].size(), 5u);
    EXPECT_EQ(std::stod(table[i][3]), (*sum)["data"][i].get<double>()) << "row " << i;
  }
  // Each end's cores, interrupts and TCP were drawn too.
  EXPECT_NE(ChartOf(check, "cpu-client-0"), nullptr);
  EXPECT_NE(ChartOf(check, "cpu-server-0"), nullptr);
  EXPECT_NE(ChartOf(check, "irq-client"), nullptr);
  EXPECT_NE(ChartOf(check, "tcp-rtt-client"), nullptr);
  EXPECT_NE(browser.out.find("What limits the transfer"), std::string::npos);
}

// The main job's page: the two directions side by side first, one row per -J "directions" row,
// the pair's findings under it, and both runs' charts after it, drawn cleanly.
TEST_F(HtmlReport, LoopbackPageComparesTheDirections) {
  NB_NEED_CHROMIUM();
  const std::string page = Path("loopback.html");
  auto run = testing::RunNicbench({"run", "-t", "1", "-J", "--no-store", "--html", page});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json rows = json::parse(run.out.substr(run.out.find('\n') + 1))["directions"]["rows"];
  ASSERT_FALSE(rows.empty());
  auto browser = Open(page);
  ExpectCleanPage(browser, CheckOf(browser.out));
  const size_t section = browser.out.find("<section id=\"directions\"");
  ASSERT_NE(section, std::string::npos) << "no directions section";
  EXPECT_LT(section, browser.out.find("id=\"r0-findings\""));
  const std::string table =
      browser.out.substr(section, browser.out.find("</table>", section) - section);
  for (const json& row : rows) {
    EXPECT_NE(table.find("<td>" + row["figure"].get<std::string>() + "</td>"), std::string::npos)
        << row["figure"];
  }
  EXPECT_NE(browser.out.find("The two directions compared"), std::string::npos);
}

// A request/response run: transactions/s and the latency percentiles per interval in place of
// the throughput chart, each holding the record's numbers, and its figures in the summary.
TEST_F(HtmlReport, RequestResponseRunDrawsTransactionsAndPercentiles) {
  NB_NEED_CHROMIUM();
  auto server = testing::StartServe();
  const std::string page = Path("rr.html");
  auto run =
      testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(server.port), "-t", "1.5",
                            "-i", "0.25", "--crr", "-J", "--no-store", "--html", page});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json record = json::parse(run.out);
  const json& intervals = record["intervals"];
  ASSERT_GE(intervals.size(), 4u);
  const std::string html = testing::FileText(page);
  EXPECT_NE(html.find("<dt>transactions/s</dt>"), std::string::npos);
  EXPECT_NE(html.find("<dt>latency p99.9</dt>"), std::string::npos);
  EXPECT_NE(html.find("<dt>connect p50</dt>"), std::string::npos);
  EXPECT_NE(html.find("<dt>CPU per transaction, server</dt>"), std::string::npos);

  auto browser = Open(page);
  const json check = CheckOf(browser.out);
  ExpectCleanPage(browser, check);
  EXPECT_EQ(ChartOf(check, "throughput-up"), nullptr);
  const json* tps = ChartOf(check, "rr-tps");
  const json* latency = ChartOf(check, "rr-latency");
  ASSERT_NE(tps, nullptr) << check.dump();
  ASSERT_NE(latency, nullptr) << check.dump();
  const json* tail = ChartOf(check, "rr-latency-tail");
  ASSERT_NE(tail, nullptr) << check.dump();
  EXPECT_NE(ChartOf(check, "rr-connect"), nullptr);
  EXPECT_NE(ChartOf(check, "rr-connect-tail"), nullptr);
  const json* max = DatasetOf(*tail, "max");
  ASSERT_NE(max, nullptr);
  EXPECT_EQ((*tps)["points"], intervals.size());
  const json* client = DatasetOf(*tps, "client's count");
  const json* p99 = DatasetOf(*latency, "p99");
  ASSERT_NE(client, nullptr);
  ASSERT_NE(p99, nullptr);
  EXPECT_NE(DatasetOf(*tps, "server's count"), nullptr);
  const auto table = TableOf(browser.out, "rr-latency");
  ASSERT_EQ(table.size(), intervals.size());
  for (size_t i = 0; i < intervals.size(); ++i) {
    const json& rr = intervals[i]["rr"];
    EXPECT_NEAR((*client)["data"][i].get<double>(), rr["transactions_per_second"].get<double>(),
                0.001)
        << "interval " << i;
    if (rr["latency"].is_null()) continue;
    EXPECT_NEAR((*p99)["data"][i].get<double>(), rr["latency"]["p99_us"].get<double>(), 0.001)
        << "interval " << i;
    EXPECT_NEAR((*max)["data"][i].get<double>(), rr["latency"]["max_us"].get<double>(), 0.001)
        << "interval " << i;
    ASSERT_EQ(table[i].size(), 4u);  // time, p50, p90, p99
    EXPECT_EQ(std::stod(table[i][3]), (*p99)["data"][i].get<double>()) << "row " << i;
  }
  EXPECT_NE(ChartOf(check, "cpu-server-0"), nullptr);
}

TEST_F(HtmlReport, SetsOfStoredRunsAsBarsWithTheMediansCompareGives) {
  NB_NEED_CHROMIUM();
  auto server = testing::StartServe();
  const std::string db = Path("results.db");
  for (int i = 0; i < 6; ++i) {
    auto run = testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(server.port), "-t",
                                     "0.5", "-i", "0.25", "--store", db, "--label",
                                     i % 2 ? "set=b" : "set=a", "-P", i % 2 ? "2" : "1"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }
  const std::string page = Path("sets.html");
  auto report =
      testing::RunNicbench({"report", "label:set=a", "label:set=b", "-o", page, "--store", db});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  auto compare =
      testing::RunNicbench({"compare", "label:set=a", "label:set=b", "--json", "--store", db});
  ASSERT_EQ(compare.exit_code, 0) << compare.err;
  const json c = json::parse(compare.out);

  auto browser = Open(page);
  const json check = CheckOf(browser.out);
  ExpectCleanPage(browser, check);
  ASSERT_EQ(check["charts"].size(), c["metrics"].size());
  for (const auto& m : c["metrics"]) {
    const json* chart = ChartOf(check, "metric-" + m["key"].get<std::string>());
    ASSERT_NE(chart, nullptr) << m["key"];
    const json* median = DatasetOf(*chart, "median");
    ASSERT_NE(median, nullptr);
    const double scale = m["unit"] == "bit/s" ? 1e-6 : 1.0;
    for (int side = 0; side < 2; ++side) {
      const json& s = m[side ? "b" : "a"];
      if (s["median"].is_null()) continue;
      EXPECT_NEAR((*median)["data"][side].get<double>(), s["median"].get<double>() * scale,
                  1e-3 * std::max(1.0, s["median"].get<double>() * scale))
          << m["key"];
    }
  }
  // The streams differ between the sets: the what-differs table names what compare names.
  EXPECT_NE(browser.out.find("What differs"), std::string::npos);
  int between = 0;
  for (const auto& d : c["differs"]) {
    if (!d["between"].get<bool>()) continue;
    ++between;
    EXPECT_NE(browser.out.find("<td>" + d["fact"].get<std::string>() + "</td>"), std::string::npos)
        << d["fact"];
  }
  EXPECT_GT(between, 0) << compare.out;
}

// An experiment's page as `matrix` printed it: its seed, its variants in its own order (the
// first the baseline, although it ran second in every round), and a variant whose runs had two
// kernels warned of; drawn cleanly by the browser.
TEST_F(HtmlReport, ExperimentPageInTheMatrixOrderWithItsSeed) {
  NB_NEED_CHROMIUM();
  const std::string db = Path("results.db");
  cli::MatrixDefinition d;
  d.host = "198.18.0.2";
  d.varies = {{"streams", {"4", "1"}}};
  d.repeat = 3;
  d.seed = 7515384567968678901u;
  d.schedule = {{1, 0}, {1, 0}, {1, 0}};
  {
    auto store = store::OpenStore(db);
    ASSERT_TRUE(store) << store.error().message;
    auto id = (*store)->PutExperiment(cli::DefinitionToJson(d));
    ASSERT_TRUE(id) << id.error().message;
    const auto variants = cli::CrossProduct(d.varies);
    for (int round = 1; round <= 3; ++round) {
      for (int v : {1, 0}) {
        record::RunRecord run = record::testing::MakeTcpRun();
        if (v == 1 && round == 3) run.local.host.kernel = std::string("6.12.0-1-amd64");
        ASSERT_TRUE((*store)->Put(run, cli::RunLabels(*id, round, v + 1, variants[v])));
      }
    }
  }
  const std::string page = Path("experiment.html");
  auto report = testing::RunNicbench({"report", "experiment:1", "-o", page, "--store", db});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  auto browser = Open(page);
  const json check = CheckOf(browser.out);
  ExpectCleanPage(browser, check);
  EXPECT_NE(browser.out.find("<dt>seed</dt><dd>7515384567968678901</dd>"), std::string::npos);
  const auto bars = TableOf(browser.out, check["charts"][0]["id"].get<std::string>());
  ASSERT_EQ(bars.size(), 2u) << browser.out;
  EXPECT_EQ(bars[0][0].rfind("streams=4 (n=3)", 0), 0u) << bars[0][0];
  EXPECT_EQ(bars[1][0].rfind("streams=1 (n=3)", 0), 0u) << bars[1][0];
  const size_t inside = browser.out.find("id=\"differs-inside\"");
  ASSERT_NE(inside, std::string::npos);
  EXPECT_NE(browser.out.find("<td>client.kernel</td><td>streams=1</td>", inside),
            std::string::npos);
}

TEST_F(HtmlReport, BadInputsFailClearly) {
  // A path that cannot be written fails before any test runs.
  auto run = testing::RunNicbench(
      {"run", "--no-store", "-t", "0.2", "--html", Path("no/such/dir/x.html")});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("cannot write"), std::string::npos) << run.err;
  EXPECT_EQ(run.out.find("forward"), std::string::npos) << "the test ran anyway";

  const std::string db = Path("results.db");
  auto stored = testing::RunNicbench({"run", "-t", "0.3", "-i", "0.1", "--store", db});
  ASSERT_EQ(stored.exit_code, 0) << stored.err;
  auto unwritable =
      testing::RunNicbench({"report", "1", "-o", Path("no/such/dir/x.html"), "--store", db});
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_NE(unwritable.err.find("cannot write"), std::string::npos) << unwritable.err;

  const std::string page = Path("none.html");
  auto none = testing::RunNicbench({"report", "label:nothing=here", "-o", page, "--store", db});
  EXPECT_EQ(none.exit_code, 5);
  EXPECT_NE(none.err.find("matches no run"), std::string::npos) << none.err;
  EXPECT_FALSE(fs::exists(page)) << "an empty page was left behind";

  auto bad = testing::RunNicbench({"report", "nonsense:1", "-o", page, "--store", db});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  auto no_store = testing::RunNicbench({"report", "1", "-o", page, "--store", Path("absent.db")});
  EXPECT_EQ(no_store.exit_code, 4) << no_store.err;

  auto both = testing::RunNicbench({"report", "last:2", "-o", page, "--store", db});
  EXPECT_EQ(both.exit_code, 0) << both.err;
  EXPECT_NE(testing::FileText(page).find("2 runs"), std::string::npos);
}

// Edits stored records in place, as a record written by another version would read.
void EditRecords(const std::string& db, const std::string& sql) {
  sqlite3* c = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &c), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(c, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(c);
}

TEST_F(HtmlReport, RecordsOfOtherVersions) {
  const std::string db = Path("results.db");
  auto stored = testing::RunNicbench({"run", "-t", "0.3", "-i", "0.1", "--store", db});
  ASSERT_EQ(stored.exit_code, 0) << stored.err;
  // A record without the peer's side (an older record, or a stock iperf3 peer): it renders and
  // says what it cannot show.
  EditRecords(db,
              "UPDATE run_records SET record = json_remove(record, '$.remote') WHERE run_id = 1");
  const std::string page = Path("old.html");
  auto old = testing::RunNicbench({"report", "1", "-o", page, "--store", db});
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_NE(testing::FileText(page).find("server's view: not reported"), std::string::npos);
  // A record of a newer schema than this binary reads: refused with the reason.
  EditRecords(db,
              "UPDATE run_records SET record = json_set(record, '$.schema_version', 99) "
              "WHERE run_id = 2");
  auto newer = testing::RunNicbench({"report", "2", "-o", Path("new.html"), "--store", db});
  EXPECT_EQ(newer.exit_code, 4);
  EXPECT_NE(newer.err.find("schema_version"), std::string::npos) << newer.err;
  EXPECT_FALSE(fs::exists(Path("new.html")));
}

}  // namespace
}  // namespace nicbench
