// The record lifecycle both conversations share: what begins every record (the server's once
// lacked its RFC 3339 time), and the finish with the peer's results.
#include "engine/conversation/record_lifecycle.h"

#include <regex>

#include <gtest/gtest.h>

namespace nicbench::engine {
namespace {

TEST(BeginRecord, EitherEndHasItsRoleVersionAndBothFormsOfTheTime) {
  for (record::Role role : {record::Role::kClient, record::Role::kServer}) {
    record::RunRecord r;
    BeginRecord(r, role, "not yet");
    EXPECT_EQ(r.local.role, role);
    EXPECT_EQ(r.local.software, r.version);
    EXPECT_TRUE(std::regex_match(r.timestamp, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
        << r.timestamp;
    EXPECT_GT(r.timestamp_secs, 0);
    EXPECT_FALSE(r.remote.known());
  }
}

TEST(FinishRecord, TakesThePeersSideAndRefusesAStreamWeDoNotHave) {
  EndRun run;
  FlowTotals ours;
  ours.id = 1;
  ours.sender = true;
  ours.bytes = 1000;
  run.totals = {ours};
  protocol::PeerResults theirs;
  theirs.cpu_util_total = 12.5;
  protocol::PeerStream stream;
  stream.id = 1;
  stream.bytes = 900;
  theirs.streams = {stream};
  ASSERT_TRUE(FinishRecord(run, theirs, /*asked_for_output=*/false));
  ASSERT_EQ(run.record.streams.size(), 1u);
  EXPECT_EQ(run.record.streams[0].bytes_received, 900u);
  ASSERT_TRUE(run.record.peer.cpu.known());
  EXPECT_DOUBLE_EQ(run.record.peer.cpu.value().total_percent, 12.5);
  theirs.streams[0].id = 7;
  EXPECT_FALSE(FinishRecord(run, theirs, false));
}

TEST(EndData, KeepsTheIntervalsAsThisEndsOwn) {
  EndRun run;
  run.record.intervals.resize(3);
  EndData(run);
  EXPECT_EQ(run.record.local.intervals.size(), 3u);
  EXPECT_FALSE(run.record.rr) << "a bulk test has no request/response summary";
}

}  // namespace
}  // namespace nicbench::engine
