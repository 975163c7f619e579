// Bad input for the authentication and access-control options (docs/security.md): a key file
// that does not exist, is not a key, is the wrong kind or is readable by others; an authorized
// users file with a bad line; a malformed CIDR. Each is refused with exit 2 and a line naming
// the file or value, before the server listens or the client connects.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_binary.h"

namespace nicbench {
namespace {

class AuthCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::HaveProgram("openssl")) GTEST_SKIP() << "openssl is not installed";
    char pattern[] = "/tmp/nicbench-authcli-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    ASSERT_EQ(testing::RunProcess({"openssl", "genrsa", "-out", Path("key"), "2048"}).exit_code, 0);
    ASSERT_EQ(
        testing::RunProcess({"openssl", "rsa", "-in", Path("key"), "-pubout", "-out", Path("pub")})
            .exit_code,
        0);
    chmod(Path("key").c_str(), 0600);
    Write("users", "alice," + std::string(64, 'a') + "\n", 0644);
    Write("badusers", "# users\nalice," + std::string(64, 'a') + "\nbob\n", 0644);
    Write("junk", "this is not a key\n", 0600);
    std::ifstream in(Path("key"));
    std::string key((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Write("loosekey", key, 0644);
    testing::RunProcess(
        {"openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", Path("eckey")});
    chmod(Path("eckey").c_str(), 0600);
  }
  void TearDown() override {
    if (!dir_.empty()) (void)!std::system(("rm -rf " + dir_).c_str());
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  void Write(const std::string& name, const std::string& text, mode_t mode) const {
    std::ofstream(Path(name)) << text;
    chmod(Path(name).c_str(), mode);
  }
  void ExpectRefused(const std::vector<std::string>& args, const std::string& message,
                     const std::string& stdin_text = "") const {
    testing::ProcessResult r = testing::RunNicbench(args, stdin_text);
    EXPECT_EQ(r.exit_code, 2) << testing::NicbenchPath() << " " << ::testing::PrintToString(args)
                              << "\n"
                              << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos)
        << "expected '" << message << "' in: " << r.err;
  }
  std::string dir_;
};

TEST_F(AuthCli, ServeRefusesBadKeysUsersFilesAndCidrs) {
  auto serve = [&](const std::string& key, const std::string& users) {
    return std::vector<std::string>{
        "serve",    "-p", "0", "--rsa-private-key-path", Path(key), "--authorized-users-path",
        Path(users)};
  };
  ExpectRefused(serve("none", "users"), "cannot open key file " + Path("none"));
  ExpectRefused(serve("junk", "users"), Path("junk") + " is not an unencrypted PEM private key");
  ExpectRefused(serve("pub", "users"), "private key file " + Path("pub") + " is accessible");
  chmod(Path("pub").c_str(), 0600);
  ExpectRefused(serve("pub", "users"), Path("pub") + " is a public key");
  ExpectRefused(serve("eckey", "users"), Path("eckey") + " is not an RSA key");
  ExpectRefused(serve("loosekey", "users"), "chmod 600 " + Path("loosekey"));
  ExpectRefused(serve("key", "badusers"),
                "authorized users file " + Path("badusers") + ":3: expected username,SHA256HEX");
  ExpectRefused(serve("key", "nousers"), "cannot open authorized users file " + Path("nousers"));
  ExpectRefused({"serve", "-p", "0", "--rsa-private-key-path", Path("key")},
                "--rsa-private-key-path and --authorized-users-path go together");
  auto with_skew = serve("key", "users");
  with_skew.insert(with_skew.end(), {"--time-skew-threshold", "0"});
  ExpectRefused(with_skew, "--time-skew-threshold: expected seconds 1..86400");
  ExpectRefused({"serve", "-p", "0", "--allow", "10.1.2.3/8"},
                "--allow '10.1.2.3/8': address bits are set past the /8 prefix");
  ExpectRefused({"serve", "-p", "0", "--allow", "127.0.0.1", "--deny", "example.com"},
                "--deny 'example.com': not an IPv4 or IPv6 address");
  ExpectRefused({"serve", "-p", "0", "--deny", "::1/200"}, "--deny '::1/200'");
  ExpectRefused({"serve", "-p", "0", "--max-tests-per-client", "0"},
                "--max-tests-per-client: expected 1..1024");
  ExpectRefused({"serve", "-p", "0", "--max-tests-per-client-per-hour", "x"},
                "--max-tests-per-client-per-hour: expected 1..1000000");
  ExpectRefused({"serve", "-p", "0", "--max-tests-per-subnet", "0"},
                "--max-tests-per-subnet: expected 1..1024, got '0'");
  ExpectRefused({"serve", "-p", "0", "--max-tests-per-subnet", "two"},
                "--max-tests-per-subnet: expected 1..1024, got 'two'");
  ExpectRefused({"serve", "-p", "0", "--max-tests-per-subnet", "2", "--subnet-prefix-v4", "33"},
                "--subnet-prefix-v4: expected a prefix length 1..32, got '33'");
  ExpectRefused({"serve", "-p", "0", "--max-tests-per-subnet", "2", "--subnet-prefix-v6", "0"},
                "--subnet-prefix-v6: expected a prefix length 1..128, got '0'");
  ExpectRefused({"serve", "-p", "0", "--subnet-prefix-v4", "16"},
                "--subnet-prefix-v4 and --subnet-prefix-v6 need --max-tests-per-subnet");
}

TEST_F(AuthCli, RunRefusesBadKeysAndAMissingPassword) {
  ExpectRefused({"run", "127.0.0.1", "--username", "alice"},
                "--username needs --rsa-public-key-path");
  ExpectRefused({"run", "127.0.0.1", "--rsa-public-key-path", Path("pub")}, "need --username");
  ExpectRefused({"run", "127.0.0.1", "--username", "alice", "--rsa-public-key-path", Path("none")},
                "cannot open key file " + Path("none"));
  ExpectRefused({"run", "127.0.0.1", "--username", "alice", "--rsa-public-key-path", Path("key")},
                Path("key") + " is a private key");
  ExpectRefused({"run", "127.0.0.1", "--username", "alice", "--rsa-public-key-path", Path("junk")},
                Path("junk") + " is not a PEM public key");
  // The tests' stdin is a pipe, not a terminal: no prompt, a clear message instead.
  unsetenv("IPERF3_PASSWORD");
  ExpectRefused({"run", "127.0.0.1", "--username", "alice", "--rsa-public-key-path", Path("pub")},
                "set IPERF3_PASSWORD");
}

}  // namespace
}  // namespace nicbench
