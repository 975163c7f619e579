// The seed comparison end to end on a test stand: `nicbench matrix` over tso=on,off x
// direction=forward,reverse with --repeat 5 on an unshaped veth link (the stand's own TSO toggle,
// applied in place between runs), then `compare` of TSO on against off. Needs root.
//
// What is asserted: the experiment completes with 5 runs of each of the 4 variants; compare shows
// the offload in "what differs" on both ends; the receiver's median CPU per GB is higher with TSO
// off in both directions, and significant by the exact U test in at least one of them. Both ends
// of a stand share the machine's cores, so other processes' CPU time lands in the same host-wide
// figure: at a load average of 10 the figures were forward 1.0 -> 6.3 and 1.9 -> 7.6 CPU-s/GB
// (p = 0.0079, the samples entirely apart), reverse 0.9 -> 3.4 (p = 0.0079) and 1.3 -> 6.1
// (p = 0.032: one slow run overlapped), so significance in both directions at once is not
// robust on a loaded machine and is printed rather than asserted.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "accuracy_stand.h"
#include "stand/stand.h"
#include "store/store.h"
#include "support/run_binary.h"

namespace nicbench {
namespace {

using accuracy::InHost;
using accuracy::NicbenchIn;
using nlohmann::json;

const json* Metric(const json& doc, const std::string& key) {
  for (const auto& m : doc["metrics"]) {
    if (m["key"] == key) return &m;
  }
  return nullptr;
}

const json* Differs(const json& doc, const std::string& fact) {
  for (const auto& d : doc["differs"]) {
    if (d["fact"] == fact) return &d;
  }
  return nullptr;
}

TEST(MatrixStand, TsoOffCostsTheReceiverCpuAndShowsInWhatDiffers) {
  ACCURACY_SKIP_UNLESS_ROOT();
  stand::StandSpec spec;
  spec.name = "cmpmx";
  spec.profile = stand::Profile::kUnlimited;
  auto st = stand::ScopedStand::Create(spec);
  ASSERT_TRUE(st) << st.error().message;
  const auto& h1 = st->host(1);
  const auto& h2 = st->host(2);
  testing::BackgroundProcess serve(
      InHost(h2, {testing::NicbenchPath(), "serve", "-B", h2.address}));
  ASSERT_TRUE(accuracy::WaitForListener(h2, 5201)) << serve.StderrSoFar();
  const std::string db = testing::TestStorePath();

  auto matrix = testing::RunProcess(
      NicbenchIn(h1, {"matrix", h2.address, "--vary", "tso=on,off", "--vary",
                      "direction=forward,reverse", "--repeat", "5", "--seed", "5", "--store", db,
                      "--json", "--", "-t", "2", "-O", "0.5"}),
      "", std::chrono::seconds(600));
  ASSERT_EQ(matrix.exit_code, 0) << matrix.err;
  const json table = json::parse(matrix.out);
  ASSERT_EQ(table["variants"].size(), 4u);
  for (const auto& v : table["variants"]) EXPECT_EQ(v["runs"], 5) << v["name"];

  int significant = 0;
  for (const std::string direction : {"forward", "reverse"}) {
    auto r =
        testing::RunNicbench({"compare", "label:tso=on,direction=" + direction,
                              "label:tso=off,direction=" + direction, "--store", db, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json doc = json::parse(r.out);
    EXPECT_EQ(doc["a"]["runs"], 5);
    EXPECT_EQ(doc["b"]["runs"], 5);
    for (const char* end : {"client", "server"}) {
      const json* tso = Differs(doc, std::string(end) + ".offload.tcp-segmentation-offload");
      ASSERT_NE(tso, nullptr) << end << " " << r.out;
      EXPECT_EQ((*tso)["a"][0]["value"], "on");
      EXPECT_EQ((*tso)["b"][0]["value"], "off");
      EXPECT_TRUE((*tso)["between"].get<bool>());
    }
    // The receiver: the server in the forward runs, the client in the reverse ones.
    const std::string receiver = direction == "forward" ? "server" : "client";
    const json* cpu = Metric(doc, receiver + "_cpu_seconds_per_gigabyte");
    ASSERT_NE(cpu, nullptr) << r.out;
    EXPECT_EQ((*cpu)["name"], receiver + " (receiver) CPU per GB");
    EXPECT_EQ((*cpu)["a"]["n"], 5);
    EXPECT_EQ((*cpu)["b"]["n"], 5);
    EXPECT_TRUE((*cpu)["exact"].get<bool>()) << cpu->dump();
    EXPECT_NE((*cpu)["verdict"], "too few runs") << cpu->dump();
    EXPECT_GT((*cpu)["b"]["median"].get<double>(), (*cpu)["a"]["median"].get<double>());
    significant += (*cpu)["verdict"] == "significant" ? 1 : 0;
    std::printf("%s: receiver CPU per GB, TSO on %.3f -> off %.3f CPU-s/GB, p=%.4f, %s\n",
                direction.c_str(), (*cpu)["a"]["median"].get<double>(),
                (*cpu)["b"]["median"].get<double>(), (*cpu)["p"].get<double>(),
                (*cpu)["verdict"].get<std::string>().c_str());
  }
  EXPECT_GE(significant, 1) << "TSO off made no significant receiver CPU difference either way";
}

}  // namespace
}  // namespace nicbench
