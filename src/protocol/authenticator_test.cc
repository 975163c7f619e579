#include "protocol/authenticator.h"

#include <gtest/gtest.h>

#include "protocol/auth_test_keys.h"

namespace nicbench::protocol {
namespace {

constexpr int64_t kNow = 1800000000;

class AuthenticatorTest : public ::testing::Test {
 protected:
  AuthenticatorTest() : auth_(MakeConfig()) {}
  static AuthConfig MakeConfig() {
    AuthConfig config;
    config.private_key = *RsaKey::ParsePrivate(testkeys::Rsa2048().private_pem, "priv");
    config.users = *AuthorizedUsers::Parse(
        "alice," + PasswordHashHex("alice", Secret("secret")) + "\n", "users");
    config.skew_threshold = std::chrono::seconds(10);
    return config;
  }
  std::string Token(const std::string& user, const std::string& password, int64_t ts) {
    auto pub = RsaKey::ParsePublic(testkeys::Rsa2048().public_pem, "pub");
    auto token = EncodeAuthToken(user, Secret(password), *pub, RsaPadding::kOaep, ts);
    EXPECT_TRUE(token);
    return *token;
  }
  std::string Refusal(const std::string& token, int64_t now = kNow) {
    auto user = auth_.Verify(token, now);
    return user ? std::string("accepted") : user.error().message;
  }
  Authenticator auth_;
};

TEST_F(AuthenticatorTest, AcceptsTheRightPasswordWithinTheWindow) {
  for (int64_t ts : {kNow, kNow - 10, kNow + 10}) {
    auto user = auth_.Verify(Token("alice", "secret", ts), kNow);
    ASSERT_TRUE(user) << user.error().message;
    EXPECT_EQ(*user, "alice");
  }
  EXPECT_EQ(auth_.remembered(), 3u);
}

TEST_F(AuthenticatorTest, SaysWhyItRefusesWithoutTheSecret) {
  std::string wrong = Refusal(Token("alice", "guess", kNow));
  EXPECT_EQ(wrong, "wrong password for user 'alice'");
  EXPECT_EQ(Refusal(Token("mallory", "secret", kNow)), "unknown user 'mallory'");
  EXPECT_NE(Refusal(Token("alice", "secret", kNow - 11)).find("stale token of user 'alice'"),
            std::string::npos);
  EXPECT_NE(Refusal(Token("alice", "secret", kNow + 11)).find("stale token"), std::string::npos);
  EXPECT_NE(Refusal("not base64").find("not base64"), std::string::npos);
  for (const std::string& text : {wrong, Refusal(Token("mallory", "secret", kNow))}) {
    EXPECT_EQ(text.find("secret"), std::string::npos);
    EXPECT_EQ(text.find("guess"), std::string::npos);
  }
}

TEST_F(AuthenticatorTest, RefusesATokenSeenBeforeWithinTheWindow) {
  const std::string token = Token("alice", "secret", kNow);
  EXPECT_EQ(Refusal(token), "accepted");
  EXPECT_EQ(Refusal(token, kNow + 5), "replayed token of user 'alice' (accepted once already)");
  // Out of the window it is stale, and no longer remembered.
  EXPECT_NE(Refusal(token, kNow + 11).find("stale"), std::string::npos);
  EXPECT_EQ(Refusal(Token("alice", "secret", kNow + 30), kNow + 30), "accepted");
  EXPECT_EQ(auth_.remembered(), 1u);
}

TEST(LoggableName, KeepsPrintableAsciiOnly) {
  EXPECT_EQ(LoggableName("al\x1b]0;x\aice"), "al?]0;x?ice");
  EXPECT_EQ(LoggableName(std::string(70, 'a')), std::string(64, 'a') + "...");
}

}  // namespace
}  // namespace nicbench::protocol
