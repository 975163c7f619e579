// The token's crypto on OpenSSL's EVP interface (libcrypto 3.0, Debian 12). Every OpenSSL
// failure is turned into an error here and the thread's OpenSSL error queue cleared, so a
// refused token leaves nothing behind for the next call on the thread.
#include "protocol/auth_token.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

namespace nicbench::protocol {
namespace {

constexpr size_t kMaxKeyFileBytes = 64 * 1024;
// A 16384-bit key's ciphertext (2048 bytes) in base64; anything longer is refused unread.
constexpr size_t kMaxTokenChars = 2732;
constexpr std::string_view kUserTag = "user: ";
constexpr std::string_view kPasswordTag = "pwd:  ";
constexpr std::string_view kTimeTag = "ts:   ";

// A byte buffer wiped before it is freed: it holds a plaintext or a file with a private key.
class WipedBytes {
 public:
  explicit WipedBytes(size_t size) : bytes_(size) {}
  ~WipedBytes() { OPENSSL_cleanse(bytes_.data(), bytes_.size()); }
  WipedBytes(const WipedBytes&) = delete;
  WipedBytes& operator=(const WipedBytes&) = delete;
  unsigned char* data() { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }
  std::string_view view(size_t n) const {
    return {reinterpret_cast<const char*>(bytes_.data()), n};
  }

 private:
  std::vector<unsigned char> bytes_;
};

// OpenSSL never prompts for a passphrase: an encrypted private key is an error.
int NoPassphrase(char*, int, int, void*) { return 0; }

struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* ctx) const { EVP_PKEY_CTX_free(ctx); }
};
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;

int PaddingFor(RsaPadding padding) {
  return padding == RsaPadding::kOaep ? RSA_PKCS1_OAEP_PADDING : RSA_PKCS1_PADDING;
}

// Reads a key file whole (the buffer is wiped: it may be a private key). `secret` adds the
// permission check.
Result<std::string> ReadKeyFile(const std::string& path, bool secret) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return Fail(fmt::format("cannot open key file {}", path), errno);
  struct stat st {};
  std::string text;
  std::string problem;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    problem = fmt::format("key file {} is not a regular file", path);
  } else if (st.st_size > static_cast<off_t>(kMaxKeyFileBytes)) {
    problem = fmt::format("key file {} is larger than {} bytes: not a key", path, kMaxKeyFileBytes);
  } else if (secret && (st.st_mode & 077) != 0) {
    problem = fmt::format(
        "private key file {} is accessible by group or others (mode {:04o}); "
        "run chmod 600 {}",
        path, st.st_mode & 07777, path);
  } else {
    text.resize(static_cast<size_t>(st.st_size));
    size_t have = 0;
    while (have < text.size()) {
      const ssize_t n = read(fd, text.data() + have, text.size() - have);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      have += static_cast<size_t>(n);
    }
    text.resize(have);
  }
  close(fd);
  if (!problem.empty()) return Fail(problem);
  return text;
}

Status CheckRsa(EVP_PKEY* key, std::string_view name) {
  if (EVP_PKEY_get_base_id(key) != EVP_PKEY_RSA) {
    return Fail(fmt::format("key {} is not an RSA key (iperf3 authentication uses RSA)", name));
  }
  if (EVP_PKEY_get_bits(key) < 1024) {
    return Fail(fmt::format("RSA key {} has {} bits; at least 1024 are needed", name,
                            EVP_PKEY_get_bits(key)));
  }
  return Ok();
}

EVP_PKEY* ReadPem(std::string_view pem, bool want_private) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (bio == nullptr) return nullptr;
  EVP_PKEY* key = want_private ? PEM_read_bio_PrivateKey(bio, nullptr, NoPassphrase, nullptr)
                               : PEM_read_bio_PUBKEY(bio, nullptr, NoPassphrase, nullptr);
  BIO_free(bio);
  ERR_clear_error();
  return key;
}

// The plaintext's shape: "user: U\npwd:  P\nts:   T" with U and P free of white space.
Result<AuthCredentials> ParsePlaintext(std::string_view text) {
  auto field = [&text](std::string_view tag, bool last) -> std::optional<std::string_view> {
    if (text.substr(0, tag.size()) != tag) return std::nullopt;
    text.remove_prefix(tag.size());
    const size_t end = last ? text.size() : text.find('\n');
    if (end == std::string_view::npos || end == 0) return std::nullopt;
    std::string_view value = text.substr(0, end);
    text.remove_prefix(last ? end : end + 1);
    for (char c : value) {
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\0') return std::nullopt;
    }
    return value;
  };
  auto user = field(kUserTag, false);
  auto password = user ? field(kPasswordTag, false) : std::nullopt;
  auto time = password ? field(kTimeTag, true) : std::nullopt;
  AuthCredentials out;
  if (time) {
    auto [end, ec] = std::from_chars(time->data(), time->data() + time->size(), out.timestamp);
    if (ec != std::errc() || end != time->data() + time->size()) time.reset();
  }
  if (!time || user->size() > kMaxCredentialBytes || password->size() > kMaxCredentialBytes) {
    return Fail("the decrypted token does not have iperf3's user/pwd/ts shape");
  }
  out.username = std::string(*user);
  out.password = Secret(std::string(*password));
  return out;
}

// Decrypts with one padding into `plain`; the plaintext's length, or nothing.
std::optional<size_t> Decrypt(const RsaKey& key, RsaPadding padding, std::string_view cipher,
                              WipedBytes& plain) {
  PkeyCtx ctx(EVP_PKEY_CTX_new(key.get(), nullptr));
  size_t length = plain.size();
  const bool ok =
      ctx && EVP_PKEY_decrypt_init(ctx.get()) > 0 &&
      EVP_PKEY_CTX_set_rsa_padding(ctx.get(), PaddingFor(padding)) > 0 &&
      EVP_PKEY_decrypt(ctx.get(), plain.data(), &length,
                       reinterpret_cast<const unsigned char*>(cipher.data()), cipher.size()) > 0;
  ERR_clear_error();
  if (!ok) return std::nullopt;
  return length;
}

}  // namespace

Secret::Secret(Secret&& other) noexcept : text_(std::move(other.text_)) { other.Wipe(); }

Secret& Secret::operator=(Secret&& other) noexcept {
  if (this != &other) {
    Wipe();
    text_ = std::move(other.text_);
    other.Wipe();
  }
  return *this;
}

void Secret::Wipe() {
  // The whole capacity: a shorter text may have been assigned over a longer one.
  text_.resize(text_.capacity());
  OPENSSL_cleanse(text_.data(), text_.size());
  text_.clear();
}

void RsaKey::Free::operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }

int RsaKey::bits() const { return key_ ? EVP_PKEY_get_bits(key_.get()) : 0; }

Result<RsaKey> RsaKey::ParsePublic(std::string_view pem, std::string_view name) {
  EVP_PKEY* key = ReadPem(pem, /*want_private=*/false);
  if (key == nullptr) {
    if (EVP_PKEY* other = ReadPem(pem, true); other != nullptr) {
      EVP_PKEY_free(other);
      return Fail(fmt::format(
          "{} is a private key; give the public key (openssl rsa -in KEY -pubout -out PUB)", name));
    }
    return Fail(fmt::format("{} is not a PEM public key (-----BEGIN PUBLIC KEY-----)", name));
  }
  RsaKey out;
  out.key_.reset(key, Free());
  if (auto s = CheckRsa(key, name); !s) return tl::unexpected(s.error());
  return out;
}

Result<RsaKey> RsaKey::ParsePrivate(std::string_view pem, std::string_view name) {
  EVP_PKEY* key = ReadPem(pem, /*want_private=*/true);
  if (key == nullptr) {
    if (EVP_PKEY* other = ReadPem(pem, false); other != nullptr) {
      EVP_PKEY_free(other);
      return Fail(fmt::format("{} is a public key; the server needs the private key", name));
    }
    return Fail(fmt::format(
        "{} is not an unencrypted PEM private key (as `openssl genrsa` writes one)", name));
  }
  RsaKey out;
  out.key_.reset(key, Free());
  out.private_ = true;
  if (auto s = CheckRsa(key, name); !s) return tl::unexpected(s.error());
  return out;
}

Result<RsaKey> RsaKey::LoadPublic(const std::string& path) {
  auto text = ReadKeyFile(path, /*secret=*/false);
  if (!text) return tl::unexpected(text.error());
  return ParsePublic(*text, path);
}

Result<RsaKey> RsaKey::LoadPrivate(const std::string& path) {
  auto text = ReadKeyFile(path, /*secret=*/true);
  if (!text) return tl::unexpected(text.error());
  Secret wiped(std::move(*text));
  return ParsePrivate(wiped.text(), path);
}

Result<std::string> EncodeAuthToken(std::string_view username, const Secret& password,
                                    const RsaKey& public_key, RsaPadding padding,
                                    int64_t now_seconds) {
  for (std::string_view value : {username, std::string_view(password.text())}) {
    if (value.empty() || value.size() > kMaxCredentialBytes ||
        value.find_first_of(" \t\r\n", 0) != std::string_view::npos ||
        value.find('\0') != std::string_view::npos) {
      return Fail(
          fmt::format("the user name and password must be 1..{} bytes without white space "
                      "(iperf3's server reads each as one word)",
                      kMaxCredentialBytes));
    }
  }
  Secret plain(fmt::format("{}{}\n{}{}\n{}{}", kUserTag, username, kPasswordTag, password.text(),
                           kTimeTag, now_seconds));
  PkeyCtx ctx(EVP_PKEY_CTX_new(public_key.get(), nullptr));
  size_t length = 0;
  bool ok = ctx && EVP_PKEY_encrypt_init(ctx.get()) > 0 &&
            EVP_PKEY_CTX_set_rsa_padding(ctx.get(), PaddingFor(padding)) > 0;
  const auto* in = reinterpret_cast<const unsigned char*>(plain.text().data());
  ok = ok && EVP_PKEY_encrypt(ctx.get(), nullptr, &length, in, plain.text().size()) > 0;
  std::string cipher(length, '\0');
  ok = ok && EVP_PKEY_encrypt(ctx.get(), reinterpret_cast<unsigned char*>(cipher.data()), &length,
                              in, plain.text().size()) > 0;
  ERR_clear_error();
  if (!ok) {
    return Fail(fmt::format("cannot encrypt the credentials with the {}-bit key (too long?)",
                            public_key.bits()));
  }
  cipher.resize(length);
  return Base64Encode(cipher);
}

Result<AuthCredentials> DecodeAuthToken(std::string_view token, const RsaKey& private_key,
                                        bool accept_pkcs1) {
  if (token.size() > kMaxTokenChars) {
    return Fail(fmt::format("the token has {} characters, more than any key's", token.size()));
  }
  auto cipher = Base64Decode(token);
  if (!cipher) return Fail("the token is not base64: " + cipher.error().message);
  const size_t key_bytes = static_cast<size_t>(EVP_PKEY_get_size(private_key.get()));
  if (cipher->size() != key_bytes) {
    return Fail(
        fmt::format("the token holds {} bytes, the key's size is {}", cipher->size(), key_bytes));
  }
  WipedBytes plain(key_bytes);
  std::optional<size_t> length = Decrypt(private_key, RsaPadding::kOaep, *cipher, plain);
  if (!length && accept_pkcs1) length = Decrypt(private_key, RsaPadding::kPkcs1, *cipher, plain);
  if (!length) {
    return Fail(accept_pkcs1 ? "the token does not decrypt with this server's key"
                             : "the token does not decrypt with this server's key and OAEP "
                               "(an iperf3 client before 3.17 pads with PKCS#1 v1.5: serve with "
                               "--use-pkcs1-padding)");
  }
  return ParsePlaintext(plain.view(*length));
}

}  // namespace nicbench::protocol
