// Bug: `nicbench matrix` on a stand left the stand as its last variant set it (TSO and GSO off
// afterwards, and the next run carried an offloads-off notice), also when interrupted (issue 27,
// item 11). The matrix now reads every veth end's offloads before the first change and puts
// them back at the end, finished or interrupted, saying so on stderr. Root only (a stand).
#include <signal.h>

#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "regress/stand_process_util.h"
#include "stand/readback.h"
#include "support/run_binary.h"

namespace nicbench::regress {
namespace {

struct MatrixStand {
  std::optional<stand::ScopedStand> stand;
  std::unique_ptr<testing::BackgroundProcess> serve;
  int port = 0;
};

// Stand `name` with a `nicbench serve` in h2; empty `stand` (and a test failure) when it failed.
MatrixStand UpWithServer(const std::string& name) {
  MatrixStand m;
  stand::StandSpec spec;
  spec.name = name;
  spec.profile = stand::Profile::kUnlimited;
  auto up = stand::ScopedStand::Create(spec);
  if (!up) {
    ADD_FAILURE() << up.error().ToString();
    return m;
  }
  m.stand.emplace(std::move(*up));
  const stand::HostInfo& h2 = m.stand->host(2);
  m.serve = std::make_unique<testing::BackgroundProcess>(
      std::vector<std::string>{"ip", "netns", "exec", h2.netns, testing::NicbenchPath(), "serve",
                               "-B", h2.address, "-p", "0"});
  m.port = testing::ServedPort(*m.serve);
  if (m.port == 0) ADD_FAILURE() << "serve did not start: " << m.serve->StderrSoFar();
  return m;
}

// "tso on, gso on" style state of every veth end of the stand.
std::string Offloads(const stand::ScopedStand& st) {
  stand::ProcessRunner runner;
  std::string text;
  for (int host = 1; host <= 2; ++host) {
    const stand::HostInfo& h = st.host(host);
    auto flags = stand::ReadOffloads(runner, h.netns, h.interface);
    if (!flags || !flags->tso || !flags->gso) return "unreadable";
    text += fmt::format("{}: tso {} gso {}; ", h.interface, *flags->tso ? "on" : "off",
                        *flags->gso ? "on" : "off");
  }
  return text;
}

std::string AllOn(const std::string& name) {
  return fmt::format("{0}-h1-e0: tso on gso on; {0}-h2-e0: tso on gso on; ", name);
}

// `nicbench matrix` in h1 against the server in h2, one round of the one variant that turns TSO
// and GSO off, each run `seconds` long.
std::vector<std::string> MatrixArgv(const MatrixStand& m, const std::string& seconds) {
  std::vector<std::string> argv = {"ip", "netns", "exec", m.stand->host(1).netns};
  for (std::string word :
       {testing::NicbenchPath(), std::string("matrix"), m.stand->host(2).address}) {
    argv.push_back(word);
  }
  for (const char* word : {"--vary", "tso=off", "--vary", "gso=off", "--repeat", "1", "--store"}) {
    argv.push_back(word);
  }
  argv.push_back(testing::TestStorePath());
  for (std::string word :
       {std::string("--"), std::string("-p"), std::to_string(m.port), std::string("-t"), seconds}) {
    argv.push_back(word);
  }
  return argv;
}

TEST(MatrixLeavesStandInLastVariant, AFinishedMatrixPutsTheOffloadsBack) {
  SKIP_UNLESS_STAND_PRIVILEGES();
  MatrixStand m = UpWithServer("st12m");
  ASSERT_TRUE(m.stand && m.port != 0);
  if (Offloads(*m.stand) != AllOn("st12m")) GTEST_SKIP() << "veth here starts without TSO/GSO";
  testing::ProcessResult r = testing::RunProcess(MatrixArgv(m, "1"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("stand st12m put back as it was: tso on, gso on"), std::string::npos)
      << r.err;
  EXPECT_EQ(Offloads(*m.stand), AllOn("st12m"));
}

// The pids of `pid`'s children (/proc/PID/task/PID/children, CONFIG_PROC_CHILDREN).
std::vector<int> Children(int pid) {
  std::ifstream in(fmt::format("/proc/{0}/task/{0}/children", pid));
  std::vector<int> pids;
  for (int child; in >> child;) pids.push_back(child);
  return pids;
}

bool IsRunChild(int pid) {
  std::ifstream in(fmt::format("/proc/{}/cmdline", pid));
  std::stringstream text;
  text << in.rdbuf();
  return text.str().find(std::string("run\0", 4)) != std::string::npos;
}

TEST(MatrixLeavesStandInLastVariant, AnInterruptedMatrixPutsTheOffloadsBack) {
  SKIP_UNLESS_STAND_PRIVILEGES();
  MatrixStand m = UpWithServer("st12n");
  ASSERT_TRUE(m.stand && m.port != 0);
  if (Offloads(*m.stand) != AllOn("st12n")) GTEST_SKIP() << "veth here starts without TSO/GSO";
  testing::BackgroundProcess matrix(MatrixArgv(m, "60"));
  // The variant is applied and its run is under way: Ctrl-C now, as a terminal sends it to the
  // whole foreground group (the matrix and its run).
  int run = 0;
  ASSERT_TRUE(testing::WaitUntil([&] {
    for (int child : Children(matrix.pid())) {
      if (IsRunChild(child)) run = child;
    }
    return run != 0;
  })) << matrix.StderrSoFar();
  ASSERT_NE(Offloads(*m.stand), AllOn("st12n")) << "the variant was not applied";
  kill(run, SIGINT);
  kill(matrix.pid(), SIGINT);
  testing::ProcessResult r = matrix.Wait();
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("stand st12n put back as it was: tso on, gso on"), std::string::npos)
      << r.err;
  EXPECT_EQ(Offloads(*m.stand), AllOn("st12n"));
}

}  // namespace
}  // namespace nicbench::regress
