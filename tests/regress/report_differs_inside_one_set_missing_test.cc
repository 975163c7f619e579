// `nicbench compare` warns when a fact has several values inside one set ("Differs inside one
// set (such a set is not one configuration)"); the HTML page of the same sets said nothing, so a
// reader of the page took a mixed set for one configuration. Now the page has the same warning
// and names the facts and their values.
#include "regress/stored_report_util.h"

namespace nicbench::regress {
namespace {

using record::testing::MakeTcpRun;

TEST_F(StoredReport, PageWarnsOfASetThatIsNotOneConfiguration) {
  for (const char* kernel : {"6.1.0-18-amd64", "6.12.0-1-amd64"}) {
    record::RunRecord run = MakeTcpRun();
    run.local.host.kernel = std::string(kernel);
    Put(run, {{"set", "a"}});
  }
  Put(MakeTcpRun(), {{"set", "b"}});
  auto compare = Nicbench({"compare", "label:set=a", "label:set=b"});
  ASSERT_EQ(compare.exit_code, 0) << compare.err;
  ASSERT_NE(compare.out.find("Differs inside one set"), std::string::npos) << compare.out;
  ASSERT_NE(compare.out.find("A client.kernel"), std::string::npos) << compare.out;

  const std::string inside = SectionOf(Report({"label:set=a", "label:set=b"}), "differs-inside");
  ASSERT_FALSE(inside.empty()) << "no 'differs inside one set' section";
  EXPECT_NE(inside.find("not one configuration"), std::string::npos);
  EXPECT_NE(inside.find("<td>client.kernel</td><td>label:set=a</td>"), std::string::npos) << inside;
  EXPECT_NE(inside.find("6.12.0-1-amd64 (1)"), std::string::npos) << inside;
  EXPECT_EQ(inside.find("label:set=b"), std::string::npos) << "set b is one configuration";
}

}  // namespace
}  // namespace nicbench::regress
