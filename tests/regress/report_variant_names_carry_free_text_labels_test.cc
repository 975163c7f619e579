// An experiment's page named (and grouped) its variants by every label of their runs but the
// bookkeeping ones, so a free-text label a user gave some runs ("note=cable swapped") became
// part of a variant's name and split one variant into two bars. Now the variants are the
// experiment's own, named as `matrix` names them ("tso=on"), whatever else the runs carry.
#include "regress/stored_report_util.h"

namespace nicbench::regress {
namespace {

using record::testing::MakeTcpRun;

TEST_F(StoredReport, ExperimentVariantsAreNamedByWhatVaries) {
  cli::MatrixDefinition d;
  d.host = "198.18.0.2";
  d.varies = {{"streams", {"1", "2"}}};
  d.repeat = 2;
  d.seed = 3;
  d.schedule = {{0, 1}, {0, 1}};
  const int64_t id = PutExperiment(d);
  const auto variants = cli::CrossProduct(d.varies);
  for (int round = 1; round <= 2; ++round) {
    for (int v = 0; v < 2; ++v) {
      store::Labels labels = cli::RunLabels(id, round, v + 1, variants[v]);
      labels["note"] = round == 1 ? "before the cable swap" : "cable swapped";
      Put(MakeTcpRun(), labels);
    }
  }
  const std::string page = Report({"experiment:" + std::to_string(id)});
  EXPECT_NE(page.find("<dt>variants</dt><dd>2</dd>"), std::string::npos);
  EXPECT_EQ(page.find("cable"), std::string::npos) << "a free-text label named a variant";
  EXPECT_NE(SectionOf(page, "tests").find("<td class=\"text\">streams=2</td><td>2</td>"),
            std::string::npos)
      << "variant 2 holds both rounds' runs";
}

}  // namespace
}  // namespace nicbench::regress
