#include "cli/mesh_definition.h"

#include <gtest/gtest.h>

#include <string>

#include "cli/option_tables_fleet.h"

namespace nicbench::cli {
namespace {

// `mesh create NAME --hosts ... --every ... --test ...` through create's rows, as the command runs.
Result<store::MeshSpec> Create(const MeshArgs& args) {
  store::MeshSpec spec;
  if (auto s = ApplyRows(args, MeshCreateRows(), spec); !s) return tl::unexpected(s.error());
  return MeshFromArgs(args, std::move(spec));
}

TEST(MeshDefinition, CreatesRowsFillTheMeshAndItsPairs) {
  MeshArgs args;
  args.name = "lab";
  args.hosts = "a,b c";
  args.every = "90s";
  args.test = "-t 5";
  auto mesh = Create(args);
  ASSERT_TRUE(mesh) << mesh.error().message;
  EXPECT_EQ(mesh->hosts, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(mesh->pairs.size(), 3u);
  EXPECT_DOUBLE_EQ(mesh->every_secs, 90);
  EXPECT_EQ(mesh->test, (std::vector<std::string>{"-t", "5"}));
  EXPECT_EQ(mesh->definition["every"], "90s");
  args.both_directions = true;
  EXPECT_EQ(Create(args)->pairs.size(), 6u);
}

TEST(MeshDefinition, EachRowsErrorNamesItsOption) {
  MeshArgs args;
  args.name = "lab";
  args.hosts = "a,a";
  EXPECT_EQ(Create(args).error().message, "--hosts: host 'a' is named twice");
  args.hosts = "a";
  EXPECT_EQ(Create(args).error().message, "--hosts: a mesh needs at least two hosts");
  args.hosts = "a,b";
  args.every = "0.5s";
  EXPECT_EQ(Create(args).error().message, "--every 0.5s: expected 1 s .. 31536000 s");
  args.every = "1h";
  args.test = "-t 1 -R";
  EXPECT_EQ(Create(args).error().message.rfind("--test '-t 1 -R': a mesh's test runs", 0), 0u)
      << Create(args).error().message;
  // What concerns two options stays in the definition's own check.
  args.test = "-t 10";
  args.every = "5s";
  EXPECT_EQ(Create(args).error().message, "every '5s' is not longer than the test (10 s)");
  args.every = "1h";
  args.name = "no spaces";
  EXPECT_NE(Create(args).error().message.find("mesh name 'no spaces'"), std::string::npos);
}

TEST(MeshDefinition, AFilesPeriodHasTheRowsRange) {
  const nlohmann::json doc = {{"hosts", {"a", "b"}}, {"every", "0s"}};
  EXPECT_EQ(MeshFromJson("lab", doc, "mesh.json").error().message,
            "mesh.json: every 0s: expected 1 s .. 31536000 s");
  auto mesh = MeshFromJson("lab", {{"hosts", {"a", "b"}}, {"every", "10m"}}, "mesh.json");
  ASSERT_TRUE(mesh) << mesh.error().message;
  EXPECT_DOUBLE_EQ(mesh->every_secs, 600);
  EXPECT_EQ(mesh->test, (std::vector<std::string>{"-t", "10"}));
}

}  // namespace
}  // namespace nicbench::cli
