// run --server-key (docs/security.md): between nicbench ends the server proves it holds the
// private half of the key the client pins. The right key passes; another server's key, a
// server without a key and a stock iperf3 server are each refused with a clear error and a
// non-zero exit, before any data; the server keeps serving meanwhile. Keys are made with
// `openssl` in a temporary directory.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "protocol/auth_token.h"
#include "regress/hostile_client.h"
#include "support/run_binary.h"
#include "support/wait.h"

namespace nicbench {
namespace {

using testing::ProcessResult;

class ServerKeyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::HaveProgram("openssl")) GTEST_SKIP() << "openssl is not installed";
    char pattern[] = "/tmp/nicbench-server-key-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    for (const std::string name : {"server", "other"}) {
      const std::string priv = dir_ + "/" + name + ".key";
      ASSERT_EQ(testing::RunProcess({"openssl", "genrsa", "-out", priv, "2048"}).exit_code, 0);
      ASSERT_EQ(testing::RunProcess(
                    {"openssl", "rsa", "-in", priv, "-pubout", "-out", dir_ + "/" + name + ".pub"})
                    .exit_code,
                0);
      chmod(priv.c_str(), 0600);
    }
    users_ = dir_ + "/users.csv";
    std::ofstream(users_) << "alice,"
                          << protocol::PasswordHashHex("alice", protocol::Secret("secret")) << "\n";
  }
  void TearDown() override {
    if (!dir_.empty()) (void)!std::system(("rm -rf " + dir_).c_str());
  }

  std::string Path(const std::string& file) const { return dir_ + "/" + file; }

  testing::ServeChild ServeWithKey() const {
    return testing::StartServe(
        {"--rsa-private-key-path", Path("server.key"), "--authorized-users-path", users_});
  }

  // `nicbench run` as alice, pinning `pinned` (empty: no --server-key), with `extra` options
  // (a 1 MB transfer unless they say otherwise).
  ProcessResult Run(int port, const std::string& pinned,
                    const std::vector<std::string>& extra = {"-n", "1M"}) const {
    std::vector<std::string> argv = {"env",
                                     "IPERF3_PASSWORD=secret",
                                     testing::NicbenchPath(),
                                     "run",
                                     "127.0.0.1",
                                     "-p",
                                     std::to_string(port),
                                     "--username",
                                     "alice",
                                     "--rsa-public-key-path",
                                     Path("server.pub")};
    if (!pinned.empty()) {
      argv.push_back("--server-key");
      argv.push_back(pinned);
    }
    argv.insert(argv.end(), extra.begin(), extra.end());
    return testing::RunProcess(argv);
  }

  std::string dir_, users_;
};

TEST_F(ServerKeyTest, TheServersOwnKeyPasses) {
  testing::ServeChild server = ServeWithKey();
  ProcessResult r = Run(server.port, Path("server.pub"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // Request/response tests prove the key before NICBENCH_RR_READY.
  ProcessResult crr = Run(server.port, Path("server.pub"), {"--crr", "-t", "1"});
  EXPECT_EQ(crr.exit_code, 0) << crr.out << crr.err;
  ProcessResult s = server.process->Stop(SIGTERM);
  EXPECT_EQ(regress::CountLines(s.err, ": ok,"), 2) << s.err;
}

TEST_F(ServerKeyTest, AnotherKeyIsRefusedBeforeAnyData) {
  testing::ServeChild server = ServeWithKey();
  ProcessResult r = Run(server.port, Path("other.pub"), {"-n", "1M", "-J"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(
      r.out.find("refusing the server: it is not the one of --server-key " + Path("other.pub")),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("does not verify"), std::string::npos) << r.out;
  // The server serves the next client as ever.
  ProcessResult good = Run(server.port, Path("server.pub"));
  EXPECT_EQ(good.exit_code, 0) << good.out << good.err;
  server.process->Stop(SIGTERM);
}

TEST_F(ServerKeyTest, AServerWithoutAKeyIsRefused) {
  testing::ServeChild server = testing::StartServe();
  ProcessResult r = testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(server.port),
                                          "-n", "1M", "--server-key", Path("server.pub")});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("the server did not prove it holds the key of --server-key"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("no key to prove"), std::string::npos) << r.err;
  ProcessResult plain =
      testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(server.port), "-n", "1M"});
  EXPECT_EQ(plain.exit_code, 0) << plain.out << plain.err;
  ProcessResult s = server.process->Stop(SIGTERM);
  EXPECT_NE(s.err.find("pins a server key (--server-key) and this server has none"),
            std::string::npos)
      << s.err;
}

TEST_F(ServerKeyTest, AStockIperf3ServerIsRefused) {
  if (!testing::HaveProgram("iperf3")) GTEST_SKIP() << "iperf3 is not installed";
  const int port = testing::FreeTcpPort();
  testing::BackgroundProcess iperf3(
      {"iperf3", "-s", "-1", "-p", std::to_string(port), "-B", "127.0.0.1"});
  ASSERT_TRUE(testing::WaitListening(port));
  ProcessResult r = testing::RunNicbench({"run", "127.0.0.1", "-p", std::to_string(port), "-n",
                                          "1M", "--server-key", Path("server.pub")});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("did not prove it holds the key"), std::string::npos) << r.err;
}

TEST_F(ServerKeyTest, BadKeyFilesAreUsageErrorsNamingTheFile) {
  ProcessResult missing =
      testing::RunNicbench({"run", "127.0.0.1", "-p", "1", "--server-key", Path("absent.pub")});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("--server-key: cannot open key file " + Path("absent.pub")),
            std::string::npos)
      << missing.err;
  // A private key where the public one belongs.
  ProcessResult wrong_kind =
      testing::RunNicbench({"run", "127.0.0.1", "-p", "1", "--server-key", Path("server.key")});
  EXPECT_EQ(wrong_kind.exit_code, 2) << wrong_kind.err;
  EXPECT_NE(wrong_kind.err.find("--server-key: "), std::string::npos) << wrong_kind.err;
  EXPECT_NE(wrong_kind.err.find(Path("server.key")), std::string::npos) << wrong_kind.err;
  ProcessResult not_a_key =
      testing::RunNicbench({"run", "127.0.0.1", "-p", "1", "--server-key", users_});
  EXPECT_EQ(not_a_key.exit_code, 2) << not_a_key.err;
  EXPECT_NE(not_a_key.err.find(users_), std::string::npos) << not_a_key.err;
  // Loopback mode has no server to pin.
  ProcessResult loopback = testing::RunNicbench({"run", "--server-key", Path("server.pub")});
  EXPECT_EQ(loopback.exit_code, 2) << loopback.err;
  EXPECT_NE(loopback.err.find("--server-key need a HOST"), std::string::npos) << loopback.err;
}

}  // namespace
}  // namespace nicbench
