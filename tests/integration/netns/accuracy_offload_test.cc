// Accuracy scenario 4 (issue 5): TSO/GSO on and off on an unshaped stand link. The NIC facts
// of each run's record show the offload state the stand set, on both ends, and the CPU cost
// per gigabyte of each run is reported (as a test property and on stdout; no assertion on it:
// docs/accuracy.md records what was seen). Root only.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "accuracy_stand.h"

namespace nicbench::accuracy {
namespace {

// The `on` flag of ethtool feature `name` in a NicFacts JSON object, or nullopt when the facts
// do not list it (unknown offloads are `{"unknown": ...}`, not a list).
std::optional<bool> Offload(const nlohmann::json& nic, const std::string& name) {
  if (!nic.is_object() || !nic.contains("offloads") || !nic["offloads"].is_array()) {
    return std::nullopt;
  }
  for (const auto& feature : nic["offloads"]) {
    if (feature.value("name", "") == name && feature.contains("on"))
      return feature["on"].get<bool>();
  }
  return std::nullopt;
}

// CPU seconds of one end's process per 10^9 bytes moved: iperf3's cpu_utilization_percent is
// the process's user+system time as a share of one CPU over the test.
double CpuSecondsPerGigabyte(const nlohmann::json& doc, const char* end) {
  const double percent = NumberAt(doc, std::string("/end/cpu_utilization_percent/") + end);
  const double seconds = NumberAt(doc, "/end/sum_received/seconds");
  const double bytes = NumberAt(doc, "/end/sum_received/bytes");
  if (!(bytes > 0) || std::isnan(percent) || std::isnan(seconds)) return NAN;
  return percent / 100.0 * seconds / (bytes / 1e9);
}

struct Variant {
  const char* name;
  const char* stand_name;
  stand::Toggle state;
};

TEST(AccuracyOffloads, TsoGsoStateIsInTheFactsAndCpuPerGigabyteIsReported) {
  ACCURACY_SKIP_UNLESS_ROOT();
  const Variant variants[] = {{"tso+gso on", "acco1", stand::Toggle::kOn},
                              {"tso+gso off", "acco2", stand::Toggle::kOff}};
  std::string report;
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.name);
    stand::Offloads offloads;
    offloads.tso = v.state;
    offloads.gso = v.state;
    auto stand = UpStand(v.stand_name, stand::Profile::kUnlimited, offloads);
    ASSERT_TRUE(stand) << stand.error().ToString();
    PairRun run = RunNicbenchPair(*stand, 2, 1, {"-t", "5", "-O", "1"});
    ASSERT_TRUE(run.doc.is_object());
    const bool want = v.state == stand::Toggle::kOn;
    for (const char* end : {"local", "remote"}) {
      const nlohmann::json& nic = run.doc[end]["nic"];
      EXPECT_EQ(Offload(nic, "tcp-segmentation-offload"), want) << end << " nic: " << nic.dump();
      EXPECT_EQ(Offload(nic, "generic-segmentation-offload"), want) << end;
    }
    const double goodput = NumberAt(run.doc, "/end/sum_received/bits_per_second");
    EXPECT_GT(goodput, 0);
    report += fmt::format("{}: {}, client {:.2f} CPU-s/GB, server {:.2f} CPU-s/GB\n", v.name,
                          Mbps(goodput), CpuSecondsPerGigabyte(run.doc, "host_total"),
                          CpuSecondsPerGigabyte(run.doc, "remote_total"));
  }
  std::printf("%s", report.c_str());
  RecordProperty("cpu_per_gigabyte", report);
}

}  // namespace
}  // namespace nicbench::accuracy
