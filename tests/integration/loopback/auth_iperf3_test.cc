// iperf3 authentication both ways with Debian's iperf3 3.12 (docs/security.md): a stock client
// with credentials against `nicbench serve`, and `nicbench run` against `iperf3 -s` requiring
// them. The right credentials pass; each wrong kind is refused on both ends, and the server
// keeps serving a good client meanwhile. Keys are made with `openssl` in a temporary directory.
// 3.12 pads with PKCS#1 v1.5, so the nicbench end of each pair is given --use-pkcs1-padding.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "protocol/auth_token.h"
#include "regress/hostile_client.h"
#include "support/run_binary.h"
#include "support/wait.h"

namespace nicbench {
namespace {

using testing::ProcessResult;

class AuthTest : public ::testing::Test {
 public:
  const std::string& pub() const { return pub_; }

 protected:
  void SetUp() override {
    if (!testing::HaveProgram("openssl")) GTEST_SKIP() << "openssl is not installed";
    char pattern[] = "/tmp/nicbench-auth-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    priv_ = dir_ + "/server.key";
    pub_ = dir_ + "/server.pub";
    users_ = dir_ + "/users.csv";
    ASSERT_EQ(testing::RunProcess({"openssl", "genrsa", "-out", priv_, "2048"}).exit_code, 0);
    ASSERT_EQ(
        testing::RunProcess({"openssl", "rsa", "-in", priv_, "-pubout", "-out", pub_}).exit_code,
        0);
    chmod(priv_.c_str(), 0600);
    std::ofstream(users_) << "# iperf3 authorized users\nalice,"
                          << protocol::PasswordHashHex("alice", protocol::Secret("secret")) << "\n";
  }
  void TearDown() override {
    if (!dir_.empty()) (void)!std::system(("rm -rf " + dir_).c_str());
  }

  std::vector<std::string> ServeAuth(bool pkcs1 = true) const {
    std::vector<std::string> args = {"--rsa-private-key-path", priv_, "--authorized-users-path",
                                     users_};
    if (pkcs1) args.push_back("--use-pkcs1-padding");
    return args;
  }

  // A stock 3.12 client with `password` (none: no credentials) against `port`.
  ProcessResult StockClient(int port, const std::string& user, const std::string& password,
                            const std::string& source = "127.0.0.1") const {
    std::vector<std::string> argv = {"env",
                                     "IPERF3_PASSWORD=" + password,
                                     "iperf3",
                                     "-c",
                                     "127.0.0.1",
                                     "-p",
                                     std::to_string(port),
                                     "-B",
                                     source,
                                     "-n",
                                     "1M",
                                     "-J"};
    if (!user.empty()) {
      for (const std::string& a :
           {std::string("--username"), user, std::string("--rsa-public-key-path"), pub_}) {
        argv.push_back(a);
      }
    }
    return testing::RunProcess(argv);
  }

  std::string dir_, priv_, pub_, users_;
};

// iperf3 3.12 -J exits 0 after an authentication error; its document's "error" says it.
bool IperfSaysAuthFailed(const ProcessResult& r) {
  return (r.out + r.err).find("test authorization failed") != std::string::npos;
}

bool IperfPassed(const ProcessResult& r) {
  return r.exit_code == 0 && r.out.find("\"error\"") == std::string::npos;
}

TEST_F(AuthTest, StockClientWithCredentialsAgainstNicbenchServe) {
  if (!testing::HaveProgram("iperf3")) GTEST_SKIP() << "iperf3 is not installed";
  testing::ServeChild server = testing::StartServe(ServeAuth());
  ProcessResult good = StockClient(server.port, "alice", "secret");
  EXPECT_TRUE(IperfPassed(good)) << good.out << good.err;
  ProcessResult wrong = StockClient(server.port, "alice", "guess");
  EXPECT_TRUE(IperfSaysAuthFailed(wrong)) << wrong.out << wrong.err;
  ProcessResult unknown = StockClient(server.port, "mallory", "secret");
  EXPECT_TRUE(IperfSaysAuthFailed(unknown)) << unknown.out << unknown.err;
  ProcessResult none = StockClient(server.port, "", "");
  EXPECT_TRUE(IperfSaysAuthFailed(none)) << none.out << none.err;
  // Still serving a good client after the refusals.
  ProcessResult again = StockClient(server.port, "alice", "secret");
  EXPECT_TRUE(IperfPassed(again)) << again.out << again.err;
  ProcessResult s = server.process->Stop(SIGTERM);
  EXPECT_NE(s.err.find("authentication required"), std::string::npos) << s.err;
  EXPECT_EQ(regress::CountLines(s.err, "user alice: ok,"), 2) << s.err;
  EXPECT_NE(s.err.find("from 127.0.0.1:"), std::string::npos) << s.err;
  EXPECT_NE(s.err.find("wrong password for user 'alice'"), std::string::npos) << s.err;
  EXPECT_NE(s.err.find("unknown user 'mallory'"), std::string::npos) << s.err;
  EXPECT_NE(s.err.find("the client sent no token"), std::string::npos) << s.err;
  EXPECT_EQ(s.err.find("secret"), std::string::npos) << "a password in the log: " << s.err;
  EXPECT_EQ(s.err.find("guess"), std::string::npos) << "a password in the log: " << s.err;
}

TEST_F(AuthTest, OaepOnlyServerRefusesAPkcs1Client) {
  if (!testing::HaveProgram("iperf3")) GTEST_SKIP() << "iperf3 is not installed";
  testing::ServeChild server = testing::StartServe(ServeAuth(/*pkcs1=*/false));
  ProcessResult r = StockClient(server.port, "alice", "secret");
  EXPECT_TRUE(IperfSaysAuthFailed(r)) << r.out << r.err;
  ProcessResult s = server.process->Stop(SIGTERM);
  EXPECT_NE(s.err.find("does not decrypt"), std::string::npos) << s.err;
}

// A token sent by hand; the server's answer is SERVER_ERROR IEAUTHTEST (142), or anything
// else for a token it accepted (it goes on setting up the test).
int AnswerTo(int port, const std::string& token, int n) {
  nlohmann::json params = {{"tcp", true}, {"time", 1}, {"parallel", 1}, {"len", 131072}};
  if (!token.empty()) params["authtoken"] = token;
  const int fd = regress::OpenTest(port, regress::MakeCookie(n), params.dump());
  if (fd < 0) return -1000;
  int state = regress::ReadStateByte(fd);
  int code = state == 0xFE || state == -2 ? regress::ReadInt32(fd) : state;
  close(fd);
  return code;
}

TEST_F(AuthTest, NicbenchServeRefusesStaleReplayedAndMalformedTokens) {
  testing::ServeChild server = testing::StartServe(ServeAuth());
  auto key = protocol::RsaKey::LoadPublic(pub_);
  ASSERT_TRUE(key) << key.error().ToString();
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  auto token = [&](int64_t ts) {
    return *protocol::EncodeAuthToken("alice", protocol::Secret("secret"), *key,
                                      protocol::RsaPadding::kOaep, ts);
  };
  const std::string fresh = token(now);
  EXPECT_NE(AnswerTo(server.port, fresh, 1), 142);            // accepted
  EXPECT_EQ(AnswerTo(server.port, fresh, 2), 142);            // replayed
  EXPECT_EQ(AnswerTo(server.port, token(now - 60), 3), 142);  // stale
  EXPECT_EQ(AnswerTo(server.port, token(now + 60), 4), 142);  // from the future
  EXPECT_EQ(AnswerTo(server.port, "not*base64", 5), 142);
  EXPECT_EQ(AnswerTo(server.port, protocol::Base64Encode("short"), 6), 142);
  EXPECT_EQ(AnswerTo(server.port, protocol::Base64Encode(std::string(256, 'x')), 7), 142);
  // The server still serves: a nicbench client with credentials (OAEP, both ends ours).
  ProcessResult good =
      testing::RunProcess({"env", "IPERF3_PASSWORD=secret", testing::NicbenchPath(), "run",
                           "127.0.0.1", "-p", std::to_string(server.port), "-n", "1M", "--username",
                           "alice", "--rsa-public-key-path", pub_});
  EXPECT_EQ(good.exit_code, 0) << good.out << good.err;
  ProcessResult bad =
      testing::RunProcess({"env", "IPERF3_PASSWORD=guess", testing::NicbenchPath(), "run",
                           "127.0.0.1", "-p", std::to_string(server.port), "-n", "1M", "--username",
                           "alice", "--rsa-public-key-path", pub_});
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("test authorization failed"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find("wrong password"), std::string::npos) << "the client learns no reason";
  ProcessResult s = server.process->Stop(SIGTERM);
  for (const char* reason : {"replayed token of user 'alice'", "stale token of user 'alice'",
                             "not base64", "the token holds 5 bytes", "does not decrypt"}) {
    EXPECT_NE(s.err.find(reason), std::string::npos) << reason << "\n" << s.err;
  }
}

// `nicbench run` against a stock `iperf3 -s -1` that requires authentication.
ProcessResult RunAgainstStockServer(const AuthTest& t, const std::vector<std::string>& server_auth,
                                    const std::string& user, const std::string& password,
                                    bool pkcs1, std::string* server_err) {
  const int port = testing::FreeTcpPort();
  std::vector<std::string> argv = {"iperf3", "-s",       "-1", "-p", std::to_string(port),
                                   "-B",     "127.0.0.1"};
  argv.insert(argv.end(), server_auth.begin(), server_auth.end());
  testing::BackgroundProcess server(argv);
  // The client starts once the server listens (it was retried every 100 ms while it could not
  // connect, a guess at how long the server takes to start).
  if (!testing::WaitListening(port)) {
    ProcessResult failed;
    failed.err = "stock iperf3 -s did not listen";
    *server_err = server.Stop(SIGTERM).err;
    return failed;
  }
  std::vector<std::string> run = {"env",
                                  "IPERF3_PASSWORD=" + password,
                                  testing::NicbenchPath(),
                                  "run",
                                  "127.0.0.1",
                                  "-p",
                                  std::to_string(port),
                                  "-n",
                                  "1M",
                                  "--username",
                                  user,
                                  "--rsa-public-key-path",
                                  t.pub()};
  if (pkcs1) run.push_back("--use-pkcs1-padding");
  ProcessResult r = testing::RunProcess(run);
  *server_err = server.Stop(SIGTERM).out;
  return r;
}

TEST_F(AuthTest, NicbenchRunAgainstStockServerRequiringCredentials) {
  if (!testing::HaveProgram("iperf3")) GTEST_SKIP() << "iperf3 is not installed";
  const std::vector<std::string> auth = {"--rsa-private-key-path", priv_, "--authorized-users-path",
                                         users_};
  std::string server_out;
  ProcessResult good = RunAgainstStockServer(*this, auth, "alice", "secret", true, &server_out);
  EXPECT_EQ(good.exit_code, 0) << good.out << good.err << server_out;
  for (auto [user, password, pkcs1] :
       {std::tuple<std::string, std::string, bool>{"alice", "guess", true},
        {"mallory", "secret", true},
        {"alice", "secret", false}}) {  // OAEP: a 3.12 server cannot decrypt it
    ProcessResult r = RunAgainstStockServer(*this, auth, user, password, pkcs1, &server_out);
    EXPECT_EQ(r.exit_code, 1) << user << " " << pkcs1 << r.out << r.err;
    EXPECT_NE(r.err.find("test authorization failed"), std::string::npos) << r.err;
  }
}

// OAEP, both ways, with an iperf3 of 3.17 or later given by hand (its default padding):
// NICBENCH_IPERF3=../shared/anchors/iperf3-3.21. Skipped without it.
TEST_F(AuthTest, OaepBothWaysWithAModernIperf3) {
  const char* modern = std::getenv("NICBENCH_IPERF3");
  if (modern == nullptr || *modern == '\0') GTEST_SKIP() << "NICBENCH_IPERF3 is not set";
  testing::ServeChild server = testing::StartServe(ServeAuth(/*pkcs1=*/false));
  auto client = [&](const std::string& password) {
    return testing::RunProcess({"env", "IPERF3_PASSWORD=" + password, modern, "-c", "127.0.0.1",
                                "-p", std::to_string(server.port), "-n", "1M", "--username",
                                "alice", "--rsa-public-key-path", pub_});
  };
  ProcessResult good = client("secret");
  EXPECT_EQ(good.exit_code, 0) << good.out << good.err;
  EXPECT_TRUE(IperfSaysAuthFailed(client("guess")));
  server.process->Stop(SIGTERM);
  const int port = testing::FreeTcpPort();
  testing::BackgroundProcess stock({modern, "-s", "-1", "-p", std::to_string(port), "-B",
                                    "127.0.0.1", "--rsa-private-key-path", priv_,
                                    "--authorized-users-path", users_});
  ASSERT_TRUE(testing::WaitListening(port)) << stock.StderrSoFar();
  ProcessResult r = testing::RunProcess({"env", "IPERF3_PASSWORD=secret", testing::NicbenchPath(),
                                         "run", "127.0.0.1", "-p", std::to_string(port), "-n", "1M",
                                         "--username", "alice", "--rsa-public-key-path", pub_});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  stock.Stop(SIGTERM);
}

}  // namespace
}  // namespace nicbench
