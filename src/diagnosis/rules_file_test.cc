// The -F rule: the disk's own rate against the network's outside the file calls, for the end
// that read the file (the sender) and the end that wrote it (the receiver).
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "diagnosis/diagnose.h"
#include "diagnosis/test_records.h"

namespace nicbench::diagnosis {
namespace {

using namespace testing;  // NOLINT: the test record helpers

// A file of what the 700 Mbit/s, 10 s baseline moved, its calls taking `call_seconds`.
record::FileRecord File(bool write, double call_seconds) {
  record::FileRecord f;
  f.path = "/nas/big.iso";
  f.write = write;
  f.streams = 1;
  f.bytes = 875'000'000;
  f.call_seconds = call_seconds;
  f.sync_seconds = write ? 1.0 : 0.0;
  f.filesystem = "ext2/3/4";
  return f;
}

TEST(FileRule, ASlowDiskLimitsTheCopyWithBothRatesAsEvidence) {
  record::RunRecord run = MakeRun(700e6);
  run.local.file = File(false, 9.4);  // 93.1 MB/s
  auto findings = Diagnose(run);
  const record::Finding* f = Find(findings, "disk-limits-file-transfer");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, record::Severity::kWarning);
  EXPECT_NE(f->title.find("it reads at 93.1 MB/s"), std::string::npos) << f->title;
  EXPECT_NE(f->meaning.find("the disk limits a file copy to ~93.1 MB/s"), std::string::npos)
      << f->meaning;
  ASSERT_GE(f->evidence.size(), 2u);
  EXPECT_NE(f->evidence[0].find("local client (sender)"), std::string::npos) << f->evidence[0];
  EXPECT_NE(f->evidence[1].find("took 94% of the"), std::string::npos) << f->evidence[1];
  EXPECT_EQ(Find(findings, "network-limits-file-transfer"), nullptr);
}

TEST(FileRule, AFastDiskLeavesTheLimitToTheNetwork) {
  record::RunRecord run = MakeRun(700e6);
  run.local.file = File(false, 0.5);  // 1.75 GB/s
  auto findings = Diagnose(run);
  const record::Finding* f = Find(findings, "network-limits-file-transfer");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, record::Severity::kInfo);
  EXPECT_NE(f->title.find("the disk reads at 1.75 GB/s"), std::string::npos) << f->title;
  EXPECT_EQ(Find(findings, "disk-limits-file-transfer"), nullptr);
}

TEST(FileRule, TheReceiverThatWritesIsJudgedWithItsSync) {
  record::RunRecord run = MakeRun(700e6);
  Remote(run).file = File(true, 9.9);  // 88.4 MB/s including 1 s of fdatasync
  auto findings = Diagnose(run);
  const record::Finding* f = Find(findings, "disk-limits-file-transfer");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("it writes at 88.4 MB/s"), std::string::npos) << f->title;
  EXPECT_NE(f->evidence[0].find("remote server (receiver)"), std::string::npos) << f->evidence[0];
  EXPECT_NE(f->evidence[0].find("incl. 1.000 s fdatasync"), std::string::npos) << f->evidence[0];
}

TEST(FileRule, NoFindingWithoutAMeasuredRate) {
  record::RunRecord run = MakeRun(700e6);
  run.local.file = File(false, 0);
  run.local.file->rate_measured = false;  // -Z
  auto findings = Diagnose(run);
  EXPECT_EQ(Find(findings, "disk-limits-file-transfer"), nullptr);
  EXPECT_EQ(Find(findings, "network-limits-file-transfer"), nullptr);
}

}  // namespace
}  // namespace nicbench::diagnosis
