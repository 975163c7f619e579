// Bug: the NIC's error and drop counters were read once, as facts since boot, so drops at the
// NIC during a test were never diagnosed (a NIC that had dropped a million frames last week
// looked the same as one dropping them now). They are now read at every interval boundary
// through the probes' FileSource and diffed, and the nic-drops rule is fed by those deltas.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "diagnosis/diagnose.h"
#include "diagnosis/test_records.h"
#include "probes/file_source.h"
#include "probes/host_snapshot.h"

namespace nicbench::regress {
namespace {

namespace fs = std::filesystem;
using namespace diagnosis::testing;

void WriteCounters(const fs::path& root, uint64_t rx_packets, uint64_t rx_missed) {
  const fs::path dir = root / "sys/class/net/eth0/statistics";
  fs::create_directories(dir);
  std::ofstream(dir / "rx_packets") << rx_packets << "\n";
  std::ofstream(dir / "rx_missed_errors") << rx_missed << "\n";
  std::ofstream(dir / "rx_dropped") << 7 << "\n";  // since boot, unchanged in the test
}

TEST(NicDropsPerInterval, CountersAreSampledAsDeltasThroughTheFileSource) {
  const fs::path root = fs::temp_directory_path() / ("nb-nicstat-" + std::to_string(getpid()));
  probes::DirFileSource files(root.string());
  std::string buffer;
  WriteCounters(root, 1000000, 5000000);  // a NIC that dropped 5M frames before the test
  probes::HostSnapshot before = probes::ReadHostSnapshot(files, buffer, "eth0");
  WriteCounters(root, 1080000, 5000800);
  probes::HostSnapshot after = probes::ReadHostSnapshot(files, buffer, "eth0");
  fs::remove_all(root);
  record::HostInterval delta = probes::DiffSnapshots(before, after, 0, 1, nullptr);
  ASSERT_TRUE(delta.nic_counters.known()) << delta.nic_counters.detail();
  EXPECT_EQ(delta.nic_counters.value().at("rx_missed_errors"), 800);
  EXPECT_EQ(delta.nic_counters.value().at("rx_dropped"), 0);
  EXPECT_EQ(delta.nic_counters.value().at("rx_packets"), 80000);
}

TEST(NicDropsPerInterval, DropsDuringTheTestAreDiagnosed) {
  record::RunRecord run = MakeRun();
  EachSample(Remote(run), [](record::HostInterval& s) {
    s.nic_counters = std::map<std::string, int64_t>{
        {"rx_packets", 60000}, {"rx_missed_errors", 120}, {"rx_dropped", 0}};
  });
  const record::Finding* drops = nullptr;
  auto findings = diagnosis::Diagnose(run);
  for (const auto& f : findings) {
    if (f.id == "nic-drops") drops = &f;
  }
  ASSERT_NE(drops, nullptr);
  EXPECT_EQ(drops->severity, record::Severity::kWarning);  // 0.2% of the packets
  EXPECT_NE(drops->title.find("remote server (receiver)"), std::string::npos) << drops->title;
  bool named = false;
  for (const auto& e : drops->evidence) named = named || e.find("rx_missed_errors +1200") != e.npos;
  EXPECT_TRUE(named);
}

// Bug: nic-drops added rx_missed_errors and rx_errors, so on a driver that folds its misses into
// rx_errors every missed frame counted twice (the drop ladder counted it once: the two disagreed).
TEST(NicDropsPerInterval, AMissFoldedIntoRxErrorsCountsOnce) {
  record::RunRecord run = MakeRun();
  EachSample(Remote(run), [](record::HostInterval& s) {
    s.nic_counters = std::map<std::string, int64_t>{
        {"rx_packets", 60000}, {"rx_missed_errors", 10}, {"rx_errors", 10}, {"rx_dropped", 0}};
  });
  const record::Finding* drops = nullptr;
  auto findings = diagnosis::Diagnose(run);
  for (const auto& f : findings) {
    if (f.id == "nic-drops") drops = &f;
  }
  ASSERT_NE(drops, nullptr);
  // Ten samples of ten misses each, folded into rx_errors: 100 frames, not 200.
  EXPECT_NE(drops->title.find(": 100 received"), std::string::npos) << drops->title;
}

TEST(NicDropsPerInterval, CountersThatDoNotMoveDuringTheTestAreQuiet) {
  record::RunRecord run = MakeRun();
  EachSample(Remote(run), [](record::HostInterval& s) {
    s.nic_counters = std::map<std::string, int64_t>{{"rx_packets", 60000}, {"rx_dropped", 0}};
  });
  for (const auto& f : diagnosis::Diagnose(run)) EXPECT_NE(f.id, "nic-drops") << f.title;
}

}  // namespace
}  // namespace nicbench::regress
