// iperf3's authentication token, both ends (docs/security.md). The client encrypts
//   "user: USER\npwd:  PASSWORD\nts:   UNIX_SECONDS"
// with the server's RSA public key, base64-encodes it on one line and sends it as "authtoken"
// in the parameter JSON; the server decrypts it with its private key. Padding: OAEP (SHA-1,
// OpenSSL's default, as iperf3 3.17+), or PKCS#1 v1.5 (iperf3 up to 3.16, and 3.17+ with
// --use-pkcs1-padding). Keys are PEM files: a public key as `openssl rsa -pubout` writes it,
// a private key as `openssl genrsa` writes it.
//
// Secrets (the password, the decrypted token) live in Secret or in buffers wiped with
// OPENSSL_cleanse before they are freed. Thread safety: plain values; an RsaKey may be used from
// several threads at once (each call makes its own EVP_PKEY_CTX).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"

typedef struct evp_pkey_st EVP_PKEY;

namespace nicbench::protocol {

// A password or other secret text: wiped from memory when destroyed or overwritten. Move-only,
// so no stray copy outlives it.
class Secret {
 public:
  Secret() = default;
  explicit Secret(std::string text) : text_(std::move(text)) {}
  ~Secret() { Wipe(); }
  Secret(Secret&& other) noexcept;
  Secret& operator=(Secret&& other) noexcept;
  Secret(const Secret&) = delete;
  Secret& operator=(const Secret&) = delete;

  const std::string& text() const { return text_; }
  bool empty() const { return text_.empty(); }
  void Wipe();

 private:
  std::string text_;
};

enum class RsaPadding { kOaep, kPkcs1 };

// An RSA key read from a PEM file: public (can encrypt) or private (can decrypt too).
class RsaKey {
 public:
  RsaKey() = default;
  bool is_private() const { return private_; }
  int bits() const;
  EVP_PKEY* get() const { return key_.get(); }

  // The path names the file in every error: missing, unreadable, not a PEM key, not RSA, a
  // private key where the public one belongs (or the reverse), or (private keys) readable or
  // writable by group or others (0600 or 0400 wanted, as ssh asks).
  static Result<RsaKey> LoadPublic(const std::string& path);
  static Result<RsaKey> LoadPrivate(const std::string& path);
  // The same on PEM text already in memory (tests); `name` stands for the path in errors.
  static Result<RsaKey> ParsePublic(std::string_view pem, std::string_view name);
  static Result<RsaKey> ParsePrivate(std::string_view pem, std::string_view name);

 private:
  struct Free {
    void operator()(EVP_PKEY* key) const;
  };
  std::shared_ptr<EVP_PKEY> key_;
  bool private_ = false;
};

// What a token carries.
struct AuthCredentials {
  std::string username;
  Secret password;
  int64_t timestamp = 0;  // the client's clock, Unix seconds
};

// Longest user name and password a token carries; iperf3 reads each into a buffer of the
// plaintext's size, and a 2048-bit key's OAEP plaintext is at most 214 bytes anyway.
inline constexpr size_t kMaxCredentialBytes = 255;

// The client's token: fails when the user or password is empty, longer than
// kMaxCredentialBytes, contains white space (iperf3's server reads each with %s) or does not
// fit the key's size with that padding.
Result<std::string> EncodeAuthToken(std::string_view username, const Secret& password,
                                    const RsaKey& public_key, RsaPadding padding,
                                    int64_t now_seconds);

// The server's side. The token must be base64 of exactly the key's size (a 2048-bit key:
// 256 bytes, 344 characters); it is decrypted with OAEP, and with PKCS#1 v1.5 too when
// `accept_pkcs1`; the plaintext must have exactly the shape above. Every failure says which
// step failed (never with the token's contents); the caller refuses them all alike.
Result<AuthCredentials> DecodeAuthToken(std::string_view token, const RsaKey& private_key,
                                        bool accept_pkcs1);

// Base64 without line breaks (RFC 4648 alphabet, '=' padding), as iperf3 writes it. Decoding
// refuses anything else: another character, a line break, missing or misplaced padding.
std::string Base64Encode(std::string_view bytes);
Result<std::string> Base64Decode(std::string_view text);

// SHA-256 of "{username}password" as 64 lowercase hex digits: the second field of a line of
// iperf3's authorized-users file (`printf '%s' "{user}pass" | sha256sum`).
std::string PasswordHashHex(std::string_view username, const Secret& password);

}  // namespace nicbench::protocol
