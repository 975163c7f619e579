// Bug: -V's "CPU Utilization: local/sender ..., remote/receiver ..." was chosen by the test's
// direction alone, so a server's record of a forward test called the server the sender (and
// the congestion lines swapped with it). The record's role now decides with the direction, as
// iperf3 words it: the client sends unless -R, the server the other way round, and --bidir is
// named as a forward test.
#include <string>

#include <gtest/gtest.h>

#include "record/run_record.h"
#include "report/text_report.h"

namespace nicbench::regress {
namespace {

std::string FirstLine(record::Role role, record::Direction direction) {
  record::RunRecord run;
  run.local.role = role;
  run.spec.direction = direction;
  run.local.cpu = record::CpuUtilization{10, 4, 6};
  const std::string text = report::RenderVerboseSummary(run);
  return text.substr(0, text.find('\n'));
}

TEST(VerboseSummaryIgnoresTheRole, EachEndNamesItsOwnDuty) {
  using record::Direction;
  using record::Role;
  EXPECT_NE(FirstLine(Role::kClient, Direction::kForward).find("local/sender"), std::string::npos);
  EXPECT_NE(FirstLine(Role::kServer, Direction::kForward).find("local/receiver"), std::string::npos)
      << FirstLine(Role::kServer, Direction::kForward);
  EXPECT_NE(FirstLine(Role::kClient, Direction::kReverse).find("local/receiver"),
            std::string::npos);
  EXPECT_NE(FirstLine(Role::kServer, Direction::kReverse).find("local/sender"), std::string::npos);
  EXPECT_NE(FirstLine(Role::kClient, Direction::kBidirectional).find("local/sender"),
            std::string::npos);
  EXPECT_NE(FirstLine(Role::kServer, Direction::kBidirectional).find("local/receiver"),
            std::string::npos);
}

}  // namespace
}  // namespace nicbench::regress
