// `nicbench report experiment:2` showed "seed 0" where `nicbench matrix` had printed seed
// 7515384567968678901: the page never read the experiment's definition, and took its number from
// a run's label. Now it reads the stored definition and shows the seed `matrix` printed, all 64
// bits of it.
#include "regress/stored_report_util.h"

namespace nicbench::regress {
namespace {

using record::testing::MakeTcpRun;

TEST_F(StoredReport, ExperimentPageShowsTheSeedMatrixPrinted) {
  for (uint64_t seed : {uint64_t{7515384567968678901u}, uint64_t{18446744073709551557u}}) {
    cli::MatrixDefinition d;
    d.host = "198.18.0.2";
    d.varies = {{"streams", {"1", "2"}}};
    d.repeat = 1;
    d.seed = seed;
    d.schedule = cli::Schedule(2, 1, seed);
    const int64_t id = PutExperiment(d);
    const auto variants = cli::CrossProduct(d.varies);
    for (int v = 0; v < 2; ++v) Put(MakeTcpRun(), cli::RunLabels(id, 1, v + 1, variants[v]));

    const std::string page = Report({"experiment:" + std::to_string(id)});
    EXPECT_NE(page.find(fmt::format("<dt>experiment</dt><dd>{}</dd>", id)), std::string::npos);
    EXPECT_NE(page.find(fmt::format("<dt>seed</dt><dd>{}</dd>", seed)), std::string::npos)
        << "seed " << seed;
    // The terminal's table, from the same store, prints the same seed.
    auto matrix = Nicbench({"matrix", "--resume", std::to_string(id)});
    EXPECT_NE(matrix.out.find(fmt::format("experiment {}  seed {}", id, seed)), std::string::npos)
        << matrix.out << matrix.err;
  }
}

}  // namespace
}  // namespace nicbench::regress
