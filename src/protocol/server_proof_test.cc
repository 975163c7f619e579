#include "protocol/server_proof.h"

#include <string>

#include <gtest/gtest.h>

#include "protocol/auth_test_keys.h"

namespace nicbench::protocol {
namespace {

RsaKey ProofPublicKey(const testkeys::PemPair& pair) {
  auto key = RsaKey::ParsePublic(pair.public_pem, "pub.pem");
  EXPECT_TRUE(key) << key.error().ToString();
  return *key;
}
RsaKey ProofPrivateKey(const testkeys::PemPair& pair) {
  auto key = RsaKey::ParsePrivate(pair.private_pem, "priv.pem");
  EXPECT_TRUE(key) << key.error().ToString();
  return *key;
}

constexpr std::string_view kCookie = "abcdefghijklmnopqrstuvwxyz2345672345";

TEST(ServerProof, NoncesAreFreshBase64OfTheirSize) {
  const std::string a = MakeProofNonce();
  EXPECT_EQ(a.size(), kProofNonceChars);
  auto raw = Base64Decode(a);
  ASSERT_TRUE(raw);
  EXPECT_EQ(raw->size(), kProofNonceBytes);
  EXPECT_NE(a, MakeProofNonce());
}

TEST(ServerProof, TheRightKeysSignatureVerifies) {
  const std::string nonce = MakeProofNonce();
  auto signature = SignServerProof(ProofPrivateKey(testkeys::Rsa2048()), kCookie, nonce);
  ASSERT_TRUE(signature) << signature.error().ToString();
  EXPECT_TRUE(VerifyServerProof(ProofPublicKey(testkeys::Rsa2048()), kCookie, nonce, *signature));
}

TEST(ServerProof, AnotherKeyAnotherNonceOrCookieIsRefused) {
  const std::string nonce = MakeProofNonce();
  auto signature = SignServerProof(ProofPrivateKey(testkeys::OtherRsa2048()), kCookie, nonce);
  ASSERT_TRUE(signature);
  const RsaKey pinned = ProofPublicKey(testkeys::Rsa2048());
  auto other_key = VerifyServerProof(pinned, kCookie, nonce, *signature);
  ASSERT_FALSE(other_key);
  EXPECT_NE(other_key.error().message.find("does not verify"), std::string::npos)
      << other_key.error().message;
  auto good = SignServerProof(ProofPrivateKey(testkeys::Rsa2048()), kCookie, nonce);
  ASSERT_TRUE(good);
  // A signature is for one test's cookie and one nonce: it cannot be replayed for another.
  EXPECT_FALSE(VerifyServerProof(pinned, kCookie, MakeProofNonce(), *good));
  EXPECT_FALSE(VerifyServerProof(pinned, "bbcdefghijklmnopqrstuvwxyz2345672345", nonce, *good));
}

TEST(ServerProof, MalformedSignaturesAreRefusedWithTheReason) {
  const RsaKey pinned = ProofPublicKey(testkeys::Rsa2048());
  const std::string nonce = MakeProofNonce();
  auto not_base64 = VerifyServerProof(pinned, kCookie, nonce, "***");
  ASSERT_FALSE(not_base64);
  EXPECT_NE(not_base64.error().message.find("not base64"), std::string::npos);
  auto short_one = VerifyServerProof(pinned, kCookie, nonce, Base64Encode("tiny"));
  ASSERT_FALSE(short_one);
  EXPECT_NE(short_one.error().message.find("holds 4 bytes"), std::string::npos)
      << short_one.error().message;
  auto huge = VerifyServerProof(pinned, kCookie, nonce, std::string(5000, 'A'));
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message.find("5000 characters"), std::string::npos);
  EXPECT_FALSE(VerifyServerProof(pinned, kCookie, nonce, Base64Encode(std::string(256, 'x'))));
}

}  // namespace
}  // namespace nicbench::protocol
