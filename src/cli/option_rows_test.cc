#include "cli/option_rows.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/option_tables.h"
#include "protocol/params.h"

namespace nicbench::cli {
namespace {

TEST(OptionRows, FirstNameIsTheFirstSpelling) {
  EXPECT_EQ(FirstName("-t,--time"), "-t");
  EXPECT_EQ(FirstName("--cport"), "--cport");
  EXPECT_EQ(FirstName("host"), "host");
}

TEST(OptionRows, ARangeErrorSaysTheRangeAndTheText) {
  EXPECT_EQ(*ParseInRange("--max-tests", "7", {1, 1024}), 7u);
  EXPECT_EQ(ParseInRange("--max-tests", "0", {1, 1024}).error().message,
            "--max-tests: expected 1..1024, got '0'");
  EXPECT_EQ(ParseInRange("--max-tests", "two", {1, 1024}).error().message,
            "--max-tests: expected 1..1024, got 'two'");
  EXPECT_EQ(ParseInRange("-n", "0", {1, UINT64_MAX, Reading::kByteSize}).error().message,
            "-n: must be at least 1");
  EXPECT_EQ(*ParseInRange("-n", "2K", {1, UINT64_MAX, Reading::kByteSize}), 2048u);
  EXPECT_NE(ParseInRange("-w", "wide", {0, UINT64_MAX, Reading::kByteSize})
                .error()
                .message.find("-w: 'wide'"),
            std::string::npos);
}

TEST(OptionRows, DurationsAndDecimalsName) {
  EXPECT_EQ(ParseDurationIn("--every", "0", std::chrono::seconds(1), std::chrono::hours(24))
                .error()
                .message,
            "--every 0: expected 1 s .. 86400 s");
  EXPECT_EQ(ParseNumberIn("--saturated-percent", "20", 50, 100).error().message,
            "--saturated-percent 20: expected a number 50..100");
  EXPECT_EQ(ParseMillis("-t", "2.5")->count(), 2500);
}

struct FakeArgs {
  std::string size, small, name;
  bool on = false;
};
struct FakeTarget {
  struct Inner {
    uint64_t size = 0;
  } inner;
  uint8_t small = 0;
  std::string name;
  bool on = false;
};

const OptionRow<FakeArgs, FakeTarget> kFakeRows[] = {
    {"-s,--size", "a size", &FakeArgs::size,
     SetNumber<Range{0, UINT64_MAX, Reading::kByteSize}, &FakeTarget::inner,
               &FakeTarget::Inner::size>},
    {"--small", "one byte", &FakeArgs::small, SetNumber<Range{}, &FakeTarget::small>},
    {"--name", "text", &FakeArgs::name, SetText<&FakeTarget::name>},
    {"--on", "a flag", &FakeArgs::on, SetFlag<&FakeTarget::on>},
};

TEST(OptionRows, ApplyRowsSetsTheGivenMembers) {
  FakeArgs args;
  args.size = "4K";
  args.on = true;
  FakeTarget target;
  target.name = "kept";
  ASSERT_TRUE(ApplyRows(args, std::span<const OptionRow<FakeArgs, FakeTarget>>(kFakeRows), target));
  EXPECT_EQ(target.inner.size, 4096u);
  EXPECT_EQ(target.name, "kept");  // not given: left alone
  EXPECT_TRUE(target.on);
  args.small = "300";  // the member's type bounds a row without an upper bound
  auto s = ApplyRows(args, std::span<const OptionRow<FakeArgs, FakeTarget>>(kFakeRows), target);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "--small: 300 is too large (at most 255)");
}

TEST(OptionRows, ADeclaredTableIsTheAppsOptions) {
  CLI::App app;
  FakeArgs args;
  AddRows(app, args, std::span<const OptionRow<FakeArgs, FakeTarget>>(kFakeRows));
  app.parse(std::vector<std::string>{"--on", "x", "--name", "3", "-s"});  // CLI11: reversed
  EXPECT_EQ(args.size, "3");
  EXPECT_EQ(args.name, "x");
  EXPECT_TRUE(args.on);
}

struct FakeTimes {
  std::chrono::milliseconds poll{0};
  double lease_secs = 0;
  std::optional<double> warn_bits_per_second;
};

constexpr Range kFakeRate{0, UINT64_MAX, Reading::kBitRate};

TEST(OptionRows, ADurationFillsMillisecondsOrSecondsAndARateAnOptional) {
  FakeTimes t;
  ASSERT_TRUE((SetDuration<10, 86400000, &FakeTimes::poll>("--poll", "2s", t)));
  EXPECT_EQ(t.poll.count(), 2000);
  ASSERT_TRUE((SetDuration<10, 86400000, &FakeTimes::lease_secs>("--lease", "1500ms", t)));
  EXPECT_DOUBLE_EQ(t.lease_secs, 1.5);
  EXPECT_EQ(
      (SetDuration<10, 86400000, &FakeTimes::lease_secs>("--lease", "5ms", t)).error().message,
      "--lease 5ms: expected 0.01 s .. 86400 s");
  EXPECT_DOUBLE_EQ(t.lease_secs, 1.5);  // a refused value leaves the member alone
  EXPECT_FALSE(t.warn_bits_per_second.has_value());
  ASSERT_TRUE((SetNumber<kFakeRate, &FakeTimes::warn_bits_per_second>("--warn", "100M", t)));
  EXPECT_DOUBLE_EQ(t.warn_bits_per_second.value_or(0), 100e6);
}

struct FakeListArgs {
  std::vector<std::string> items, groups;
  bool json = false, csv = false;
};
struct FakeListTarget {
  std::vector<std::string> items;
};

Status AddFakeItem(std::string_view name, const std::string& text, FakeListTarget& target) {
  if (text == "bad") return Fail(fmt::format("{}: '{}' is bad", name, text));
  target.items.push_back(text);
  return Ok();
}

const OptionRow<FakeListArgs, FakeListTarget> kFakeListRows[] = {
    {"--item", "one value each time", &FakeListArgs::items, AddFakeItem, "bad", nullptr,
     kRepeatable},
    {"--group", "several values each time", &FakeListArgs::groups, nullptr, nullptr, nullptr,
     kTakeAll},
    {"--json", "as JSON", &FakeListArgs::json},
    {"--csv", "as CSV", &FakeListArgs::csv, nullptr, nullptr, nullptr, kPlain, "--json"},
};

std::span<const OptionRow<FakeListArgs, FakeListTarget>> FakeListRows() { return kFakeListRows; }

TEST(OptionRows, ARepeatableRowsSetterTakesEachValueInTurn) {
  FakeListArgs args;
  args.items = {"a", "b"};
  FakeListTarget target;
  ASSERT_TRUE(ApplyRows(args, FakeListRows(), target));
  EXPECT_EQ(target.items, (std::vector<std::string>{"a", "b"}));
  args.items.push_back("bad");
  auto s = ApplyRows(args, FakeListRows(), target);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "--item: 'bad' is bad");
}

TEST(OptionRows, TakeAllKeepsSeveralValuesAndARowExcludesAnEarlierOne) {
  CLI::App app;
  FakeListArgs args;
  AddRows(app, args, FakeListRows());
  // CLI11 takes the arguments reversed: --group a b --group x --item 1 --item 2.
  app.parse(
      std::vector<std::string>{"2", "--item", "1", "--item", "x", "--group", "b", "a", "--group"});
  EXPECT_EQ(args.groups, (std::vector<std::string>{"a", "b", "x"}));
  EXPECT_EQ(args.items, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(app.get_option("--json")->get_excludes().size(), 1u) << "both ways, as --help shows";
  CLI::App both;
  FakeListArgs both_args;
  AddRows(both, both_args, FakeListRows());
  EXPECT_THROW(both.parse(std::vector<std::string>{"--csv", "--json"}), CLI::ExcludesError);
}

// A run row's wire name is a key of the parameters the client sends once its member is set.
TEST(OptionRows, RunRowsWireNamesAreParameterKeys) {
  engine::ClientConfig client;
  record::TestSpec& spec = client.spec;
  spec.transport = record::Transport::kUdp;
  spec.direction = record::Direction::kReverse;
  spec.rate_bits_per_second = spec.fq_rate_bits_per_second = 1;
  spec.window_bytes = spec.mss_bytes = spec.flowlabel = 1;
  spec.tos = spec.server_affinity = 1;
  spec.no_delay = spec.get_server_output = spec.udp_counters_64bit = true;
  spec.repeating_payload = spec.dont_fragment = true;
  spec.zero_copy = record::ZeroCopy::kSendfile;
  spec.congestion = spec.title = spec.extra_data = "x";
  const nlohmann::ordered_json params = protocol::EncodeParams(spec, std::nullopt, "");
  spec.direction = record::Direction::kBidirectional;
  const nlohmann::ordered_json bidir = protocol::EncodeParams(spec, std::nullopt, "");
  int wired = 0;
  for (const RowView& row : CommandRows("run")) {
    if (row.wire.empty()) continue;
    ++wired;
    EXPECT_TRUE(params.contains(row.wire) || bidir.contains(row.wire))
        << row.names << ": " << row.wire;
  }
  EXPECT_GT(wired, 20);
}

}  // namespace
}  // namespace nicbench::cli
