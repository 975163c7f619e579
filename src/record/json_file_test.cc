// The -F file record in an endpoint's JSON: written only when the end used a file, read back
// whole (a nicbench server's record reaches the client this way), checked member by member.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "record/json.h"

namespace nicbench::record {
namespace {

using nlohmann::json;

TEST(FileRecordJson, AnEndWithoutAFileHasNoFileMember) {
  EndpointRecord end;
  end.role = record::Role::kClient;
  EXPECT_FALSE(json(end).contains("file"));
  auto back = EndpointFromJson(json(end));
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_FALSE(back->file);
}

TEST(FileRecordJson, RoundTripsThroughTheEndpointRecord) {
  EndpointRecord end;
  end.role = record::Role::kServer;
  FileRecord f;
  f.path = "/tmp/out";
  f.write = true;
  f.streams = 2;
  f.bytes = 4096;
  f.call_seconds = 0.5;
  f.sync_seconds = 0.25;
  f.direct_requested = f.direct_used = true;
  f.filesystem = "xfs";
  f.notes = {"a note"};
  end.file = f;
  json j = end;
  EXPECT_EQ(j["file"]["mode"], "write");
  EXPECT_DOUBLE_EQ(j["file"]["bytes_per_second"].get<double>(), 8192.0);
  auto back = EndpointFromJson(json::parse(j.dump()));
  ASSERT_TRUE(back) << back.error().ToString();
  ASSERT_TRUE(back->file);
  EXPECT_EQ(back->file->path, "/tmp/out");
  EXPECT_TRUE(back->file->write);
  EXPECT_EQ(back->file->streams, 2);
  EXPECT_EQ(back->file->bytes, 4096u);
  EXPECT_DOUBLE_EQ(back->file->sync_seconds, 0.25);
  EXPECT_TRUE(back->file->direct_used);
  EXPECT_EQ(back->file->notes, std::vector<std::string>{"a note"});
}

TEST(FileRecordJson, ABadMemberIsRejectedWithItsPath) {
  EndpointRecord end;
  end.file = FileRecord{};
  json j = end;
  j["file"]["mode"] = "append";
  auto back = EndpointFromJson(j);
  ASSERT_FALSE(back);
  EXPECT_NE(back.error().message.find("file.mode"), std::string::npos) << back.error().message;
  j["file"]["mode"] = "read";
  j["file"]["bytes"] = -1;
  back = EndpointFromJson(j);
  ASSERT_FALSE(back);
  EXPECT_NE(back.error().message.find("file.bytes"), std::string::npos) << back.error().message;
}

}  // namespace
}  // namespace nicbench::record
