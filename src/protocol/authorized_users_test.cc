#include "protocol/authorized_users.h"

#include <cctype>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace nicbench::protocol {
namespace {

// printf '%s' '{alice}secret' | sha256sum
constexpr const char* kAliceHash =
    "27b307f21eb6137ab56a3c80a93a5db840e79a697f80f3381c87edaa79a83f6f";

TEST(AuthorizedUsers, HashIsSha256OfBracedUserThenPassword) {
  EXPECT_EQ(PasswordHashHex("alice", Secret("secret")), kAliceHash);
}

TEST(AuthorizedUsers, ChecksUsersOfAnIperf3File) {
  const std::string text = std::string("# comment\n\nalice,") + kAliceHash + "\r\nbob," +
                           PasswordHashHex("bob", Secret("pw")) + "\n";
  auto users = AuthorizedUsers::Parse(text, "users.csv");
  ASSERT_TRUE(users) << users.error().ToString();
  EXPECT_EQ(users->size(), 2u);
  using V = AuthorizedUsers::Verdict;
  EXPECT_EQ(users->Check("alice", Secret("secret")), V::kOk);
  EXPECT_EQ(users->Check("bob", Secret("pw")), V::kOk);
  EXPECT_EQ(users->Check("alice", Secret("pw")), V::kWrongPassword);
  EXPECT_EQ(users->Check("carol", Secret("secret")), V::kUnknownUser);
  // Upper-case hex is the same hash.
  std::string upper = kAliceHash;
  for (char& c : upper) c = static_cast<char>(std::toupper(c));
  auto again = AuthorizedUsers::Parse("alice," + upper, "u");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->Check("alice", Secret("secret")), V::kOk);
}

TEST(AuthorizedUsers, BadLinesNameTheFileAndLine) {
  const std::string hash = kAliceHash;
  struct UsersCase {
    std::string text;
    std::string expect;
  };
  for (const UsersCase& c : std::vector<UsersCase>{
           {"# x\nalice " + hash, "users.csv:2: expected username,SHA256HEX"},
           {"alice,abc", "users.csv:1: the hash has 3 characters"},
           {"alice," + hash + " ", "users.csv:1: the hash has 65 characters"},
           {"alice," + hash.substr(0, 63) + "g", "users.csv:1: the hash holds a character"},
           {"," + hash, "users.csv:1: the user name is empty"},
           {"al ice," + hash, "users.csv:1: the user name is empty or holds white space"},
           {"alice," + hash + "\nalice," + hash, "users.csv:2: user 'alice' is listed twice"},
           {"# only comments\n", "users.csv lists no user"},
       }) {
    auto users = AuthorizedUsers::Parse(c.text, "users.csv");
    ASSERT_FALSE(users) << c.text;
    EXPECT_NE(users.error().message.find(c.expect), std::string::npos)
        << users.error().message << " / " << c.expect;
    EXPECT_EQ(users.error().message.find(hash.substr(0, 16)), std::string::npos);
  }
}

TEST(AuthorizedUsers, MissingFileIsNamed) {
  auto users = AuthorizedUsers::Load("/nonexistent/users.csv");
  ASSERT_FALSE(users);
  EXPECT_NE(users.error().ToString().find("/nonexistent/users.csv"), std::string::npos);
}

}  // namespace
}  // namespace nicbench::protocol
