// `nicbench report label:tso=on label:tso=off` headed its page "experiment 1 seed 0": the
// header took the experiment label of the first run it met, although two sets a user names are
// no experiment, and printed a seed nobody had set. Now the page names the sets as compare does,
// each with its runs, the first as the baseline (compare's A), and no experiment or seed.
#include "regress/stored_report_util.h"

namespace nicbench::regress {
namespace {

using record::testing::MakeTcpRun;

TEST_F(StoredReport, LabelSetsAreNotAnExperiment) {
  // Runs that came out of experiment 1, then picked by their labels.
  for (int round = 1; round <= 2; ++round) {
    for (const char* tso : {"on", "off"}) {
      Put(MakeTcpRun(),
          {{"experiment", "1"}, {"round", std::to_string(round)}, {"variant", "1"}, {"tso", tso}});
    }
  }
  const std::string page = Report({"label:tso=on", "label:tso=off"});
  ASSERT_FALSE(page.empty());
  EXPECT_EQ(page.find("<dt>experiment</dt>"), std::string::npos);
  EXPECT_EQ(page.find("<dt>seed</dt>"), std::string::npos);
  // The sets as the user named them, newest run first as compare lists them.
  EXPECT_NE(page.find("<li><b>label:tso=on</b>: 2 runs (3,1), the baseline"), std::string::npos)
      << page.substr(0, 4000);
  EXPECT_NE(page.find("<li><b>label:tso=off</b>: 2 runs (4,2)</li>"), std::string::npos);
  EXPECT_NE(page.find("What differs from the first variant (label:tso=on)"), std::string::npos);
}

}  // namespace
}  // namespace nicbench::regress
