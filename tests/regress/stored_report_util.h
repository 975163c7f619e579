// Helpers for the regression tests of `nicbench report` on stored runs: a store in a fresh
// temporary directory filled through the store API with hand-built records (no test runs, so
// the sets and experiments are exactly what a test says), and the page the binary writes.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli/matrix_plan.h"
#include "record/json_test_records.h"
#include "store/store.h"
#include "support/run_binary.h"

namespace nicbench::regress {

class StoredReport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("nicbench-stored-report-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    auto store = store::OpenStore(Db());
    ASSERT_TRUE(store) << store.error().message;
    store_ = std::move(*store);
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::string Db() const { return (dir_ / "results.db").string(); }

  int64_t Put(const record::RunRecord& run, const store::Labels& labels) {
    auto id = store_->Put(run, labels);
    EXPECT_TRUE(id) << id.error().message;
    return id ? *id : 0;
  }
  int64_t PutExperiment(const cli::MatrixDefinition& d) {
    auto id = store_->PutExperiment(cli::DefinitionToJson(d));
    EXPECT_TRUE(id) << id.error().message;
    return id ? *id : 0;
  }

  // `nicbench report SELECTORS... -o page.html --store DB`: the page, or "" when it failed.
  std::string Report(const std::vector<std::string>& selectors) {
    const std::string page = (dir_ / "page.html").string();
    std::vector<std::string> args = {"report"};
    args.insert(args.end(), selectors.begin(), selectors.end());
    args.insert(args.end(), {"-o", page, "--store", Db()});
    const testing::ProcessResult r = testing::RunNicbench(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(page);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  testing::ProcessResult Nicbench(std::vector<std::string> args) {
    args.insert(args.end(), {"--store", Db()});
    return testing::RunNicbench(args);
  }

  std::filesystem::path dir_;
  std::unique_ptr<store::Store> store_;
};

// The text of the page's section `id` (from its opening tag to the next </section>).
inline std::string SectionOf(const std::string& page, const std::string& id) {
  const size_t from = page.find("<section id=\"" + id + "\"");
  if (from == std::string::npos) return "";
  return page.substr(from, page.find("</section>", from) - from);
}

}  // namespace nicbench::regress
