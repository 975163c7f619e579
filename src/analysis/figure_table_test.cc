#include "analysis/figure_table.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>

#include "analysis/test_runs.h"

namespace nicbench::analysis {
namespace {

using record::Missing;

// The table as a reviewer reads it: key -> "unit end group". A row added, moved to another end
// or given another unit shows here.
const std::map<std::string, std::string>& Expected() {
  static const std::map<std::string, std::string> kRows = {
      {"sender_bits_per_second", "bit/s run "},
      {"receiver_bits_per_second", "bit/s run "},
      {"goodput_client_to_server_bits_per_second", "bit/s run "},
      {"goodput_client_to_server_sender_bits_per_second", "bit/s run "},
      {"goodput_server_to_client_bits_per_second", "bit/s run "},
      {"goodput_server_to_client_sender_bits_per_second", "bit/s run "},
      {"client_cpu_seconds_per_gigabyte", "CPU-s/GB client "},
      {"server_cpu_seconds_per_gigabyte", "CPU-s/GB server "},
      {"client_nic_interrupts_per_gigabyte", "irq/GB client "},
      {"server_nic_interrupts_per_gigabyte", "irq/GB server "},
      {"retransmits", "segments both "},
      {"mean_rtt_us", "us both "},
      {"client_process_user_seconds_per_gigabyte", "CPU-s/GB client "},
      {"client_process_system_seconds_per_gigabyte", "CPU-s/GB client "},
      {"client_softirq_seconds_per_gigabyte", "CPU-s/GB client "},
      {"client_irq_seconds_per_gigabyte", "CPU-s/GB client "},
      {"client_host_idle_percent", "% client "},
      {"server_process_user_seconds_per_gigabyte", "CPU-s/GB server "},
      {"server_process_system_seconds_per_gigabyte", "CPU-s/GB server "},
      {"server_softirq_seconds_per_gigabyte", "CPU-s/GB server "},
      {"server_irq_seconds_per_gigabyte", "CPU-s/GB server "},
      {"server_host_idle_percent", "% server "},
      {"rr_transactions_per_second", "tx/s run rr"},
      {"rr_latency_p50_us", "us run rr"},
      {"rr_latency_p90_us", "us run rr"},
      {"rr_latency_p99_us", "us run rr"},
      {"rr_latency_p99_9_us", "us run rr"},
      {"rr_latency_max_us", "us run rr"},
      {"rr_latency_mean_us", "us run rr"},
      {"rr_connect_p50_us", "us run rr"},
      {"rr_connect_p99_us", "us run rr"},
      {"rr_lost", "transactions run rr"},
      {"rr_late", "transactions run rr"},
      {"rr_client_process_us_per_transaction", "us/tx client rr"},
      {"rr_server_process_us_per_transaction", "us/tx server rr"},
      {"rr_client_host_us_per_transaction", "us/tx client rr"},
      {"rr_server_host_us_per_transaction", "us/tx server rr"},
      {"under_load_idle_p50_ms", "ms run under_load"},
      {"under_load_idle_p99_ms", "ms run under_load"},
      {"under_load_loaded_p50_ms", "ms run under_load"},
      {"under_load_loaded_p90_ms", "ms run under_load"},
      {"under_load_loaded_p99_ms", "ms run under_load"},
      {"under_load_loaded_max_ms", "ms run under_load"},
      {"under_load_added_ms", "ms run under_load"},
      {"under_load_loaded_rtt_ms", "ms run under_load"},
      {"under_load_idle_rpm", "RPM run under_load"},
      {"under_load_loaded_rpm", "RPM run under_load"},
      {"under_load_goodput_bits_per_second", "bit/s run under_load"},
      {"under_load_probe_share_percent", "% run under_load"},
      {"under_load_loaded_up_p50_ms", "ms run under_load"},
      {"under_load_loaded_down_p50_ms", "ms run under_load"},
      {"under_load_added_up_ms", "ms run under_load"},
      {"under_load_added_down_ms", "ms run under_load"},
      {"under_load_added_one_way_bound_ms", "ms run under_load"},
  };
  return kRows;
}

TEST(FigureTable, EachRowHasItsUnitAndEnd) {
  ASSERT_EQ(Figures().size(), Expected().size());
  for (const Figure& f : Figures()) {
    const auto it = Expected().find(f.key);
    ASSERT_NE(it, Expected().end()) << f.key;
    EXPECT_EQ(std::string(f.unit) + " " + FigureEndName(f.end) + " " + FigureGroupName(f.group),
              it->second)
        << f.key;
    EXPECT_NE(std::string(f.label), "") << f.key;
    EXPECT_NE(f.compute, nullptr) << f.key;
  }
}

TEST(FigureTable, EveryKeyIsUniqueAndCarriesItsGroupPrefix) {
  std::set<std::string> keys;
  const std::regex shape("[a-z][a-z0-9_]*");
  for (const Figure& f : Figures()) {
    EXPECT_TRUE(keys.insert(f.key).second) << "twice: " << f.key;
    EXPECT_TRUE(std::regex_match(std::string(f.key), shape)) << f.key;
    const std::string group = FigureGroupName(f.group);
    if (!group.empty()) {
      EXPECT_EQ(std::string(f.key).rfind(group + "_", 0), 0u) << f.key;
    }
    EXPECT_EQ(FindFigure(f.key), &f);
  }
  EXPECT_EQ(FindFigure("no_such_figure"), nullptr);
}

TEST(FigureTable, ValuesAreAnalysisOwnFigures) {
  const record::RunRecord run = testing::MakeRun();
  const FigureValues v = ComputeFigureValues(run);
  const RunFigures f = ComputeFigures(run);
  EXPECT_DOUBLE_EQ(v.Get("goodput_client_to_server_bits_per_second").value(),
                   f.client_to_server.receiver_bits_per_second.value());
  EXPECT_DOUBLE_EQ(v.Get("receiver_bits_per_second").value(), 8e9);  // one direction: its own
  EXPECT_DOUBLE_EQ(v.Get("client_cpu_seconds_per_gigabyte").value(),
                   f.client.cpu_seconds_per_gigabyte.value());
  EXPECT_DOUBLE_EQ(v.Get("mean_rtt_us").value(), 100);
  EXPECT_TRUE(v.AnyKnown(FigureGroup::kBulk));
  EXPECT_FALSE(v.AnyKnown(FigureGroup::kRr));
  EXPECT_FALSE(v.AnyKnown(FigureGroup::kUnderLoad));
}

TEST(FigureTable, AFigureMissingFromTheRecordIsUnknownWithItsReason) {
  const FigureValues v = ComputeFigureValues(testing::MakeRun());
  const auto& reverse = v.Get("goodput_server_to_client_bits_per_second");
  ASSERT_FALSE(reverse.known());
  EXPECT_EQ(reverse.why(), Missing::kAbsent);
  EXPECT_EQ(reverse.detail(), "no data in this direction");
  EXPECT_EQ(v.Get("rr_latency_p99_9_us").detail(), "not a request/response test");
  EXPECT_EQ(v.Get("under_load_loaded_rpm").detail(), "not an --under-load run");
  // A sender without TCP_INFO: the RTT is unknown, and says why.
  testing::RunShape shape;
  shape.rtt_us = 0;
  const FigureValues no_rtt = ComputeFigureValues(testing::MakeRun(shape));
  EXPECT_FALSE(no_rtt.Get("mean_rtt_us").known());
  EXPECT_EQ(no_rtt.Get("mean_rtt_us").detail(), "no sender TCP_INFO");
}

TEST(FigureTable, UnderLoadFiguresComeFromTheProbes) {
  record::RunRecord run = testing::MakeRun();
  record::UnderLoad u;
  u.probe_rate_per_second = 100;
  record::LatencySummary l;
  l.count = 100;
  l.p50_us = l.p90_us = l.p99_us = l.max_us = l.mean_us = 2000;
  record::RrStats kept;
  kept.transactions = 100;
  kept.latency = l;
  kept.latency_buckets = {{2000, 100}};
  u.loaded.kept = kept;
  run.under_load = u;
  const FigureValues v = ComputeFigureValues(run);
  EXPECT_DOUBLE_EQ(v.Get("under_load_loaded_p99_ms").value(), 2.0);
  EXPECT_DOUBLE_EQ(v.Get("under_load_goodput_bits_per_second").value(), 8e9);
  EXPECT_TRUE(v.AnyKnown(FigureGroup::kUnderLoad));
  // No idle probes were answered: unknown, with analysis's reason rather than "not a run".
  EXPECT_FALSE(v.Get("under_load_idle_p50_ms").known());
  EXPECT_NE(v.Get("under_load_idle_p50_ms").detail(), "not an --under-load run");
}

TEST(FigureTable, TheStoredFormKeepsValuesAndReasons) {
  const FigureValues v = ComputeFigureValues(testing::MakeRun());
  const nlohmann::json doc = FigureValuesToJson(v);
  EXPECT_TRUE(doc["goodput_server_to_client_bits_per_second"].is_null());
  EXPECT_EQ(doc["unknown"]["goodput_server_to_client_bits_per_second"],
            "not present: no data in this direction");
  const FigureValues back = FigureValuesFromJson(doc);
  for (const Figure& f : Figures()) {
    ASSERT_EQ(back[f].known(), v[f].known()) << f.key;
    if (v[f].known()) {
      EXPECT_DOUBLE_EQ(back[f].value(), v[f].value()) << f.key;
    } else {
      EXPECT_EQ(back[f].why(), v[f].why()) << f.key;
      EXPECT_EQ(back[f].detail(), v[f].detail()) << f.key;
    }
  }
  // A figure the stored document lacks (added to the table later) says so.
  nlohmann::json older = doc;
  older.erase("mean_rtt_us");
  EXPECT_EQ(FigureValuesFromJson(older).Get("mean_rtt_us").detail(),
            "not computed when the run was stored");
  EXPECT_FALSE(FigureValuesFromJson(nlohmann::json()).Get("retransmits").known());
}

}  // namespace
}  // namespace nicbench::analysis
