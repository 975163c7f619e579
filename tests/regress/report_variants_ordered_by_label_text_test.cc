// `nicbench report experiment:N` ordered the variants as it met them among the runs (and so by
// the shuffled schedule, or by label text), so the page's baseline was not the one `matrix`
// printed: with --vary tso=on,off the terminal compared against tso=on, the page against
// tso=off. Now the page takes the experiment's own variant order, the first variant as the
// baseline, as the terminal does.
#include "regress/stored_report_util.h"

namespace nicbench::regress {
namespace {

using record::testing::MakeTcpRun;

TEST_F(StoredReport, ExperimentVariantsInTheTerminalsOrder) {
  cli::MatrixDefinition d;
  d.host = "198.18.0.2";
  d.varies = {{"streams", {"4", "1"}}};  // variant 1 is streams=4, after streams=1 in text
  d.repeat = 2;
  d.seed = 1;
  d.schedule = {{1, 0}, {1, 0}};  // the second variant runs first in every round
  const int64_t id = PutExperiment(d);
  const auto variants = cli::CrossProduct(d.varies);
  for (int round = 1; round <= 2; ++round) {
    for (int v : {1, 0}) Put(MakeTcpRun(), cli::RunLabels(id, round, v + 1, variants[v]));
  }
  const std::string page = Report({"experiment:" + std::to_string(id)});
  EXPECT_NE(page.find("What differs from the first variant (streams=4)"), std::string::npos);
  const std::string tests = SectionOf(page, "tests");
  const size_t first = tests.find("<td class=\"text\">streams=4</td>");
  const size_t second = tests.find("<td class=\"text\">streams=1</td>");
  ASSERT_NE(first, std::string::npos) << tests;
  ASSERT_NE(second, std::string::npos) << tests;
  EXPECT_LT(first, second);
  auto matrix = Nicbench({"matrix", "--resume", std::to_string(id)});
  EXPECT_NE(matrix.out.find("variant 1: streams=4"), std::string::npos) << matrix.out;
}

}  // namespace
}  // namespace nicbench::regress
