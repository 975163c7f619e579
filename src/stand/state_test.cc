#include "stand/state.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace nicbench::stand {
namespace {

StandState SampleState() {
  StandState state;
  state.spec.name = "lab";
  state.spec.hosts = 3;
  state.spec.profile = Profile::k100BaseTx;
  state.spec.mtu = 9000;
  state.spec.offloads.tso = Toggle::kOff;
  state.spec.offloads.checksum = Toggle::kOn;
  state.spec.delay_ms = 7;
  state.spec.hosts = 3;
  state.spec.queue_limit = QueueLimit{0, 120};
  state.spec.queue_limit_on = 2;
  state.subnet_index = 258;
  state.shaper = Shaper::kHtb;
  state.qdiscs = {false, true, std::nullopt};
  return state;
}

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/nb-stand-test-XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(StandStateTest, JsonRoundTrip) {
  StandState state = SampleState();
  auto back = StateFromJson(StateToJson(state));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, state);
}

TEST(StandStateTest, RejectsDamagedFiles) {
  EXPECT_FALSE(StateFromJson(""));
  EXPECT_FALSE(StateFromJson("[1]"));
  EXPECT_FALSE(StateFromJson(R"({"version":1})"));
  std::string text = StateToJson(SampleState());
  EXPECT_FALSE(StateFromJson(text.substr(0, text.size() / 2)));
  std::string bad_profile = text;
  bad_profile.replace(bad_profile.find("100baseTX"), 9, "56kModem0");
  EXPECT_FALSE(StateFromJson(bad_profile));
  std::string future = text;
  future.replace(future.find("\"version\": 1"), 12, "\"version\": 9");
  EXPECT_FALSE(StateFromJson(future));
}

TEST(StandStateTest, ChoosesTheLowestFreeSubnet) {
  EXPECT_EQ(ChooseSubnet({}).value(), 0);
  EXPECT_EQ(ChooseSubnet({0, 1, 3}).value(), 2);
  std::vector<int> all;
  for (int i = 0; i < kSubnetCount; ++i) all.push_back(i);
  EXPECT_FALSE(ChooseSubnet(all));
}

TEST(StandStateTest, SaveLoadListRemove) {
  TempDir temp;
  StateDir dir(temp.path() + "/sub");  // created on first save
  EXPECT_FALSE(dir.Load("lab").value().has_value());
  EXPECT_TRUE(dir.LoadAll().value().empty());
  ASSERT_TRUE(dir.Save(SampleState()));
  StandState other = SampleState();
  other.spec.name = "alpha";
  ASSERT_TRUE(dir.Save(other));
  EXPECT_EQ(dir.Load("lab").value().value(), SampleState());
  auto all = dir.LoadAll().value();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].spec.name, "alpha");  // sorted
  ASSERT_TRUE(dir.Remove("lab"));
  EXPECT_TRUE(dir.Remove("lab"));  // already gone is fine
  EXPECT_EQ(dir.LoadAll().value().size(), 1u);
}

TEST(StandStateTest, AGarbledFileIsSkippedByLoadAll) {
  TempDir temp;
  StateDir dir(temp.path());
  ASSERT_TRUE(dir.Save(SampleState()));
  std::ofstream(dir.PathOf("bad")) << "{not json";
  EXPECT_FALSE(dir.Load("bad"));
  EXPECT_EQ(dir.LoadAll().value().size(), 1u);
}

TEST(StandStateTest, LockCanBeTakenAgainAfterRelease) {
  TempDir temp;
  StateDir dir(temp.path());
  {
    auto lock = dir.Acquire();
    ASSERT_TRUE(lock);
  }
  auto again = dir.Acquire();
  EXPECT_TRUE(again);
}

}  // namespace
}  // namespace nicbench::stand
