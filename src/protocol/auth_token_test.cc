#include "protocol/auth_token.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include "protocol/auth_test_keys.h"

namespace nicbench::protocol {
namespace {

RsaKey Public(const testkeys::PemPair& pair = testkeys::Rsa2048()) {
  auto key = RsaKey::ParsePublic(pair.public_pem, "pub.pem");
  EXPECT_TRUE(key) << key.error().ToString();
  return *key;
}
RsaKey Private(const testkeys::PemPair& pair = testkeys::Rsa2048()) {
  auto key = RsaKey::ParsePrivate(pair.private_pem, "priv.pem");
  EXPECT_TRUE(key) << key.error().ToString();
  return *key;
}

// Encrypts `plain` as it is (any shape) with the public key, as a client could.
std::string RawToken(const std::string& plain, RsaPadding padding) {
  RsaKey key = Public();
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new(key.get(), nullptr);
  EVP_PKEY_encrypt_init(ctx);
  EVP_PKEY_CTX_set_rsa_padding(ctx, padding == RsaPadding::kOaep ? 4 : 1);
  std::string out(256, '\0');
  size_t n = out.size();
  EVP_PKEY_encrypt(ctx, reinterpret_cast<unsigned char*>(out.data()), &n,
                   reinterpret_cast<const unsigned char*>(plain.data()), plain.size());
  EVP_PKEY_CTX_free(ctx);
  out.resize(n);
  return Base64Encode(out);
}

TEST(Base64, RoundTripsEveryLength) {
  std::string bytes;
  for (int i = 0; i < 40; ++i) {
    auto back = Base64Decode(Base64Encode(bytes));
    ASSERT_TRUE(back) << i;
    EXPECT_EQ(*back, bytes);
    bytes += static_cast<char>(i * 37);
  }
  EXPECT_EQ(Base64Encode("hello"), "aGVsbG8=");
}

TEST(Base64, RefusesWhatAnEncoderNeverWrites) {
  EXPECT_FALSE(Base64Decode("aGVsbG8"));     // length not a multiple of 4
  EXPECT_FALSE(Base64Decode("aGVs\nbG8="));  // a line break
  EXPECT_FALSE(Base64Decode("aGV*bG8="));    // a character outside the alphabet
  EXPECT_FALSE(Base64Decode("aG=sbG8="));    // padding in the middle
  EXPECT_FALSE(Base64Decode("a==="));        // three padding characters
}

TEST(AuthToken, RoundTripsWithOaepAndPkcs1) {
  for (RsaPadding padding : {RsaPadding::kOaep, RsaPadding::kPkcs1}) {
    auto token = EncodeAuthToken("alice", Secret("s3cr3t!"), Public(), padding, 1700000000);
    ASSERT_TRUE(token) << token.error().ToString();
    EXPECT_EQ(token->size(), 344u);  // 256 bytes in base64, one line
    auto back = DecodeAuthToken(*token, Private(), /*accept_pkcs1=*/true);
    ASSERT_TRUE(back) << back.error().ToString();
    EXPECT_EQ(back->username, "alice");
    EXPECT_EQ(back->password.text(), "s3cr3t!");
    EXPECT_EQ(back->timestamp, 1700000000);
  }
}

TEST(AuthToken, Pkcs1IsRefusedUnlessAccepted) {
  auto token = EncodeAuthToken("alice", Secret("pw"), Public(), RsaPadding::kPkcs1, 1);
  ASSERT_TRUE(token);
  auto back = DecodeAuthToken(*token, Private(), /*accept_pkcs1=*/false);
  ASSERT_FALSE(back);
  EXPECT_NE(back.error().message.find("--use-pkcs1-padding"), std::string::npos);
}

TEST(AuthToken, ReadsIperf3PlaintextShapeOnly) {
  auto good = DecodeAuthToken(RawToken("user: bob\npwd:  pw\nts:   -5", RsaPadding::kOaep),
                              Private(), false);
  ASSERT_TRUE(good) << good.error().ToString();
  EXPECT_EQ(good->timestamp, -5);
  for (const char* bad :
       {"user: bob\npwd: pw\nts:   5", "user: bob\npwd:  pw\nts:   5x", "user: \npwd:  pw\nts:   5",
        "user: bob\npwd:  pw", "hello", "user: bob\npwd:  pw\nts:   99999999999999999999"}) {
    EXPECT_FALSE(DecodeAuthToken(RawToken(bad, RsaPadding::kOaep), Private(), false)) << bad;
  }
}

TEST(AuthToken, RefusesTokensOfTheWrongSizeOrNotBase64OrAnotherKey) {
  auto token = EncodeAuthToken("alice", Secret("pw"), Public(), RsaPadding::kOaep, 1);
  ASSERT_TRUE(token);
  auto shorter = DecodeAuthToken(token->substr(4), Private(), true);
  ASSERT_FALSE(shorter);
  EXPECT_NE(shorter.error().message.find("key's size"), std::string::npos);
  EXPECT_FALSE(DecodeAuthToken("!!!!" + token->substr(4), Private(), true));
  EXPECT_FALSE(DecodeAuthToken(std::string(100000, 'A'), Private(), true));
  EXPECT_FALSE(DecodeAuthToken("", Private(), true));
  auto other = DecodeAuthToken(*token, Private(testkeys::OtherRsa2048()), true);
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("does not decrypt"), std::string::npos);
  // 256 random-looking bytes: no padding check passes.
  EXPECT_FALSE(DecodeAuthToken(Base64Encode(std::string(256, '\x5a')), Private(), true));
}

TEST(AuthToken, CredentialsMustBeWordsIperf3CanRead) {
  EXPECT_FALSE(EncodeAuthToken("al ice", Secret("pw"), Public(), RsaPadding::kOaep, 1));
  EXPECT_FALSE(EncodeAuthToken("alice", Secret("p w"), Public(), RsaPadding::kOaep, 1));
  EXPECT_FALSE(EncodeAuthToken("", Secret("pw"), Public(), RsaPadding::kOaep, 1));
  EXPECT_FALSE(EncodeAuthToken("alice", Secret(""), Public(), RsaPadding::kOaep, 1));
  // Longer than a 2048-bit key takes with OAEP (214 bytes of plaintext).
  EXPECT_FALSE(
      EncodeAuthToken("alice", Secret(std::string(220, 'x')), Public(), RsaPadding::kOaep, 1));
}

TEST(RsaKey, SaysWhichKindOfKeyIsWrong) {
  const testkeys::PemPair& pair = testkeys::Rsa2048();
  auto pub_as_priv = RsaKey::ParsePrivate(pair.public_pem, "k.pem");
  ASSERT_FALSE(pub_as_priv);
  EXPECT_NE(pub_as_priv.error().message.find("k.pem is a public key"), std::string::npos);
  auto priv_as_pub = RsaKey::ParsePublic(pair.private_pem, "k.pem");
  ASSERT_FALSE(priv_as_pub);
  EXPECT_NE(priv_as_pub.error().message.find("k.pem is a private key"), std::string::npos);
  auto junk = RsaKey::ParsePublic("hello\n", "k.pem");
  ASSERT_FALSE(junk);
  EXPECT_NE(junk.error().message.find("not a PEM public key"), std::string::npos);
  testkeys::PemPair ec = testkeys::Ec256();
  auto not_rsa = RsaKey::ParsePrivate(ec.private_pem, "ec.pem");
  ASSERT_FALSE(not_rsa);
  EXPECT_NE(not_rsa.error().message.find("not an RSA key"), std::string::npos);
  EXPECT_FALSE(RsaKey::ParsePublic(ec.public_pem, "ec.pub"));
}

class KeyFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/nicbench-keys-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { (void)!std::system(("rm -rf " + dir_).c_str()); }
  std::string Write(const std::string& name, const std::string& text, mode_t mode) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    chmod(path.c_str(), mode);
    return path;
  }
  std::string dir_;
};

TEST_F(KeyFiles, LoadsKeysAndRefusesALooseOrMissingPrivateKey) {
  const testkeys::PemPair& pair = testkeys::Rsa2048();
  EXPECT_TRUE(RsaKey::LoadPrivate(Write("priv.pem", pair.private_pem, 0600)));
  EXPECT_TRUE(RsaKey::LoadPublic(Write("pub.pem", pair.public_pem, 0644)));
  const std::string loose = Write("loose.pem", pair.private_pem, 0644);
  auto refused = RsaKey::LoadPrivate(loose);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("chmod 600 " + loose), std::string::npos);
  auto missing = RsaKey::LoadPublic(dir_ + "/none.pem");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().ToString().find(dir_ + "/none.pem"), std::string::npos);
  EXPECT_FALSE(RsaKey::LoadPublic(dir_));  // a directory
}

TEST(Secret, WipesOnMove) {
  Secret a("password");
  Secret b(std::move(a));
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the point of the test
  EXPECT_EQ(b.text(), "password");
  b.Wipe();
  EXPECT_TRUE(b.empty());
}

}  // namespace
}  // namespace nicbench::protocol
