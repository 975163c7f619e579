// RSA-PSS on OpenSSL's EVP interface, as auth_token.cc uses it: every failure becomes an error
// and the thread's OpenSSL error queue is cleared.
#include "protocol/server_proof.h"

#include <sys/random.h>

#include <cerrno>
#include <memory>
#include <vector>

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "base/check.h"

namespace nicbench::protocol {
namespace {

constexpr std::string_view kProofPrefix = "nicbench server proof v1\n";

struct MdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

Error CryptoError(std::string_view what) {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  char text[256] = "no detail";
  if (code != 0) ERR_error_string_n(code, text, sizeof text);
  return Error{fmt::format("{}: {}", what, text)};
}

// PSS with the salt as long as the digest: what `openssl dgst -sigopt rsa_padding_mode:pss`
// verifies by default as well.
bool UsePss(EVP_PKEY_CTX* ctx) {
  return EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING) > 0 &&
         EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, RSA_PSS_SALTLEN_DIGEST) > 0;
}

}  // namespace

std::string MakeProofNonce() {
  std::string random(kProofNonceBytes, '\0');
  size_t filled = 0;
  while (filled < random.size()) {
    const ssize_t n = getrandom(random.data() + filled, random.size() - filled, 0);
    NB_CHECK(n > 0 || errno == EINTR);
    if (n > 0) filled += static_cast<size_t>(n);
  }
  return Base64Encode(random);
}

std::string ServerProofMessage(std::string_view cookie, std::string_view nonce) {
  std::string message(kProofPrefix);
  message.append(cookie).append("\n").append(nonce);
  return message;
}

Result<std::string> SignServerProof(const RsaKey& private_key, std::string_view cookie,
                                    std::string_view nonce) {
  NB_CHECK(private_key.is_private());
  const std::string message = ServerProofMessage(cookie, nonce);
  MdCtx ctx(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pctx = nullptr;
  if (!ctx || EVP_DigestSignInit(ctx.get(), &pctx, EVP_sha256(), nullptr, private_key.get()) <= 0 ||
      !UsePss(pctx)) {
    return tl::unexpected(CryptoError("signing the server proof"));
  }
  size_t size = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(message.data());
  if (EVP_DigestSign(ctx.get(), nullptr, &size, data, message.size()) <= 0) {
    return tl::unexpected(CryptoError("signing the server proof"));
  }
  std::vector<unsigned char> signature(size);
  if (EVP_DigestSign(ctx.get(), signature.data(), &size, data, message.size()) <= 0) {
    return tl::unexpected(CryptoError("signing the server proof"));
  }
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(signature.data()), size));
}

Status VerifyServerProof(const RsaKey& public_key, std::string_view cookie, std::string_view nonce,
                         std::string_view signature) {
  if (signature.size() > kMaxProofSignatureChars) {
    return Fail(
        fmt::format("the signature has {} characters, more than any RSA key's", signature.size()));
  }
  auto raw = Base64Decode(signature);
  if (!raw) return Fail("the signature is not base64: " + raw.error().message);
  const size_t key_bytes = static_cast<size_t>((public_key.bits() + 7) / 8);
  if (raw->size() != key_bytes) {
    return Fail(fmt::format("the signature holds {} bytes; the pinned key's size is {}",
                            raw->size(), key_bytes));
  }
  const std::string message = ServerProofMessage(cookie, nonce);
  MdCtx ctx(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pctx = nullptr;
  if (!ctx ||
      EVP_DigestVerifyInit(ctx.get(), &pctx, EVP_sha256(), nullptr, public_key.get()) <= 0 ||
      !UsePss(pctx)) {
    return tl::unexpected(CryptoError("checking the server proof"));
  }
  const int ok =
      EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(raw->data()), raw->size(),
                       reinterpret_cast<const unsigned char*>(message.data()), message.size());
  ERR_clear_error();
  if (ok != 1) return Fail("the signature does not verify with the pinned key");
  return Ok();
}

}  // namespace nicbench::protocol
