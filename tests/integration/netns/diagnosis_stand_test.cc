// Diagnosis scenarios on the test stand: plant one cause, run the real binary between two
// namespaces, and check the finding it must produce (docs/diagnosis.md). Root only.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "accuracy_stand.h"
#include "support/cpu_hogs.h"
#include "support/run_binary.h"

namespace nicbench::accuracy {
namespace {

using stand::Profile;

// id -> severity of every finding in a JSON report.
using Findings = std::multimap<std::string, std::string>;

struct Outcome {
  bool run_missing = false;  // `nicbench run` is not built into this binary yet
  Findings findings;
  std::string titles;  // every title, one per line, for messages and phrase checks
};

Outcome RunPair(const stand::ScopedStand& st, std::vector<std::string> server_prefix,
                std::vector<std::string> client_args, std::vector<std::string> client_prefix = {}) {
  Outcome out;
  const auto& h1 = st.host(1);
  const auto& h2 = st.host(2);
  std::vector<std::string> server = std::move(server_prefix);
  for (std::string arg :
       {testing::NicbenchPath(), std::string("serve"), std::string("-B"), h2.address}) {
    server.push_back(std::move(arg));
  }
  testing::BackgroundProcess serve(InHost(h2, server));
  EXPECT_TRUE(WaitForListener(h2, 5201)) << "nicbench serve did not listen in " << h2.netns;
  std::vector<std::string> args = {"run", h2.address, "--json"};
  args.insert(args.end(), client_args.begin(), client_args.end());
  std::vector<std::string> client = std::move(client_prefix);
  for (std::string& arg : NicbenchIn(h1, args)) client.push_back(std::move(arg));
  testing::ProcessResult result = Run(client);
  if (result.err.find("not built yet") != std::string::npos) {
    out.run_missing = true;
    return out;
  }
  EXPECT_EQ(result.exit_code, 0) << result.err;
  nlohmann::json doc = ParseJson(result);
  if (!doc.is_object() || !doc.contains("findings")) {
    ADD_FAILURE() << "no findings in the JSON report (is Diagnose() called in run_command.cc?)";
    return out;
  }
  for (const auto& f : doc["findings"]) {
    out.findings.emplace(f.value("id", ""), f.value("severity", ""));
    out.titles += f.value("id", "") + ": " + f.value("title", "") + "\n";
  }
  return out;
}

bool AnyWarning(const Findings& findings) {
  return std::any_of(findings.begin(), findings.end(),
                     [](const auto& f) { return f.second == "warning" || f.second == "critical"; });
}

bool Has(const Outcome& o, const std::string& id) { return o.findings.count(id) > 0; }

// A warning other than the ones a busy host causes. When other processes take the CPU the run
// needs (CI's neighbours, the hog of scripts/check --stress), the run is held back and says so
// ("other processes take ~N% of it"), and its intervals may vary with them: true findings of a
// loaded host, not false alarms about the path.
bool AnyWarningBesidesCompetition(const Outcome& o) {
  const bool busy_host = o.titles.find("other processes take") != std::string::npos;
  for (const auto& [id, severity] : o.findings) {
    if (severity != "warning" && severity != "critical") continue;
    const bool competition = id == "sender-cpu-bound" || id == "receiver-cpu-bound" ||
                             id == "cpu-bound" || id == "measurement-unsteady";
    if (!(busy_host && competition)) return true;
  }
  return false;
}

#define SKIP_IF_RUN_MISSING(outcome) \
  if ((outcome).run_missing) GTEST_SKIP() << "nicbench run is not built yet"

TEST(DiagnosisStand, HundredBaseTxIsLinkRateLimitedAndNotCpuBound) {
  ACCURACY_SKIP_UNLESS_ROOT();
  auto st = UpStand("dgl", Profile::k100BaseTx);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  Outcome o = RunPair(*st, {}, {"-t", "5", "-O", "1"});
  SKIP_IF_RUN_MISSING(o);
  EXPECT_TRUE(Has(o, "link-rate-limited")) << o.titles;
  for (const char* id : {"sender-cpu-bound", "receiver-cpu-bound", "cpu-bound"}) {
    EXPECT_FALSE(Has(o, id)) << o.titles;
  }
}

using testing::CpuHogs;

// The stand's 100baseTX runs, forward and reverse, beside a CPU hog on every core: the link is
// the limit, nicbench is not held back, so no CPU or competition finding and no warning.
TEST(DiagnosisStand, HundredBaseTxBesideCpuHogsStaysQuiet) {
  ACCURACY_SKIP_UNLESS_ROOT();
  auto st = UpStand("dgh", Profile::k100BaseTx);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  CpuHogs hogs;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"-t", "5", "-O", "1"},
        std::vector<std::string>{"-t", "5", "-O", "1", "-R"}}) {
    Outcome o = RunPair(*st, {}, args);
    SKIP_IF_RUN_MISSING(o);
    EXPECT_TRUE(Has(o, "link-rate-limited")) << o.titles;
    EXPECT_FALSE(AnyWarning(o.findings)) << o.titles;
    for (const char* id : {"sender-cpu-bound", "receiver-cpu-bound", "cpu-bound"}) {
      EXPECT_FALSE(Has(o, id)) << o.titles;
    }
  }
}

TEST(DiagnosisStand, CleanUnshapedRunHasNoWarning) {
  ACCURACY_SKIP_UNLESS_ROOT();
  auto st = UpStand("dgc", Profile::kUnlimited);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  Outcome o = RunPair(*st, {}, {"-t", "4"});
  SKIP_IF_RUN_MISSING(o);
  EXPECT_FALSE(AnyWarningBesidesCompetition(o)) << o.titles;
}

TEST(DiagnosisStand, ReceiverStarvedByCompetitorOnItsCore) {
  ACCURACY_SKIP_UNLESS_ROOT();
  if (!testing::HaveProgram("taskset")) GTEST_SKIP() << "needs taskset (util-linux)";
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs two CPUs";
  auto st = UpStand("dgs", Profile::kUnlimited);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  // Three busy loops pinned to cpu0 inside the receiving host, and the server pinned there too.
  // The client is kept on cpu1 (the stand's hosts share one machine's cores): unpinned, the
  // scheduler lets it crowd cpu0 as well, and how much the busy loops get then varies from run
  // to run. The packets' softirq work follows the sender (veth delivers on the sending CPU), so
  // the receiver needs only about a third of cpu0: beside one busy loop, which CFS's wakeup
  // preemption makes yield to the sleeping receiver, the rate fell by 0-35% from run to run and
  // in some runs nothing was held back (CI once saw no finding). Beside three, the receiver
  // gets at most a quarter of the core, waits for it 50-70% of the time, and the rate halves.
  std::vector<std::unique_ptr<testing::BackgroundProcess>> hogs;
  for (int i = 0; i < 3; ++i) {
    hogs.push_back(std::make_unique<testing::BackgroundProcess>(
        InHost(st->host(2), {"taskset", "-c", "0", "sh", "-c", "while :; do :; done"})));
  }
  // The client's cpu1 is not ours alone: when other work on this machine takes most of it, the
  // sender is the end held back more, and the diagnosis rightly says so. Such a run is tried
  // again (a few times); a diagnosis that misses the starved receiver misses it every time.
  Outcome o;
  for (int attempt = 0; attempt < 3; ++attempt) {
    o = RunPair(*st, {"taskset", "-c", "0"}, {"-t", "5", "-O", "1"}, {"taskset", "-c", "1"});
    SKIP_IF_RUN_MISSING(o);
    if (Has(o, "receiver-cpu-bound") || !Has(o, "sender-cpu-bound")) break;
    std::printf("try %d: the sender's core was taken by other work: %s\n", attempt + 1,
                o.titles.c_str());
  }
  EXPECT_TRUE(Has(o, "receiver-cpu-bound")) << o.titles;
  EXPECT_NE(o.titles.find("other processes take"), std::string::npos) << o.titles;
}

TEST(DiagnosisStand, TsoOffIsReported) {
  ACCURACY_SKIP_UNLESS_ROOT();
  stand::Offloads off;
  off.tso = stand::Toggle::kOff;
  auto st = UpStand("dgt", Profile::k1000BaseT, off);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  Outcome o = RunPair(*st, {}, {"-t", "4"});
  SKIP_IF_RUN_MISSING(o);
  EXPECT_TRUE(Has(o, "offloads-off")) << o.titles;
  EXPECT_TRUE(Has(o, "cpu-cost")) << o.titles;
}

TEST(DiagnosisStand, DroppingShaperShowsRetransmissions) {
  ACCURACY_SKIP_UNLESS_ROOT();
  auto st = UpStand("dgd", Profile::k100BaseTx);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  const auto& h1 = st->host(1);
  // A queue of two frames in front of the bucket: TCP's bursts overflow it.
  auto tc =
      accuracy::Run({"tc", "-n", h1.netns, "qdisc", "replace", "dev", h1.interface, "root",
                     "handle", "1:", "tbf", "rate", "100mbit", "burst", "3100", "limit", "3100"});
  ASSERT_EQ(tc.exit_code, 0) << tc.err;
  Outcome o = RunPair(*st, {}, {"-t", "5"});
  SKIP_IF_RUN_MISSING(o);
  EXPECT_TRUE(Has(o, "retransmissions")) << o.titles;
  // The drop ladder counts the tbf's own drops (its root qdisc's counter) and names the qdisc
  // as the lowest layer that dropped (issue 28): not "not sampled".
  EXPECT_NE(o.titles.find("drop-ladder: The lowest layer that dropped packets: the qdisc at the "
                          "local client"),
            std::string::npos)
      << o.titles;
}

}  // namespace
}  // namespace nicbench::accuracy
